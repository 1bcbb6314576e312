import { describe, expect, it } from "vitest";
import { whaleFlow, type DexPair } from "@/lib/market/signals/whale-flow";

const pair = (o: Partial<DexPair> & { b24: number; s24: number; b1: number; s1: number }): DexPair => ({
  dexId: o.dexId ?? "uniswap",
  pairAddress: o.pairAddress ?? "0xpair",
  liquidityUsd: o.liquidityUsd === undefined ? 100_000 : o.liquidityUsd,
  volume: o.volume ?? { h1: 0, h24: 0 },
  txns: { h1: { buys: o.b1, sells: o.s1 }, h24: { buys: o.b24, sells: o.s24 } },
  priceUsd: o.priceUsd === undefined ? 1 : o.priceUsd,
});

describe("whaleFlow", () => {
  it("aggregates pairs: accumulating with an activity surge", () => {
    const r = whaleFlow([
      pair({ pairAddress: "P1", liquidityUsd: 40_000, volume: { h1: 5000, h24: 24_000 }, b24: 120, s24: 80, b1: 30, s1: 10, priceUsd: 1.5 }),
      pair({ pairAddress: "P2", dexId: "aerodrome", liquidityUsd: 20_000, volume: { h1: 1000, h24: 36_000 }, b24: 60, s24: 40, b1: 5, s1: 5, priceUsd: 1.49 }),
    ]);
    expect(r).not.toBeNull();
    expect(r?.pairs).toBe(2);
    expect(r?.buyRatio24h).toBeCloseTo(0.6, 12); // 180 / 300
    expect(r?.buyRatio1h).toBeCloseTo(0.7, 12); // 35 / 50
    expect(r?.liquidityUsd).toBe(60_000);
    expect(r?.volume24hUsd).toBe(60_000);
    expect(r?.volume1hUsd).toBe(6000);
    expect(r?.avgTradeUsd).toBeCloseTo(200, 12); // 60000 / 300
    expect(r?.surgeRatio).toBeCloseTo(2.4, 12); // 6000 / (60000 / 24)
    expect(r?.turnover).toBeCloseTo(1, 12); // 60000 / 60000
    expect(r?.priceUsd).toBe(1.5); // most liquid pair
    expect(r?.topPair).toEqual({ dexId: "uniswap", pairAddress: "P1" });
    expect(r?.verdict).toBe("accumulating");
    expect(r?.notes.some((n) => /activity surge: .*2\.4x/.test(n))).toBe(true);
    expect(r?.notes.some((n) => /thin liquidity/.test(n))).toBe(false); // 60k ≥ 50k
  });

  it("distributing on thin liquidity, last hour diverging", () => {
    const r = whaleFlow([pair({ liquidityUsd: 10_000, volume: { h1: 50, h24: 2400 }, b24: 10, s24: 30, b1: 3, s1: 1 })]);
    expect(r?.buyRatio24h).toBeCloseTo(0.25, 12);
    expect(r?.verdict).toBe("distributing");
    expect(r?.surgeRatio).toBeCloseTo(0.5, 12); // 50 / 100
    expect(r?.turnover).toBeCloseTo(0.24, 12);
    expect(r?.avgTradeUsd).toBeCloseTo(60, 12); // 2400 / 40
    expect(r?.notes.some((n) => /thin liquidity/.test(n))).toBe(true);
    expect(r?.notes.some((n) => /last hour leans to buying/.test(n))).toBe(true);
  });

  it.each([
    [55, 45, "accumulating"], // 0.55 boundary
    [45, 55, "distributing"], // 0.45 boundary
    [54, 46, "balanced"],
    [50, 50, "balanced"],
  ])("%d buys / %d sells → %s", (b, s, v) => {
    expect(whaleFlow([pair({ b24: b, s24: s, b1: 0, s1: 0, volume: { h1: 0, h24: 1000 } })])?.verdict).toBe(v);
  });

  it("too few trades → balanced with a note", () => {
    const r = whaleFlow([pair({ b24: 5, s24: 0, b1: 0, s1: 0 })]);
    expect(r?.buyRatio24h).toBe(1);
    expect(r?.verdict).toBe("balanced");
    expect(r?.notes.some((n) => /too few/.test(n))).toBe(true);
    expect(r?.surgeRatio).toBeNull(); // no 24h volume
    expect(r?.buyRatio1h).toBeNull();
  });

  it("unknown liquidity → null liquidity and turnover; high turnover note", () => {
    const r = whaleFlow([pair({ liquidityUsd: null, b24: 30, s24: 30, b1: 1, s1: 1, volume: { h1: 10, h24: 240 }, priceUsd: null })]);
    expect(r?.liquidityUsd).toBeNull();
    expect(r?.turnover).toBeNull();
    expect(r?.priceUsd).toBeNull();
    expect(r?.notes.some((n) => /liquidity not reported/.test(n))).toBe(true);
    const hot = whaleFlow([pair({ liquidityUsd: 100_000, b24: 30, s24: 30, b1: 1, s1: 1, volume: { h1: 25_000, h24: 600_000 } })]);
    expect(hot?.turnover).toBeCloseTo(6, 12);
    expect(hot?.notes.some((n) => /wash trading/.test(n))).toBe(true);
  });

  it("empty list → null", () => {
    expect(whaleFlow([])).toBeNull();
  });
});
