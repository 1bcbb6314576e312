// GET /.well-known/agent-card.json — A2A agent card (card 0.2.0; protocol 1.0, or the 0.3 card when A2A-Version asks for no 1.x; HTTP+JSON).
import { jsonDocument } from "@/lib/discovery/respond";
import { agentCard } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-card", agentCard, "application/json", "A2A-Version");

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
