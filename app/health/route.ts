// GET /health — database and upstream status (free).
import { healthReport } from "@/lib/http/health";
import { jsonResponse } from "@/lib/errors";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const report = await healthReport();
  return jsonResponse(report, { status: report.status === "down" ? 503 : 200, headers: { "Cache-Control": "no-store" } });
}
