// GET /health/live — liveness probe: answers without touching the database or upstreams.
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-static";

export function GET(): Response {
  return new Response('{"status":"live"}', { headers: { "Content-Type": "application/json" } });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
