// GET /agent.json — A2A agent card at the legacy root path.
import { jsonDocument } from "@/lib/discovery/respond";
import { agentCard } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-json", agentCard, "application/json", "A2A-Version");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
