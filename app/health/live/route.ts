// GET /health/live — liveness probe: answers without touching the database or upstreams.
export const dynamic = "force-static";

export function GET(): Response {
  return new Response('{"status":"live"}', { headers: { "Content-Type": "application/json" } });
}
