import { describe, expect, it } from "vitest";
import {
  bollinger,
  bollingerPositions,
  buyAndHold,
  cutlerRsi,
  InsufficientHistoryError,
  momentumPct,
  rankAssets,
  rsiPositions,
  runBacktest,
  screenStrategies,
  sma,
  smaCrossPositions,
  trailingReturnPct,
  wilderRsi,
} from "@/lib/market/signals/backtest";

describe("sma", () => {
  it.each([
    [[1, 2, 3, 4, 5], 3, [null, null, 2, 3, 4]],
    [[1, 2, 3], 1, [1, 2, 3]],
    [[1, 2], 3, [null, null]],
    [[], 3, []],
  ])("sma(%j, %d)", (xs, n, out) => {
    expect(sma(xs, n)).toEqual(out);
  });
  it.each([0, -1, 1.5])("rejects window %d", (n) => {
    expect(() => sma([1, 2, 3], n)).toThrow(RangeError);
  });
});

describe("wilderRsi (prototype error 1: Cutler's RSI)", () => {
  // closes 10, 11, 10, 12, 13, 12 → changes +1, -1, +2, +1, -1
  // gains 1,0,2,1,0   losses 0,1,0,0,1   (period 3)
  const closes = [10, 11, 10, 12, 13, 12];

  it("seeds with the plain mean then smooths (prev*(n-1) + x)/n", () => {
    const r = wilderRsi(closes, 3);
    expect(r.slice(0, 3)).toEqual([null, null, null]);
    // i=3: avgG = 3/3 = 1, avgL = 1/3 → RS 3 → 100 - 100/4 = 75
    expect(r[3]).toBeCloseTo(75, 10);
    // i=4: avgG = (1*2 + 1)/3 = 1, avgL = (1/3*2 + 0)/3 = 2/9 → RS 4.5 → 100 - 100/5.5 = 81.8182
    expect(r[4]).toBeCloseTo(81.8181818182, 8);
    // i=5: avgG = (1*2 + 0)/3 = 2/3, avgL = (2/9*2 + 1)/3 = 13/27 → RS 18/13 → 100 - 1300/31 = 58.0645
    expect(r[5]).toBeCloseTo(58.0645161290, 8);
  });

  it("gives different numbers from Cutler's RSI on the same series", () => {
    const c = cutlerRsi(closes, 3);
    // Cutler: i=4 window gains (0,2,1) mean 1, losses (1,0,0) mean 1/3 → 75; i=5 gains (2,1,0), losses (0,0,1) → 75
    expect(c[3]).toBeCloseTo(75, 10); // identical at the seed
    expect(c[4]).toBeCloseTo(75, 10);
    expect(c[5]).toBeCloseTo(75, 10);
    const w = wilderRsi(closes, 3);
    expect(Math.abs((w[4] as number) - (c[4] as number))).toBeGreaterThan(6);
    expect(Math.abs((w[5] as number) - (c[5] as number))).toBeGreaterThan(16);
  });

  it.each([
    ["only gains → 100", [1, 2, 3, 4, 5], 100],
    ["only losses → 0", [5, 4, 3, 2, 1], 0],
    // upstreams.md §13: "RSI is 100 when avgL = 0" — a flat window has avgL = 0 too.
    ["flat → 100", [3, 3, 3, 3, 3], 100],
  ])("%s", (_n, xs, v) => {
    expect(wilderRsi(xs, 3)[4]).toBeCloseTo(v, 10);
  });

  it("is all null when there are not more than n closes", () => {
    expect(wilderRsi([1, 2, 3], 3)).toEqual([null, null, null]);
    expect(wilderRsi([], 14)).toEqual([]);
  });

  it("defaults to period 14", () => {
    const xs = Array.from({ length: 16 }, (_, i) => 100 + (i % 2 === 0 ? i : -i));
    const r = wilderRsi(xs);
    expect(r[13]).toBeNull();
    expect(r[14]).not.toBeNull();
  });
});

