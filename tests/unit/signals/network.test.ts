import { describe, expect, it } from "vitest";
import { feeCongestion, ledgerHealth, tradeStats } from "@/lib/market/signals/network";

const T0 = new Date("2024-01-01T00:00:00Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const ledger = (ageS: number) => ({
  closedAt: T0,
  now: at(ageS),
  successfulTx: 90,
  failedTx: 10,
  operationCount: 400,
  baseFeeStroops: 100,
  baseReserveStroops: 5_000_000,
});

describe("ledgerHealth", () => {
  it.each([
    [5, "healthy"],
    [15, "healthy"], // boundary ≤ 15
    [15.001, "lagging"],
    [60, "lagging"], // boundary ≤ 60
    [61, "stalled"],
    [3600, "stalled"],
  ])("age %d s → %s", (age, status) => {
    const h = ledgerHealth(ledger(age));
    expect(h.ageSeconds).toBeCloseTo(age, 6);
    expect(h.status).toBe(status);
  });
  it("converts stroops and computes the failure ratio", () => {
    const h = ledgerHealth(ledger(5));
    expect(h.failureRatio).toBeCloseTo(0.1, 12); // 10 / (90 + 10)
    expect(h.txCount).toBe(100);
    expect(h.operationCount).toBe(400);
    expect(h.baseFeeXlm).toBeCloseTo(0.00001, 12); // 100 / 1e7
    expect(h.baseReserveXlm).toBeCloseTo(0.5, 12); // 5e6 / 1e7
  });
  it("no transactions → failure ratio null (not 0/0)", () => {
    expect(ledgerHealth({ ...ledger(5), successfulTx: 0, failedTx: 0 }).failureRatio).toBeNull();
  });
  it("clock skew (closed in the future) clamps age to 0", () => {
    expect(ledgerHealth(ledger(-3)).ageSeconds).toBe(0);
  });
  it("rejects invalid dates", () => {
    expect(() => ledgerHealth({ ...ledger(5), closedAt: new Date("nope") })).toThrow(RangeError);
  });
});

describe("feeCongestion", () => {
  it.each([
    [0.95, 100, 100, true, 1],
    [0.5, 200, 100, true, 2], // surge pricing
    [0.9, 100, 100, false, 1], // boundary: > 0.9 needed
    [0.2, 100, 100, false, 1],
    [0.99, 300, 100, true, 3],
  ])("usage %d, p50 %d, base %d → congested %s", (u, p50, base, congested, mult) => {
    const r = feeCongestion({ capacityUsage: u, p50, lastBaseFee: base });
    expect(r.congested).toBe(congested);
    expect(r.surgeMultiple).toBeCloseTo(mult, 12);
    expect(r.reason.length).toBeGreaterThan(0);
  });
  it("names both reasons", () => {
    expect(feeCongestion({ capacityUsage: 0.99, p50: 300, lastBaseFee: 100 }).reason).toMatch(/capacity.*;.*surge/);
  });
  it("non-positive base fee → surgeMultiple null", () => {
    expect(feeCongestion({ capacityUsage: 0, p50: 0, lastBaseFee: 0 }).surgeMultiple).toBeNull();
  });
});

describe("tradeStats", () => {
  it("VWAP = Σcounter/Σbase and base_is_seller=true counts as a taker BUY", () => {
    const s = tradeStats([
      { baseAmount: 100, counterAmount: 10, baseIsSeller: true, time: at(60) },
      { baseAmount: 50, counterAmount: 5.5, baseIsSeller: false, time: at(120) },
      { baseAmount: 50, counterAmount: 4.5, baseIsSeller: true, time: at(0) },
    ]);
    expect(s.count).toBe(3);
    expect(s.vwap).toBeCloseTo(0.1, 12); // 20 / 200
    expect(s.baseVolume).toBe(200);
    expect(s.counterVolume).toBe(20);
    expect(s.buyCount).toBe(2);
    expect(s.sellCount).toBe(1);
    expect(s.buyVolumeBase).toBe(150);
    expect(s.sellVolumeBase).toBe(50);
    expect(s.buyRatio).toBeCloseTo(0.75, 12);
    expect(s.firstTime?.toISOString()).toBe(at(0).toISOString());
    expect(s.lastTime?.toISOString()).toBe(at(120).toISOString());
  });
  it("empty → zeros and nulls", () => {
    expect(tradeStats([])).toEqual({
      count: 0,
      vwap: null,
      baseVolume: 0,
      counterVolume: 0,
      buyCount: 0,
      sellCount: 0,
      buyVolumeBase: 0,
      sellVolumeBase: 0,
      buyRatio: null,
      firstTime: null,
      lastTime: null,
    });
  });
  it("skips trades with unusable amounts", () => {
    const s = tradeStats([
      { baseAmount: 0, counterAmount: 1, baseIsSeller: true, time: at(0) },
      { baseAmount: Number.NaN, counterAmount: 1, baseIsSeller: true, time: at(0) },
      { baseAmount: 10, counterAmount: 1, baseIsSeller: false, time: at(0) },
    ]);
    expect(s.count).toBe(1);
    expect(s.vwap).toBeCloseTo(0.1, 12);
    expect(s.buyRatio).toBe(0);
  });
});
