/**
 * The catalog: every product the service sells, in the order surfaces list them
 * (spec 4.1's table, then the tool-only paths). Routes, MCP tools, discovery documents
 * and pages are generated from this list.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { fng } from "@/lib/catalog/products/fng";
import { attestedQuote } from "@/lib/catalog/products/attested-quote";
import { verdict } from "@/lib/catalog/products/verdict";
import { bundle, enterpriseBundle } from "@/lib/catalog/products/bundles";
import { sentiment } from "@/lib/catalog/products/xlm/sentiment";
import { quote } from "@/lib/catalog/products/xlm/quote";
import { sentimentReport } from "@/lib/catalog/products/xlm/sentiment-report";
import { sentimentHistory } from "@/lib/catalog/products/xlm/sentiment-history";
import { xlmNetwork } from "@/lib/catalog/products/xlm/xlm-network";
import { arbOpportunities } from "@/lib/catalog/products/xlm/arb-opportunities";
import { multiAsset } from "@/lib/catalog/products/markets/multi-asset";
import { screen } from "@/lib/catalog/products/markets/screen";
import { breadth } from "@/lib/catalog/products/markets/breadth";
import { topMoversProduct } from "@/lib/catalog/products/markets/top-movers";
import { btcQuote } from "@/lib/catalog/products/markets/btc-quote";
import { globalMarketProduct } from "@/lib/catalog/products/markets/global-market";
import { ethGas } from "@/lib/catalog/products/onchain/eth-gas";
import { baseGas } from "@/lib/catalog/products/onchain/gas";
import { prediction } from "@/lib/catalog/products/onchain/prediction";
import { wallet } from "@/lib/catalog/products/onchain/wallet";
import { tokenSafety } from "@/lib/catalog/products/onchain/token-safety";
import { whaleFlowProduct } from "@/lib/catalog/products/onchain/whale-flow";

export const PRODUCTS: readonly AnyProduct[] = [
  sentiment,
  quote,
  sentimentReport,
  sentimentHistory,
  fng,
  xlmNetwork,
  arbOpportunities,
  multiAsset,
  screen,
  breadth,
  attestedQuote,
  verdict,
  topMoversProduct,
  ethGas,
  btcQuote,
  globalMarketProduct,
  bundle,
  enterpriseBundle,
  baseGas,
  prediction,
  wallet,
  tokenSafety,
  whaleFlowProduct,
];

const byPath = new Map(PRODUCTS.map((p) => [p.path, p]));
const byTool = new Map(PRODUCTS.filter((p) => p.tool).map((p) => [p.tool!.name, p]));

export function productByPath(path: string): AnyProduct | undefined {
  return byPath.get(path);
}

export function productByTool(name: string): AnyProduct | undefined {
  return byTool.get(name);
}