describe("bollinger (prototype error 5: sample σ)", () => {
  it("uses the population σ: [1,2,3,4] → σ = √1.25 = 1.1180", () => {
    const b = bollinger([1, 2, 3, 4], 4, 2);
    expect(b.slice(0, 3)).toEqual([null, null, null]);
    expect(b[3]?.mid).toBeCloseTo(2.5, 12);
    expect(b[3]?.upper).toBeCloseTo(4.7360679775, 9); // 2.5 + 2*1.1180
    expect(b[3]?.lower).toBeCloseTo(0.2639320225, 9);
    // the sample σ (√(5/3) = 1.2910) would give 5.0820
    expect(Math.abs((b[3]?.upper as number) - 5.0819888975)).toBeGreaterThan(0.3);
  });

  it("zero width on a flat window", () => {
    expect(bollinger([5, 5, 5], 3, 2)[2]).toEqual({ mid: 5, upper: 5, lower: 5 });
  });
});

describe("smaCrossPositions", () => {
  it("long only while SMA(fast) > SMA(slow)", () => {
    // fast 2 / slow 3: closes 1,2,3,2,1
    // sma2: -,1.5,2.5,2.5,1.5   sma3: -,-,2,2.3333,2 → long at i=2 (2.5>2), i=3 (2.5>2.33), flat at i=4
    expect(smaCrossPositions([1, 2, 3, 2, 1], 2, 3)).toEqual([0, 0, 1, 1, 0]);
  });
  it("flat while the slow SMA is undefined (defaults 10/30)", () => {
    const xs = Array.from({ length: 30 }, (_, i) => 100 + i);
    const p = smaCrossPositions(xs);
    expect(p.slice(0, 29).every((x) => x === 0)).toBe(true);
    expect(p[29]).toBe(1);
  });
});

