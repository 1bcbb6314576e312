// GET /.well-known/agent.json — A2A agent card at the pre-0.3 well-known path.
import { jsonDocument } from "@/lib/discovery/respond";
import { agentCard } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("well-known-agent-json", agentCard, "application/json", "A2A-Version");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
