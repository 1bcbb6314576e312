/**
 * HTTP surface of a catalog product: parse and validate the query (422), pass the
 * credential through the access gate, run the handler, respond. Thin by design: every
 * decision lives in the catalog, the gate or the handler.
 */
import { credentialFromHeaders } from "@/lib/access/credentials";
import { runGated } from "@/lib/access/gate";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import type { AnyProduct } from "@/lib/catalog/types";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { clientIp } from "@/lib/http/client-ip";
import { baseUrl } from "@/lib/http/base-url";

/** Raw query parameters; the last value wins when a name repeats. */
export function queryRecord(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
  return out;
}

export async function serveProduct(req: Request, product: AnyProduct): Promise<Response> {
  try {
    const url = new URL(req.url);
    const params = validateOrThrow(paramsSchema(product.params), queryRecord(url), "query");
    const { value, headers } = await runGated(
      {
        product,
        surface: "http",
        credential: credentialFromHeaders(req.headers),
        resource: `${baseUrl(req)}${product.path}`,
        clientIp: clientIp(req),
      },
      (grant) => runProduct(product, params, { payment: grant.payment }),
      { onCommitFailed: product.onCommitFailed },
    );
    return jsonResponse(value, { headers: { "Cache-Control": "no-store", ...headers } });
  } catch (err) {
    return errorResponse(err, { product: product.id });
  }
}
