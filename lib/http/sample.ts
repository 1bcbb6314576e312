/**
 * /v1/sample: the reduced XLM snapshot, free and keyless, limited per client IP in a
 * fixed hourly window. Over the limit: 429 with Retry-After and RateLimit headers.
 */
import { sampleFromSnapshot } from "@/lib/market/xlm/snapshot";
import { freeSnapshot } from "@/lib/catalog/free-snapshot";
import { rateLimit, rateLimitHeaders } from "@/lib/limits/ratelimit";
import { policies } from "@/lib/limits/policies";
import { ApiError, errorResponse, jsonResponse } from "@/lib/errors";
import { clientIp } from "@/lib/http/client-ip";

export async function serveSample(req: Request): Promise<Response> {
  try {
    const limit = await rateLimit("sample", clientIp(req));
    const headers = rateLimitHeaders(limit, policies().sample.windowSeconds);
    if (!limit.success) {
      throw new ApiError("rate_limited", `The keyless sample allows ${limit.limit} calls per hour per client; retry in ${headers["Retry-After"]} s, or mint a free key at /v1/free-key.`, {
        headers,
        extra: { retry_after: Number(headers["Retry-After"]), free_key: "/v1/free-key" },
      });
    }
    const body = await sampleFromSnapshot(await freeSnapshot());
    return jsonResponse(body, { headers: { ...headers, "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, { route: "sample" });
  }
}
