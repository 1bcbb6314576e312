import { describe, expect, it } from "vitest";
import { PERIODS, SUPPORTED_TICKERS, TICKERS, coingeckoId, isTicker, normalizeTicker, periodDays } from "@/lib/market/tickers";
import { ASSETS } from "@/lib/upstream-sim/world";

describe("ticker map", () => {
  it("maps the documented default tickers to their CoinGecko ids", () => {
    expect(coingeckoId("XLM-USD")).toBe("stellar");
    expect(coingeckoId("BTC-USD")).toBe("bitcoin");
    expect(coingeckoId("ETH-USD")).toBe("ethereum");
    expect(coingeckoId("SOL-USD")).toBe("solana");
    expect(coingeckoId("ADA-USD")).toBe("cardano");
    expect(coingeckoId("LINK-USD")).toBe("chainlink");
    expect(coingeckoId("AVAX-USD")).toBe("avalanche-2");
    expect(coingeckoId("DOGE-USD")).toBe("dogecoin");
  });

  it("only lists ids the simulator knows, none of them stablecoins, symbol matching the ticker", () => {
    const byId = new Map(ASSETS.map((a) => [a.id, a]));
    for (const [ticker, id] of Object.entries(TICKERS)) {
      const asset = byId.get(id);
      expect(asset, `${ticker} -> ${id}`).toBeDefined();
      expect(asset!.stable ?? false).toBe(false);
      expect(`${asset!.symbol.toUpperCase()}-USD`).toBe(ticker);
    }
    expect(new Set(Object.values(TICKERS)).size).toBe(SUPPORTED_TICKERS.length);
    expect(SUPPORTED_TICKERS.length).toBeGreaterThanOrEqual(20);
  });

  it("normalises case and bare symbols, and recognises only supported tickers", () => {
    expect(normalizeTicker(" xlm-usd ")).toBe("XLM-USD");
    expect(normalizeTicker("btc")).toBe("BTC-USD");
    expect(normalizeTicker("BTC-EUR")).toBe("BTC-EUR");
    expect(isTicker("XLM-USD")).toBe(true);
    expect(isTicker("BTC-EUR")).toBe(false);
    expect(isTicker("toString")).toBe(false);
  });

  it("maps periods to days", () => {
    expect(PERIODS).toEqual({ "1mo": 30, "3mo": 90, "6mo": 180, "1y": 365 });
    expect(periodDays("1y")).toBe(365);
  });
});
