// GET /agent.json — A2A agent card at the legacy root path.
import { jsonDocument } from "@/lib/discovery/respond";
import { agentCard } from "@/lib/discovery/cards";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-json", agentCard);
