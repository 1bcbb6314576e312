import { describe, expect, it } from "vitest";
import {
  bookSnapshot,
  depthUsd,
  depthXlm,
  normalizeHorizonBook,
  orderFlowImbalance,
  walkBook,
  type Book,
  type RawLevel,
} from "@/lib/market/signals/orderbook";

// Horizon-shaped levels: a BID amount is USDC, an ASK amount is XLM.
const rawBids: RawLevel[] = [
  { price: 0.09, amount: 18 }, // 18 USDC / 0.09 = 200 XLM (deliberately out of order)
  { price: 0.1, amount: 50 }, //  50 USDC / 0.10 = 500 XLM
];
const rawAsks: RawLevel[] = [
  { price: 0.12, amount: 200 }, // 200 XLM
  { price: 0.11, amount: 300 }, // 300 XLM
];
const book = normalizeHorizonBook(rawBids, rawAsks);

describe("normalizeHorizonBook", () => {
  it("converts bid amounts from USDC to XLM (prototype unit error fixed) and sorts best-first", () => {
    expect(book.bids.map((l) => l.price)).toEqual([0.1, 0.09]);
    expect(book.bids[0]?.xlm).toBeCloseTo(500, 9); // 50 / 0.10
    expect(book.bids[1]?.xlm).toBeCloseTo(200, 9); // 18 / 0.09
    expect(book.asks).toEqual([
      { price: 0.11, xlm: 300 },
      { price: 0.12, xlm: 200 },
    ]);
  });

  it.each([
    ["zero price", { price: 0, amount: 10 }],
    ["negative amount", { price: 0.1, amount: -1 }],
    ["zero amount", { price: 0.1, amount: 0 }],
    ["NaN price", { price: Number.NaN, amount: 10 }],
    ["infinite amount", { price: 0.1, amount: Number.POSITIVE_INFINITY }],
  ])("drops a level with %s", (_name, bad) => {
    const b = normalizeHorizonBook([bad, { price: 0.1, amount: 1 }], [bad, { price: 0.2, amount: 1 }]);
    expect(b.bids).toHaveLength(1);
    expect(b.asks).toHaveLength(1);
  });

  it("handles empty input", () => {
    expect(normalizeHorizonBook([], [])).toEqual({ bids: [], asks: [] });
  });
});

describe("depth helpers", () => {
  it("sums XLM and USD notional", () => {
    expect(depthXlm(book.bids)).toBeCloseTo(700, 9); // 500 + 200
    expect(depthUsd(book.asks)).toBeCloseTo(57, 9); // 0.11*300 + 0.12*200 = 33 + 24
    expect(depthXlm([])).toBe(0);
  });
});

describe("bookSnapshot", () => {
  it("computes mid, spread and depth", () => {
    const s = bookSnapshot(book);
    expect(s).not.toBeNull();
    expect(s?.bestBid).toBe(0.1);
    expect(s?.bestAsk).toBe(0.11);
    expect(s?.mid).toBeCloseTo(0.105, 12); // (0.10 + 0.11) / 2
    expect(s?.spreadPct).toBeCloseTo(9.5238095238, 8); // 0.01 / 0.105 * 100
    expect(s?.bidDepthXlm).toBeCloseTo(700, 9);
    expect(s?.askDepthXlm).toBeCloseTo(500, 9);
    expect(s?.bidDepthUsd).toBeCloseTo(68, 9); // 50 + 18 USDC, the raw bid amounts
    expect(s?.askDepthUsd).toBeCloseTo(57, 9);
    expect(s?.levels).toBe(4);
    expect(s?.crossed).toBe(false);
  });

  it("returns null when either side is empty", () => {
    expect(bookSnapshot({ bids: book.bids, asks: [] })).toBeNull();
    expect(bookSnapshot({ bids: [], asks: book.asks })).toBeNull();
    expect(bookSnapshot({ bids: [], asks: [] })).toBeNull();
  });

  it("flags a crossed book", () => {
    expect(bookSnapshot({ bids: [{ price: 0.12, xlm: 1 }], asks: [{ price: 0.11, xlm: 1 }] })?.crossed).toBe(true);
  });
});

describe("orderFlowImbalance", () => {
  it("uses XLM on both sides: (700 - 500) / 1200 = 0.1667", () => {
    expect(orderFlowImbalance(book)).toBeCloseTo(1 / 6, 9);
  });

  it("differs from the prototype's raw-amount imbalance, which was biased negative", () => {
    // Prototype: bids 50 + 18 = 68 (USDC) vs asks 300 + 200 = 500 (XLM) → (68 - 500) / 568 = -0.7606
    const prototype = (68 - 500) / (68 + 500);
    expect(prototype).toBeCloseTo(-0.7606, 4);
    expect(orderFlowImbalance(book)).toBeGreaterThan(0);
  });

  it.each<[string, Book, number | null]>([
    ["both empty", { bids: [], asks: [] }, null],
    ["only bids", { bids: [{ price: 1, xlm: 5 }], asks: [] }, 1],
    ["only asks", { bids: [], asks: [{ price: 1, xlm: 5 }] }, -1],
    ["balanced", { bids: [{ price: 1, xlm: 5 }], asks: [{ price: 1.1, xlm: 5 }] }, 0],
  ])("%s", (_n, b, expected) => {
    const v = orderFlowImbalance(b);
    if (expected === null) expect(v).toBeNull();
    else expect(v).toBeCloseTo(expected, 12);
  });

  it("can be limited to the top N levels: (500 - 300) / 800 = 0.25", () => {
    expect(orderFlowImbalance(book, { levels: 1 })).toBeCloseTo(0.25, 12);
  });
});

describe("walkBook", () => {
  it("VWAP across two ask levels: 300@0.11 + 100@0.12 = 45 USD / 400 = 0.1125", () => {
    const w = walkBook(book.asks, 400);
    expect(w.vwap).toBeCloseTo(0.1125, 12);
    expect(w.filledXlm).toBeCloseTo(400, 9);
    expect(w.complete).toBe(true);
    expect(w.costUsd).toBeCloseTo(45, 9);
    expect(w.levelsUsed).toBe(2);
    expect(w.worstPrice).toBe(0.12);
    expect(w.slippagePct).toBeCloseTo(2.2727272727, 8); // (0.1125 / 0.11 - 1) * 100
  });

  it("exactly one level", () => {
    const w = walkBook(book.asks, 300);
    expect(w.vwap).toBeCloseTo(0.11, 12);
    expect(w.levelsUsed).toBe(1);
    expect(w.complete).toBe(true);
  });

  it("partial fill when the side is too thin: 57 USD / 500 XLM = 0.114", () => {
    const w = walkBook(book.asks, 600);
    expect(w.filledXlm).toBeCloseTo(500, 9);
    expect(w.vwap).toBeCloseTo(0.114, 12);
    expect(w.complete).toBe(false);
  });

  it("walks bids for a sell: 500@0.10 + 100@0.09 = 59 / 600", () => {
    expect(walkBook(book.bids, 600).vwap).toBeCloseTo(59 / 600, 12);
  });

  it("empty side → NaN vwap, nothing filled", () => {
    const w = walkBook([], 10);
    expect(Number.isNaN(w.vwap)).toBe(true);
    expect(w.filledXlm).toBe(0);
    expect(w.complete).toBe(false);
  });

  it("zero size → best price, complete", () => {
    const w = walkBook(book.asks, 0);
    expect(w.vwap).toBe(0.11);
    expect(w.filledXlm).toBe(0);
    expect(w.complete).toBe(true);
  });
});