describe("rsiPositions (prototype error 2: not stateful)", () => {
  // period 2, closes 10, 9, 8, 8.5, 9, 10.5 → changes -1, -1, +0.5, +0.5, +1.5
  // i=2: avgG 0, avgL 1 → RSI 0 → enter
  // i=3: avgG (0+0.5)/2 = 0.25, avgL (1+0)/2 = 0.5 → RSI 33.33 → HOLD (the prototype went flat)
  // i=4: avgG (0.25+0.5)/2 = 0.375, avgL 0.25 → RSI 60 → HOLD
  // i=5: avgG (0.375+1.5)/2 = 0.9375, avgL 0.125 → RSI 88.24 → exit
  const closes = [10, 9, 8, 8.5, 9, 10.5];

  it("checks the RSI values used below", () => {
    const r = wilderRsi(closes, 2);
    expect(r[2]).toBeCloseTo(0, 10);
    expect(r[3]).toBeCloseTo(33.3333333333, 8);
    expect(r[4]).toBeCloseTo(60, 10);
    expect(r[5]).toBeCloseTo(88.2352941176, 8);
  });

  it("enters below 30, holds between 30 and 70, exits above 70", () => {
    expect(rsiPositions(closes, { period: 2 })).toEqual([0, 0, 1, 1, 1, 0]);
    // the prototype's stateless rule (long only while RSI < 30) would give:
    const stateless = wilderRsi(closes, 2).map((r) => (r !== null && r < 30 ? 1 : 0));
    expect(stateless).toEqual([0, 0, 1, 0, 0, 0]);
  });

  it("custom thresholds: exit above 50 leaves at i=4", () => {
    expect(rsiPositions(closes, { period: 2, exit: 50 })).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it("stays flat without a signal", () => {
    expect(rsiPositions([1, 2, 3, 4, 5], { period: 2 })).toEqual([0, 0, 0, 0, 0]);
    expect(rsiPositions([])).toEqual([]);
  });
});

describe("bollingerPositions (prototype error 2: not stateful)", () => {
  // period 3, k 1; closes 10, 10, 10, 7, 8, 9, 11, 10
  // i=3 window 10,10,7: mid 9, σ √2 = 1.4142, lower 7.5858 → 7 < lower → enter
  // i=4 window 10,7,8: mid 8.3333, σ 1.2472 → close 8 is neither < lower (7.0861) nor > mid → HOLD
  // i=5 window 7,8,9: mid 8 → close 9 > mid → exit
  it("enters below the lower band, holds, exits above the middle band", () => {
    expect(bollingerPositions([10, 10, 10, 7, 8, 9, 11, 10], { period: 3, k: 1 })).toEqual([0, 0, 0, 1, 1, 0, 0, 0]);
  });
  it("stays flat on a rising series with defaults", () => {
    const xs = Array.from({ length: 40 }, (_, i) => 100 + i);
    expect(bollingerPositions(xs).every((p) => p === 0)).toBe(true);
  });
});

describe("runBacktest", () => {
  // closes 100, 110, 99, 108.9 → r = +0.10, -0.10, +0.10; positions 1, 1, 0, 0; cost 10 bp
  // s1 = 1*0.10 - 0.001*|1-0| = 0.099
  // s2 = 1*(-0.10) - 0.001*|1-1| = -0.100
  // s3 = 0*0.10 - 0.001*|0-1| = -0.001
  // equity 1.099 → 0.9891 → 0.9881109
  const m = runBacktest([100, 110, 99, 108.9], [1, 1, 0, 0]);

  it("applies positions on the next bar and charges switching costs", () => {
    expect(m.totalReturnPct).toBeCloseTo(-1.18891, 8);
    expect(m.finalEquity).toBeCloseTo(0.9881109, 10);
    expect(m.bars).toBe(3);
  });
  it("max drawdown = 0.9881109 / 1.099 - 1 = -10.09 %", () => {
    expect(m.maxDrawdownPct).toBeCloseTo(-10.09, 8);
  });
  it("annualises over 365 periods: 0.9881109^(365/3) - 1 = -76.664 %", () => {
    expect(m.annualizedReturnPct).toBeCloseTo(-76.66404238, 5);
  });
  it("Sharpe = mean/sample-std · √365 = -0.000667 / 0.099500 · 19.105 = -0.1280", () => {
    expect(m.sharpe).toBeCloseTo(-0.12800598, 6);
  });
  it("win rate over in-market bars: 1 win (s1) of 2 in-market bars = 50 %", () => {
    expect(m.winRatePct).toBeCloseTo(50, 10);
    expect(m.exposurePct).toBeCloseTo(66.6666667, 6);
  });
  it("counts entries only (prototype error 4)", () => {
    expect(m.trades).toBe(1);
    // 1,0,1,0,1,1: entries at t=0,2,4 → 3 (the prototype counted 5 position changes)
    expect(runBacktest([1, 2, 3, 4, 5, 6], [1, 0, 1, 0, 1, 1]).trades).toBe(3);
    // a position decided at the last close never takes effect
    expect(runBacktest([1, 2, 3], [0, 0, 1]).trades).toBe(0);
  });

  it("annualises with 365, not 252 (prototype error 3)", () => {
    const bh = runBacktest([100, 101], [1, 1], { costBps: 0 });
    expect(bh.totalReturnPct).toBeCloseTo(1, 10);
    expect(bh.annualizedReturnPct).toBeCloseTo(3678.343433, 4); // (1.01^365 - 1) * 100
    expect(runBacktest([100, 101], [1, 1], { costBps: 0, periodsPerYear: 252 }).annualizedReturnPct).toBeCloseTo(1127.40021, 4);
  });

  it("Sharpe is 0 when returns have no variance", () => {
    const flat = runBacktest([100, 100, 100], [0, 0, 0]);
    expect(flat.sharpe).toBe(0);
    expect(flat.totalReturnPct).toBe(0);
    expect(flat.winRatePct).toBe(0);
    expect(flat.exposurePct).toBe(0);
    expect(flat.maxDrawdownPct).toBe(0);
  });

  it("costBps is configurable (0 → pure price return)", () => {
    expect(runBacktest([100, 110, 99, 108.9], [1, 1, 0, 0], { costBps: 0 }).totalReturnPct).toBeCloseTo(-1, 10); // 1.1*0.9 - 1
  });

  it("single bar of history (two closes) works", () => {
    const r = runBacktest([100, 90], [1, 1], { costBps: 0 });
    expect(r.totalReturnPct).toBeCloseTo(-10, 10);
    expect(r.sharpe).toBe(0); // one return → no sample σ
    expect(r.maxDrawdownPct).toBeCloseTo(-10, 10);
  });

  it("throws InsufficientHistoryError for fewer than 2 closes", () => {
    expect(() => runBacktest([100], [1])).toThrow(InsufficientHistoryError);
    try {
      runBacktest([], []);
    } catch (e) {
      expect(e).toBeInstanceOf(InsufficientHistoryError);
      expect((e as InsufficientHistoryError).code).toBe("insufficient_history");
      expect((e as InsufficientHistoryError).needed).toBe(2);
      expect((e as InsufficientHistoryError).got).toBe(0);
    }
  });

  it("rejects mismatched lengths and bad closes", () => {
    expect(() => runBacktest([1, 2, 3], [1, 1])).toThrow(RangeError);
    expect(() => runBacktest([1, 0, 3], [1, 1, 1])).toThrow(RangeError);
    expect(() => runBacktest([1, Number.NaN], [1, 1])).toThrow(RangeError);
  });
});

describe("buyAndHold", () => {
  it("position 1 throughout, one entry, entry cost charged: 1.099 * 0.9 - 1 = -1.09 %", () => {
    const r = buyAndHold([100, 110, 99]);
    expect(r.totalReturnPct).toBeCloseTo(-1.09, 8);
    expect(r.trades).toBe(1);
    expect(r.exposurePct).toBe(100);
    expect(r.winRatePct).toBe(50);
  });
  it("throws for a single close", () => {
    expect(() => buyAndHold([1])).toThrow(InsufficientHistoryError);
  });
});

describe("screenStrategies", () => {
  // 40 closes rising 1 % a day. RSI never < 30 and the close never < lower band → both flat.
  // SMA(10) > SMA(30) from i = 29 → long from bar 30: 1.009 * 1.01^9 - 1 = 10.3528 %
  // buy and hold: 1.009 * 1.01^38 - 1 = 47.2663 %
  const closes = Array.from({ length: 40 }, (_, i) => 100 * 1.01 ** i);
  const s = screenStrategies(closes);

  it("computes every strategy", () => {
    expect(s.buy_and_hold.totalReturnPct).toBeCloseTo(47.26629813, 6);
    expect(s.sma_cross.totalReturnPct).toBeCloseTo(10.35284401, 6);
    expect(s.sma_cross.trades).toBe(1);
    expect(s.rsi.totalReturnPct).toBe(0);
    expect(s.rsi.trades).toBe(0);
    expect(s.bollinger.totalReturnPct).toBe(0);
  });
  it("picks the best and reports the edge vs buy-and-hold in pp", () => {
    expect(s.best).toBe("buy_and_hold");
    expect(s.vsBuyAndHoldPp.buy_and_hold).toBe(0);
    expect(s.vsBuyAndHoldPp.sma_cross).toBeCloseTo(10.35284401 - 47.26629813, 6);
    expect(s.vsBuyAndHoldPp.rsi).toBeCloseTo(-47.26629813, 6);
  });
  it("a falling series makes a flat strategy the best (ties go to the first name)", () => {
    const down = Array.from({ length: 40 }, (_, i) => 100 * 0.99 ** i);
    const r = screenStrategies(down);
    // SMA cross never long, RSI(14) enters once RSI < 30 (it is 0 on a steady decline), B&H loses
    expect(r.sma_cross.totalReturnPct).toBe(0);
    expect(r.rsi.trades).toBe(1);
    expect(r.rsi.totalReturnPct).toBeLessThan(0); // catching a falling knife
    expect(r.bollinger.totalReturnPct).toBe(0); // a steady decline stays inside the 2σ band
    expect(r.best).toBe("sma_cross");
    expect(r.vsBuyAndHoldPp.sma_cross).toBeGreaterThan(0);
  });
});

describe("trailingReturnPct / momentumPct", () => {
  it.each([
    [[100, 120, 90], -10],
    [[50, 75], 50],
  ])("trailing %j → %d %%", (xs, v) => {
    expect(trailingReturnPct(xs)).toBeCloseTo(v, 10);
  });
  it("trailing needs 2 closes", () => {
    expect(() => trailingReturnPct([1])).toThrow(InsufficientHistoryError);
  });
  it.each([
    [2, 21], // 133.1 / 110 - 1
    [3, 33.1], // 133.1 / 100 - 1
    [1, 10], // 133.1 / 121 - 1
  ])("momentum lookback %d → %d %%", (lb, v) => {
    expect(momentumPct([100, 110, 121, 133.1], lb)).toBeCloseTo(v, 8);
  });
  it("momentum needs lookback + 1 closes", () => {
    expect(() => momentumPct([100, 110, 121, 133.1], 4)).toThrow(InsufficientHistoryError);
    expect(() => momentumPct([100, 110], 0)).toThrow(RangeError);
  });
});

describe("rankAssets", () => {
  it("scores 0.4·tanh(tr/20) + 0.4·tanh(mom/10) + 0.2·tanh(edge/10) and ranks", () => {
    const ranked = rankAssets([
      { ticker: "BBB", trailingReturnPct: -20, momentumPct: -10, strategyEdgePp: 0 }, // -0.6093
      { ticker: "DDD", trailingReturnPct: 0, momentumPct: 0, strategyEdgePp: 0 }, // 0
      { ticker: "AAA", trailingReturnPct: 20, momentumPct: 10, strategyEdgePp: 0 }, // 0.8*tanh(1) = 0.6093
      { ticker: "CCC", trailingReturnPct: 5, momentumPct: 0, strategyEdgePp: 10 }, // 0.4*tanh(.25) + 0.2*tanh(1) = 0.2503
    ]);
    expect(ranked.map((r) => [r.ticker, r.rank, r.verdict])).toEqual([
      ["AAA", 1, "overweight"],
      ["CCC", 2, "overweight"],
      ["DDD", 3, "neutral"],
      ["BBB", 4, "underweight"],
    ]);
    expect(ranked[0]?.score).toBeCloseTo(0.6093, 4);
    expect(ranked[1]?.score).toBeCloseTo(0.2503, 4);
    expect(ranked[3]?.score).toBeCloseTo(-0.6093, 4);
  });
  it("keeps extra fields, breaks ties by ticker, tolerates NaN and empty input", () => {
    const r = rankAssets([
      { ticker: "Y", trailingReturnPct: 1, momentumPct: 1, strategyEdgePp: 1, extra: "y" },
      { ticker: "X", trailingReturnPct: 1, momentumPct: 1, strategyEdgePp: 1, extra: "x" },
      { ticker: "Z", trailingReturnPct: Number.NaN, momentumPct: 0, strategyEdgePp: 0, extra: "z" },
    ]);
    expect(r.map((x) => x.ticker)).toEqual(["X", "Y", "Z"]);
    expect(r[0]?.extra).toBe("x");
    expect(r[2]?.score).toBe(0);
    expect(rankAssets([])).toEqual([]);
  });
  it("verdict boundaries at ±0.2", () => {
    // tanh(x) = 0.5 → x = atanh(0.5) = 0.549306; 0.4·0.5 = 0.2 exactly from momentum alone
    const mom = 10 * Math.atanh(0.5);
    expect(rankAssets([{ ticker: "A", trailingReturnPct: 0, momentumPct: mom, strategyEdgePp: 0 }])[0]?.verdict).toBe("overweight");
    expect(rankAssets([{ ticker: "A", trailingReturnPct: 0, momentumPct: -mom, strategyEdgePp: 0 }])[0]?.verdict).toBe("underweight");
    expect(rankAssets([{ ticker: "A", trailingReturnPct: 0, momentumPct: mom * 0.9, strategyEdgePp: 0 }])[0]?.verdict).toBe("neutral");
  });
});
