/**
 * The free XLM sentiment snapshot, computed once per TTL for everyone who shows it: the
 * free MCP tool get_xlm_sentiment, /v1/sample (reduced) and the home page read the very
 * cache entry that GET /v1/sentiment is served from (its catalog entry sets the one TTL,
 * `cacheTtlSeconds`), so the free surfaces never multiply upstream calls and never show a
 * different "now" than the paid one. Failures arrive as ApiErrors (503 with the failing
 * source named), like every product's.
 */
import { productById } from "@/lib/catalog/lookup";
import { runProduct } from "@/lib/catalog/run";
import type { XlmSnapshot } from "@/lib/market/xlm/snapshot";

/** The current composite snapshot (spec 2.1), shared with GET /v1/sentiment. */
export function freeSnapshot(): Promise<XlmSnapshot> {
  return runProduct(productById("sentiment"), {}) as Promise<XlmSnapshot>;
}
