import { describe, expect, it } from "vitest";
import { MARKET_PRODUCTS } from "@/lib/catalog/products/markets";
import { toolTitle } from "@/lib/catalog/types";

describe("markets family catalog facts", () => {
  it("lists the six products in order with the spec's prices, tools and credits", () => {
    expect(
      MARKET_PRODUCTS.map((p) => ({ id: p.id, path: p.path, http: p.httpPrice, tool: p.tool && { name: p.tool.name, price: p.tool.price, title: toolTitle(p.tool) }, credits: p.credits, free: p.freeTier, kind: p.kind })),
    ).toEqual([
      { id: "multi-asset", path: "/v1/multi-asset", http: "0.005", tool: { name: "screen_multi_asset_strategy", price: "0.10", title: "Multi-asset strategy screen ($0.10)" }, credits: 1, free: true, kind: "data" },
      { id: "screen", path: "/v1/screen", http: "0.01", tool: null, credits: 1, free: true, kind: "data" },
      { id: "breadth", path: "/v1/breadth", http: "0.01", tool: { name: "get_market_breadth", price: "0.10", title: "Market breadth ($0.10)" }, credits: 1, free: true, kind: "data" },
      { id: "top-movers", path: "/v1/top-movers", http: "0.005", tool: null, credits: 1, free: true, kind: "data" },
      { id: "btc-quote", path: "/v1/btc-quote", http: "0.005", tool: null, credits: 1, free: true, kind: "data" },
      { id: "global-market", path: "/v1/global-market", http: "0.01", tool: null, credits: 1, free: true, kind: "data" },
    ]);
  });

  it("declares the tickers/period defaults of spec 4.1 and the cache TTLs", () => {
    const [multi, screen] = MARKET_PRODUCTS;
    expect(multi!.params.tickers.doc.default).toBe("XLM-USD,BTC-USD,ETH-USD,SOL-USD,ADA-USD,LINK-USD,AVAX-USD,DOGE-USD");
    expect(multi!.params.period.doc).toMatchObject({ default: "3mo", enum: ["1mo", "3mo", "6mo", "1y"] });
    expect(screen!.params.tickers.doc.default).toBe("XLM-USD,BTC-USD,ETH-USD,SOL-USD,ADA-USD");
    expect(screen!.params.tickers.doc.description).toContain("at most 10");
    expect(screen!.params.period.doc.default).toBe("3mo");
    expect(Object.fromEntries(MARKET_PRODUCTS.map((p) => [p.id, p.cacheTtlSeconds]))).toEqual({
      "multi-asset": 300,
      screen: 300,
      breadth: 60,
      "top-movers": 60,
      "btc-quote": 60,
      "global-market": 60,
    });
  });

  it("describes every output field (OpenAPI / MCP outputSchema)", () => {
    for (const p of MARKET_PRODUCTS) {
      const shape = (p.output as { shape: Record<string, { description?: string }> }).shape;
      for (const [k, v] of Object.entries(shape)) expect(v.description, `${p.id}.${k}`).toBeTruthy();
    }
  });
});
