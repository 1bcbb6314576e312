// GET /agents.txt — plain-text summary for autonomous agents.
import { textDocument } from "@/lib/discovery/respond";
import { agentsTxt } from "@/lib/discovery/text";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = textDocument("agents-txt", agentsTxt, "text/plain");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
