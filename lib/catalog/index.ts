/**
 * The catalog: every product the service sells, in the order surfaces list them.
 * Routes, MCP tools, discovery documents and pages are generated from this list.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { fng } from "@/lib/catalog/products/fng";
import { XLM_PRODUCTS } from "@/lib/catalog/products/xlm";
import { MARKET_PRODUCTS } from "@/lib/catalog/products/markets";
import { ONCHAIN_PRODUCTS } from "@/lib/catalog/products/onchain";
import { bundle, enterpriseBundle } from "@/lib/catalog/products/bundles";
import { attestedQuote } from "@/lib/catalog/products/attested-quote";
import { verdict } from "@/lib/catalog/products/verdict";

/** Listing order: spec 4.1's table, then the tool-only paths of spec 4.1. */
const ORDER = [
  "/v1/sentiment", "/v1/quote", "/v1/sentiment-report", "/v1/sentiment-history", "/v1/fng", "/v1/xlm-network",
  "/v1/arb-opportunities", "/v1/multi-asset", "/v1/screen", "/v1/breadth", "/v1/attested-quote", "/v1/verdict",
  "/v1/top-movers", "/v1/eth-gas", "/v1/btc-quote", "/v1/global-market", "/v1/bundle", "/v1/bundle/enterprise",
  "/v1/gas", "/v1/prediction", "/v1/wallet", "/v1/token-safety", "/v1/whale-flow",
];

const ALL: AnyProduct[] = [fng, attestedQuote, verdict, bundle, enterpriseBundle, ...XLM_PRODUCTS, ...MARKET_PRODUCTS, ...ONCHAIN_PRODUCTS];

export const PRODUCTS: readonly AnyProduct[] = [...ALL].sort((a, b) => rank(a.path) - rank(b.path));

function rank(path: string): number {
  const i = ORDER.indexOf(path);
  return i === -1 ? ORDER.length : i;
}

const byPath = new Map(PRODUCTS.map((p) => [p.path, p]));
const byTool = new Map(PRODUCTS.filter((p) => p.tool).map((p) => [p.tool!.name, p]));

export function productByPath(path: string): AnyProduct | undefined {
  return byPath.get(path);
}

export function productByTool(name: string): AnyProduct | undefined {
  return byTool.get(name);
}
