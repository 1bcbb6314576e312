// GET /health — database and upstream status (free): 200 ok/degraded, 503 down (rule in lib/http/health.ts).
import { healthReport } from "@/lib/http/health";
import { jsonResponse } from "@/lib/errors";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const report = await healthReport();
  const down = report.status === "down";
  return jsonResponse(report, { status: down ? 503 : 200, headers: { "Cache-Control": "no-store", ...(down ? { "Retry-After": "10" } : {}) } });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
