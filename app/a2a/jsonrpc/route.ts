// POST /a2a/jsonrpc — A2A JSON-RPC binding: 1.0 (SendMessage, GetTask, CancelTask) and 0.3 (message/send, tasks/get, tasks/cancel); GET — the A2A server description. See lib/a2a.
import { serveJsonRpc } from "@/lib/a2a/jsonrpc";
import { jsonDocument } from "@/lib/discovery/respond";
import { a2aDescription } from "@/lib/a2a/info";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const POST = serveJsonRpc;
export const GET = jsonDocument("a2a-jsonrpc", a2aDescription);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET", "POST"]);
