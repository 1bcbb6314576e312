import { describe, expect, it } from "vitest";
import { arbitrageScan, type CexQuote } from "@/lib/market/signals/arbitrage";
import type { Book } from "@/lib/market/signals/orderbook";

const book: Book = {
  asks: [
    { price: 0.1, xlm: 1000 },
    { price: 0.102, xlm: 1000 },
  ],
  bids: [
    { price: 0.098, xlm: 1000 },
    { price: 0.097, xlm: 1000 },
  ],
};
const kraken: CexQuote = { venue: "kraken", bid: 0.1015, ask: 0.102, takerFeePct: 0.26, quoteCurrency: "USD" };

describe("arbitrageScan", () => {
  it("buy SDEX / sell CEX: effSell = 0.1015*(1-0.0026) = 0.1012361; net = 1.2361%", () => {
    const r = arbitrageScan(book, [kraken], { sizeXlm: 1000 });
    const leg = r.legs.find((l) => l.direction === "buy_sdex_sell_cex");
    expect(leg?.effBuy).toBeCloseTo(0.1, 12); // fills exactly the first ask level
    expect(leg?.effSell).toBeCloseTo(0.1012361, 10);
    expect(leg?.grossPct).toBeCloseTo(1.5, 8); // 0.1015 / 0.1 - 1
    expect(leg?.netPct).toBeCloseTo(1.2361, 8);
    expect(leg?.complete).toBe(true);
    expect(leg?.go).toBe(true);
    expect(r.verdict).toBe("go");
    expect(r.best?.direction).toBe("buy_sdex_sell_cex");
  });

  it("reverse leg: effBuy = 0.102*1.0026 = 0.1022652; sell into bids at 0.098; net = -4.1707%", () => {
    const r = arbitrageScan(book, [kraken], { sizeXlm: 1000 });
    const leg = r.legs.find((l) => l.direction === "buy_cex_sell_sdex");
    expect(leg?.effBuy).toBeCloseTo(0.1022652, 10);
    expect(leg?.effSell).toBeCloseTo(0.098, 12);
    expect(leg?.grossPct).toBeCloseTo(-3.9215686, 6); // 0.098 / 0.102 - 1
    expect(leg?.netPct).toBeCloseTo(-4.1707247, 6);
    expect(leg?.go).toBe(false);
  });

  it("walks the book for the size: 1500 XLM → VWAP (100 + 51) / 1500 = 0.100667; net 0.5657%", () => {
    const r = arbitrageScan(book, [kraken], { sizeXlm: 1500 });
    const buy = r.legs.find((l) => l.direction === "buy_sdex_sell_cex");
    expect(buy?.effBuy).toBeCloseTo(0.1006666667, 9);
    expect(buy?.netPct).toBeCloseTo(0.5656623, 6);
    expect(buy?.grossPct).toBeCloseTo(0.8278146, 6);
    const sell = r.legs.find((l) => l.direction === "buy_cex_sell_sdex");
    expect(sell?.effSell).toBeCloseTo(0.0976666667, 9); // (98 + 48.5) / 1500
  });

  it("an incomplete SDEX fill is never go, even with a net spread above the threshold", () => {
    // asks hold 2000 XLM: VWAP (100 + 102) / 2000 = 0.101; effSell 0.103 * 0.994 = 0.102382
    // net = 0.102382 / 0.101 - 1 = 1.3683 % ≥ 0.5 %, but the 3000 XLM order cannot fill
    const rich: CexQuote = { venue: "rich", bid: 0.103, ask: 0.1035, takerFeePct: 0.6, quoteCurrency: "USD" };
    const r = arbitrageScan(book, [rich], { sizeXlm: 3000 });
    const buy = r.legs.find((l) => l.direction === "buy_sdex_sell_cex");
    expect(buy?.complete).toBe(false);
    expect(buy?.filledXlm).toBeCloseTo(2000, 9);
    expect(buy?.effBuy).toBeCloseTo(0.101, 12);
    expect(buy?.netPct).toBeCloseTo(1.3683168, 6);
    expect(buy?.go).toBe(false);
    expect(r.verdict).toBe("no_go");
    expect(r.notes.some((n) => /only 2000 XLM/.test(n))).toBe(true);
  });

  it("thresholdPct and sdexFeePct are applied: effBuy 0.1001, net = 1.13497%", () => {
    const r = arbitrageScan(book, [kraken], { sizeXlm: 1000, sdexFeePct: 0.1, thresholdPct: 2 });
    const buy = r.legs.find((l) => l.direction === "buy_sdex_sell_cex");
    expect(buy?.effBuy).toBeCloseTo(0.1001, 12);
    expect(buy?.netPct).toBeCloseTo(1.1349650, 6);
    expect(buy?.go).toBe(false); // below the 2 % threshold
    expect(r.verdict).toBe("no_go");
    expect(r.thresholdPct).toBe(2);
  });

  it("threshold boundary: net exactly at the threshold is go (≥)", () => {
    // bid chosen so that net = 0.5 %: effSell = 0.1005 → bid = 0.1005 / (1 - 0)
    const v: CexQuote = { venue: "x", bid: 0.1005, ask: 0.2, takerFeePct: 0, quoteCurrency: "USD" };
    const r = arbitrageScan(book, [v], { sizeXlm: 1000, thresholdPct: 0.4999999 });
    expect(r.legs[0]?.netPct).toBeCloseTo(0.5, 8);
    expect(r.legs[0]?.go).toBe(true);
  });

  it("notes the USD/USDT basis and ignored withdrawal fees", () => {
    const binance: CexQuote = { venue: "binance", bid: 0.099, ask: 0.0995, takerFeePct: 0.1, quoteCurrency: "USDT" };
    const r = arbitrageScan(book, [binance], { sizeXlm: 100 });
    expect(r.notes.join("\n")).toMatch(/basis/);
    expect(r.notes.join("\n")).toMatch(/[Ww]ithdrawal fees/);
    expect(r.notes.join("\n")).toMatch(/binance quotes in USDT/);
    expect(r.legs.every((l) => l.quoteCurrency === "USDT")).toBe(true);
  });

  it("picks the best leg across venues", () => {
    const coinbase: CexQuote = { venue: "coinbase", bid: 0.103, ask: 0.1035, takerFeePct: 0.6, quoteCurrency: "USD" };
    // coinbase: 0.103 * 0.994 = 0.102382 → 2.382 % > kraken 1.2361 %
    const r = arbitrageScan(book, [kraken, coinbase], { sizeXlm: 500 });
    expect(r.legs).toHaveLength(4);
    expect(r.best?.venue).toBe("coinbase");
    expect(r.best?.netPct).toBeCloseTo(2.382, 8);
  });

  it("skips invalid venues and empty book sides with notes", () => {
    const bad: CexQuote = { venue: "bad", bid: 0, ask: 0.1, takerFeePct: 0.1, quoteCurrency: "USD" };
    const r = arbitrageScan({ bids: [], asks: book.asks }, [bad, kraken], { sizeXlm: 10 });
    expect(r.legs.map((l) => `${l.venue}:${l.direction}`)).toEqual(["kraken:buy_sdex_sell_cex"]);
    expect(r.notes.some((n) => /bad: invalid/.test(n))).toBe(true);
    expect(r.notes.some((n) => /no bids/.test(n))).toBe(true);
  });

  it("no venues → no legs, no_go, best null", () => {
    const r = arbitrageScan(book, [], { sizeXlm: 10 });
    expect(r.legs).toEqual([]);
    expect(r.best).toBeNull();
    expect(r.verdict).toBe("no_go");
  });

  it("rejects a non-positive size", () => {
    expect(() => arbitrageScan(book, [kraken], { sizeXlm: 0 })).toThrow(RangeError);
  });
});
