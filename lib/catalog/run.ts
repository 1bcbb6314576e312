/**
 * Runs a product's handler with its response cache (single-flight per product and
 * parameters) and checks the result against the product's output schema, so a
 * computation that produced garbage (NaN, missing fields) is an error, never a 200.
 * Every failure leaves here as an ApiError: an upstream's as 503 upstream_unavailable,
 * anything else (the database behind the attestation key, a bug) as 503
 * service_unavailable, never a 500; the gate then charges nothing.
 */
import { cached } from "@/lib/market/cache";
import { UnavailableError, ApiError, ServiceUnavailableError, logUnexpected } from "@/lib/errors";
import { UpstreamError } from "@/lib/market/upstream";
import { log } from "@/lib/log";
import type { AnyProduct, HandlerContext } from "@/lib/catalog/types";

function cacheKey(product: AnyProduct, params: unknown): string {
  return `product:${product.id}:${JSON.stringify(params)}`;
}

/**
 * The product's output for `params`: data products are computed or served from cache
 * (single-flight per parameters); products with side effects (bundle purchases) run
 * for every call and never share a result.
 */
export async function runProduct(product: AnyProduct, params: unknown, ctx: Omit<HandlerContext, "now"> = {}): Promise<unknown> {
  if (product.kind !== "data") return compute(product, params, ctx);
  return cached(cacheKey(product, params), product.cacheTtlSeconds * 1000, () => compute(product, params, ctx));
}

async function compute(product: AnyProduct, params: unknown, ctx: Omit<HandlerContext, "now">): Promise<unknown> {
  {
    let out: unknown;
    try {
      out = await product.handler(params as Record<string, unknown>, { ...ctx, now: new Date() });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof UpstreamError) {
        throw new UnavailableError(`${product.title} is unavailable: ${err.provider} failed (${err.kind}).`, { sources: [err.provider], cause: err });
      }
      logUnexpected(err, { product: product.id });
      throw new ServiceUnavailableError(`${product.title} could not be computed right now; nothing was charged. Retry later.`, { cause: err });
    }
    const checked = product.output.safeParse(out);
    if (!checked.success) {
      log.error("product.output_invalid", { product: product.id, issues: checked.error.issues.slice(0, 3).map((i: { path: PropertyKey[]; message: string }) => `${i.path.join(".")}: ${i.message}`) });
      throw new UnavailableError(`${product.title} could not be computed from the current upstream data.`);
    }
    return checked.data;
  }
}
