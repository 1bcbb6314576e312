// GET /v1/manifest — catalog of paid endpoints with live prices (free; always 200, spec 4.2).
import { catalogManifest, manifest } from "@/lib/discovery/manifest";
import { jsonResponse, logUnexpected } from "@/lib/errors";
import { baseCacheHeaders, baseUrlInfo } from "@/lib/http/base-url";
import { otherMethods } from "@/lib/http/methods";

export const dynamic = "force-dynamic";

/** Seconds the manifest may be reused (its prices are live, so shorter than the documents'). */
const MAX_AGE = 60;

export async function GET(req: Request): Promise<Response> {
  try {
    const body = await manifest(req);
    // A degraded body must not be kept by caches once the database is back.
    return jsonResponse(body, { headers: body.complete ? baseCacheHeaders(baseUrlInfo(req), MAX_AGE) : { "Cache-Control": "no-store" } });
  } catch (err) {
    logUnexpected(err, { route: "manifest" });
    const body = catalogManifest(req, null, [{ field: "attestation_public_key", reason: "the live parts of the manifest failed; this body comes from the catalog alone" }]);
    return jsonResponse(body, { headers: { "Cache-Control": "no-store" } });
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);
