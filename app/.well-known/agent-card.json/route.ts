// GET /.well-known/agent-card.json — A2A agent card (card 0.2.0, protocol 0.3.0, HTTP+JSON).
import { jsonDocument } from "@/lib/discovery/respond";
import { agentCard } from "@/lib/discovery/cards";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export const GET = jsonDocument("agent-card", agentCard);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
