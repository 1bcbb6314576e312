import { describe, expect, it } from "vitest";
import { InsufficientHistoryError, screenStrategies } from "@/lib/market/signals/backtest";
import { screenWindow } from "@/lib/market/signals/markets-window";

const ramp = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

describe("screenWindow", () => {
  it("equals screenStrategies when there is no warm-up", () => {
    const closes = ramp(80).map((x, i) => x + 8 * Math.sin(i / 3));
    const w = screenWindow(closes, 80);
    const s = screenStrategies(closes);
    expect(w.warmupBars).toBe(0);
    for (const n of ["sma_cross", "rsi", "bollinger"] as const) {
      expect(w.strategies[n].totalReturnPct).toBeCloseTo(s[n].totalReturnPct, 10);
      expect(w.strategies[n].edgePp).toBeCloseTo(s.vsBuyAndHoldPp[n], 10);
    }
    expect(w.buyAndHold.totalReturnPct).toBeCloseTo(s.buy_and_hold.totalReturnPct, 10);
  });

  it("uses warm-up closes so SMA(10/30) is already long at a rising window's start", () => {
    // 60 rising closes, window = last 20 (41..60): SMA10 > SMA30 from index 29 on.
    const w = screenWindow(ramp(60), 20);
    expect(w.warmupBars).toBe(40);
    const bh = ((42 / 41 - 0.001) * (60 / 42) - 1) * 100;
    expect(w.buyAndHold.totalReturnPct).toBeCloseTo(bh, 10);
    expect(w.strategies.sma_cross.totalReturnPct).toBeCloseTo(bh, 10); // invested from the first bar
    expect(w.strategies.sma_cross.trades).toBe(1);
    expect(w.strategies.sma_cross.edgePp).toBeCloseTo(0, 10);
    // Without warm-up the same 20 closes never see SMA(30): flat, 0 %.
    expect(screenStrategies(ramp(20, 41)).sma_cross.totalReturnPct).toBe(0);
  });

  it("picks the best active strategy (never buy-and-hold) and reports its edge", () => {
    const w = screenWindow(ramp(60), 20);
    // sma_cross ties buy-and-hold; rsi/bollinger stay flat in a steady rise.
    expect(w.best).toBe("sma_cross");
    expect(w.bestEdgePp).toBeCloseTo(0, 10);
    const falling = ramp(60).reverse();
    const f = screenWindow(falling, 20);
    expect(f.buyAndHold.totalReturnPct).toBeLessThan(0);
    expect(f.strategies.sma_cross.totalReturnPct).toBe(0); // never long in a steady fall
    expect(f.bestEdgePp).toBeGreaterThan(0);
  });

  it("caps the window at the series length and needs two closes", () => {
    expect(screenWindow(ramp(10), 50).warmupBars).toBe(0);
    expect(() => screenWindow([1], 5)).toThrow(InsufficientHistoryError);
  });
});
