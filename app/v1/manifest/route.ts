// GET /v1/manifest — catalog of paid endpoints with live prices (free; always 200).
import { manifest } from "@/lib/discovery/manifest";
import { jsonResponse } from "@/lib/errors";
import { baseCacheHeaders, baseUrlInfo } from "@/lib/http/base-url";

export const dynamic = "force-dynamic";

/** Seconds the manifest may be reused (its prices are live, so shorter than the documents'). */
const MAX_AGE = 60;

export async function GET(req: Request): Promise<Response> {
  return jsonResponse(await manifest(req), { headers: baseCacheHeaders(baseUrlInfo(req), MAX_AGE) });
}
