/**
 * The catalog against spec 4.1 and 4.5: every path with its HTTP price, tool name and
 * tool price, and query parameters; every family's products are listed exactly once.
 * The expected table below is transcribed from the spec (the test is the second copy
 * on purpose: it is what the catalog is checked against).
 */
import { describe, expect, it } from "vitest";
import { toolTitle } from "@/lib/catalog/types";
import { PRODUCTS } from "@/lib/catalog";
import { XLM_PRODUCTS } from "@/lib/catalog/products/xlm";
import { MARKET_PRODUCTS } from "@/lib/catalog/products/markets";
import { ONCHAIN_PRODUCTS } from "@/lib/catalog/products/onchain";
import type { ParamSet } from "@/lib/catalog/params";
import { usdToAtomic } from "@/lib/payments/price";

// path, HTTP price, tool name, tool price, query parameters
const SPEC: Array<[string, string, string | null, string | null, string[]]> = [
  ["/v1/sentiment", "0.005", null, null, []],
  ["/v1/quote", "0.005", "get_xlm_quote", "0.10", []],
  ["/v1/sentiment-report", "0.05", "get_xlm_sentiment_report", "0.25", []],
  ["/v1/sentiment-history", "0.10", "get_xlm_sentiment_history", "0.25", ["hours"]],
  ["/v1/fng", "0.01", "get_fear_greed_index", "0.01", []],
  ["/v1/xlm-network", "0.01", "get_xlm_network_pulse", "0.10", []],
  ["/v1/arb-opportunities", "0.005", "get_arbitrage_opportunities", "0.10", []],
  ["/v1/multi-asset", "0.005", "screen_multi_asset_strategy", "0.10", ["tickers", "period"]],
  ["/v1/screen", "0.01", null, null, ["tickers", "period"]],
  ["/v1/breadth", "0.01", "get_market_breadth", "0.10", []],
  ["/v1/attested-quote", "0.01", "get_attested_quote", "0.10", ["ticker"]],
  ["/v1/verdict", "0.005", null, null, []],
  ["/v1/top-movers", "0.005", null, null, []],
  ["/v1/eth-gas", "0.005", null, null, []],
  ["/v1/btc-quote", "0.005", null, null, []],
  ["/v1/global-market", "0.01", null, null, []],
  ["/v1/bundle", "0.05", "buy_call_credits_bundle", "1.00", []],
  ["/v1/bundle/enterprise", "25.00", "buy_enterprise_bundle", "25.00", []],
  ["/v1/gas", "0.02", "get_base_gas_oracle", "0.02", []],
  ["/v1/prediction", "0.02", "get_prediction_market_pulse", "0.02", ["limit"]],
  ["/v1/wallet", "0.02", "get_base_wallet_intel", "0.02", ["address"]],
  ["/v1/token-safety", "0.02", "check_token_safety", "0.02", ["chain", "address"]],
  ["/v1/whale-flow", "0.02", "get_whale_flow", "0.02", ["chain", "token"]],
];

describe("catalog vs spec 4.1 / 4.5", () => {
  it("lists exactly the spec's paths in the spec's order", () => {
    expect(PRODUCTS.map((p) => p.path)).toEqual(SPEC.map((s) => s[0]));
  });

  for (const [path, http, tool, toolPrice, params] of SPEC) {
    it(`${path}: HTTP ${http}, tool ${tool ?? "none"} ${toolPrice ?? ""}, params ${params.join(",") || "none"}`, () => {
      const p = PRODUCTS.find((x) => x.path === path)!;
      expect(usdToAtomic(p.httpPrice)).toBe(usdToAtomic(http));
      expect(p.tool?.name ?? null).toBe(tool);
      if (toolPrice) expect(usdToAtomic(p.tool!.price)).toBe(usdToAtomic(toolPrice));
      expect(Object.keys(p.params as ParamSet).sort()).toEqual([...params].sort());
      if (p.tool) expect(toolTitle(p.tool)).toBe(`${p.tool.label} ($${p.tool.price})`);
    });
  }

  it("has 16 paid tools (18 with the two free ones), unique names and paths", () => {
    const tools = PRODUCTS.filter((p) => p.tool).map((p) => p.tool!.name);
    expect(tools).toHaveLength(16);
    expect(new Set(tools).size).toBe(16);
    expect(new Set(PRODUCTS.map((p) => p.path)).size).toBe(PRODUCTS.length);
  });

  it("keeps the spec's defaults: hours 24 (1..168), 8 multi-asset tickers, 5 screen tickers, period 3mo, ticker xlm, chain base", () => {
    const get = (path: string) => PRODUCTS.find((x) => x.path === path)!.params as ParamSet;
    expect(get("/v1/sentiment-history").hours!.doc).toMatchObject({ default: 24, minimum: 1, maximum: 168 });
    expect(get("/v1/multi-asset").tickers!.doc.default).toBe("XLM-USD,BTC-USD,ETH-USD,SOL-USD,ADA-USD,LINK-USD,AVAX-USD,DOGE-USD");
    expect(get("/v1/screen").tickers!.doc.default).toBe("XLM-USD,BTC-USD,ETH-USD,SOL-USD,ADA-USD");
    expect(get("/v1/multi-asset").period!.doc.default).toBe("3mo");
    expect(get("/v1/attested-quote").ticker!.doc.default).toBe("xlm");
    expect(get("/v1/token-safety").chain!.doc.default).toBe("base");
    expect(get("/v1/whale-flow").chain!.doc.default).toBe("base");
  });

  it("charges 1 credit for standard calls and 2 for the premium reports; free keys cover standard calls only", () => {
    for (const p of PRODUCTS.filter((x) => x.kind === "data")) {
      const premium = p.path === "/v1/sentiment-report" || p.path === "/v1/sentiment-history";
      expect(p.credits, p.path).toBe(premium ? 2 : 1);
      expect(p.freeTier, p.path).toBe(!premium);
    }
  });

  it("lists every product of every family exactly once", () => {
    for (const p of [...XLM_PRODUCTS, ...MARKET_PRODUCTS, ...ONCHAIN_PRODUCTS]) expect(PRODUCTS.filter((x) => x === p)).toHaveLength(1);
  });

  it("caches /v1/xlm-network for 60 seconds", () => {
    expect(PRODUCTS.find((x) => x.path === "/v1/xlm-network")!.cacheTtlSeconds).toBe(60);
  });
});
