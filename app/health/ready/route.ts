// GET /health/ready — readiness probe: the database answers (opened and migrated on first
// use); no upstream is contacted. The server calls it once at start to open the database.
import { databaseStatus } from "@/lib/http/health";
import { jsonResponse } from "@/lib/errors";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  // The first call opens the database and applies migrations, which may take a while.
  const database = await databaseStatus(30_000);
  // Not ready: a 503 with Retry-After like /health's "down" and every other 503 here.
  return jsonResponse(
    { status: database.ok ? "ready" : "not_ready", database },
    { status: database.ok ? 200 : 503, headers: { "Cache-Control": "no-store", ...(database.ok ? {} : { "Retry-After": "10" }) } },
  );
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
