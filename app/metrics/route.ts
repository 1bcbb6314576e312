// GET /metrics — Prometheus metrics of this instance (admin credential only; 404 otherwise, like /v1/bundles/debug). See lib/metrics.
import { isAdmin } from "@/lib/http/admin";
import { renderMetrics } from "@/lib/metrics/render";
import { errorResponse } from "@/lib/errors";
import { notFound } from "@/lib/http/responses";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  if (!isAdmin(req)) return notFound(new URL(req.url).pathname);
  try {
    const { contentType, body } = await renderMetrics();
    return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, { route: "metrics" });
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
