/**
 * Runs a product's handler with its response cache (single-flight per product and
 * parameters) and checks the result against the product's output schema, so a
 * computation that produced garbage (NaN, missing fields) is an error, never a 200.
 */
import { cached } from "@/lib/market/cache";
import { UnavailableError, ApiError } from "@/lib/errors";
import { UpstreamError } from "@/lib/market/upstream";
import { log } from "@/lib/log";
import type { AnyProduct } from "@/lib/catalog/types";

function cacheKey(product: AnyProduct, params: unknown): string {
  return `product:${product.id}:${JSON.stringify(params)}`;
}

/** The product's output for `params`, computed or from cache. */
export async function runProduct(product: AnyProduct, params: unknown): Promise<unknown> {
  return cached(cacheKey(product, params), product.cacheTtlSeconds * 1000, async () => {
    let out: unknown;
    try {
      out = await product.handler(params, { now: new Date() });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof UpstreamError) {
        throw new UnavailableError(`${product.title} is unavailable: ${err.provider} failed (${err.kind}).`, { sources: [err.provider], cause: err });
      }
      throw err;
    }
    const checked = product.output.safeParse(out);
    if (!checked.success) {
      log.error("product.output_invalid", { product: product.id, issues: checked.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`) });
      throw new UnavailableError(`${product.title} could not be computed from the current upstream data.`);
    }
    return checked.data;
  });
}
