// GET /a2a/v1 — the A2A 1.0 HTTP+JSON interface URL (its operations are under it: POST /a2a/v1/message:send, …): the JSON description of the A2A server, as GET /a2a. See lib/a2a.
import { jsonDocument } from "@/lib/discovery/respond";
import { a2aDescription } from "@/lib/a2a/info";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("a2a-v1", a2aDescription);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
