// GET /v1/manifest — catalog of paid endpoints with live prices (free; always 200).
import { manifest } from "@/lib/discovery/manifest";
import { jsonResponse } from "@/lib/errors";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  return jsonResponse(await manifest(req), { headers: { "Cache-Control": "public, max-age=60" } });
}
