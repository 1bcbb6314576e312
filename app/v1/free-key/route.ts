// GET /v1/free-key — mint a free-tier API key (optional ?email=), rate-limited per IP.
import { mintFreeKey } from "@/lib/access/free-key";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { clientIp } from "@/lib/http/client-ip";
import { queryRecord } from "@/lib/http/serve-product";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    const { body, headers } = await mintFreeKey(queryRecord(new URL(req.url)), clientIp(req));
    return jsonResponse(body, { headers: { ...headers, "Cache-Control": "no-store" } });
  } catch (err) {
    return errorResponse(err, { route: "free-key" });
  }
}
