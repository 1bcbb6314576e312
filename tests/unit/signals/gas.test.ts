import { describe, expect, it } from "vitest";
import { etherscanTiers, feeHistoryTiers, gasVerdict, hexToBigInt, weiHexToGwei, type GasTiers } from "@/lib/market/signals/gas";
import { gasValues } from "@/lib/catalog/products/onchain/gas-common";

describe("hexToBigInt", () => {
  it.each([
    ["0x1a", 26n],
    ["0X0", 0n],
    ["0xde0b6b3a7640000", 10n ** 18n],
    [" 0xff ", 255n],
  ])("%s → %s", (h, v) => {
    expect(hexToBigInt(h)).toBe(v);
  });
  it.each(["1a", "0x", "0xzz", "", "-0x1"])("rejects %j", (h) => {
    expect(() => hexToBigInt(h)).toThrow(TypeError);
  });
});

describe("weiHexToGwei", () => {
  it.each([
    ["0x3b9aca00", 1], // 1e9 wei
    ["0x2540be400", 10], // 1e10 wei
    ["0x5f5e100", 0.1], // 1e8 wei
    ["0x1", 1e-9],
    ["0x0", 0],
    ["0xde0b6b3a7640000", 1e9], // 1e18 wei
    ["0x3b9aca01", 1.000000001],
  ])("%s → %d gwei", (h, g) => {
    expect(weiHexToGwei(h)).toBeCloseTo(g, 12);
  });
});

describe("feeHistoryTiers", () => {
  // base fees 1.0, 1.1, 1.2 gwei (last = next block); rewards per block at [p10, p50, p90]
  const fh = {
    baseFeePerGas: ["0x3b9aca00", "0x4190ab00", "0x47868c00"],
    gasUsedRatio: [0.9, 0.7],
    reward: [
      ["0x5f5e100", "0xbebc200", "0x11e1a300"], // 0.1, 0.2, 0.3
      ["0x2faf080", "0x17d78400", "0x23c34600"], // 0.05, 0.4, 0.6
    ],
  };
  const t = feeHistoryTiers(fh);

  it("reads the next base fee, utilisation and trend", () => {
    expect(t.nextBaseFeeGwei).toBeCloseTo(1.2, 12);
    expect(t.avgUtilization).toBeCloseTo(0.8, 12); // (0.9 + 0.7) / 2
    expect(t.baseFeeTrendPct).toBeCloseTo(20, 10); // 1.2 / 1.0 - 1
    expect(t.blocks).toBe(2);
    expect(t.source).toBe("fee_history");
  });
  it("tips are medians per percentile; maxFee = 2·next + tip", () => {
    expect(t.slow.tipGwei).toBeCloseTo(0.075, 12); // median(0.1, 0.05)
    expect(t.standard.tipGwei).toBeCloseTo(0.3, 12); // median(0.2, 0.4)
    expect(t.fast.tipGwei).toBeCloseTo(0.45, 12); // median(0.3, 0.6)
    expect(t.slow.maxFeeGwei).toBeCloseTo(2.475, 12); // 2.4 + 0.075
    expect(t.standard.maxFeeGwei).toBeCloseTo(2.7, 12);
    expect(t.fast.maxFeeGwei).toBeCloseTo(2.85, 12);
    expect(t.notes).toEqual([]);
  });
  it("odd block count median", () => {
    const r = feeHistoryTiers({
      baseFeePerGas: ["0x3b9aca00", "0x3b9aca00", "0x3b9aca00", "0x3b9aca00"],
      gasUsedRatio: [0.5, 0.5, 0.5],
      reward: [["0x1", "0x3b9aca00", "0x0"], ["0x1", "0x77359400", "0x0"], ["0x1", "0xb2d05e00", "0x0"]], // p50: 1, 2, 3 gwei
    });
    expect(r.standard.tipGwei).toBeCloseTo(2, 12);
    expect(r.baseFeeTrendPct).toBe(0);
  });
  it("falls back when reward is missing", () => {
    const r = feeHistoryTiers({ baseFeePerGas: ["0x3b9aca00"], gasUsedRatio: [] }, { fallbackTipGwei: 0.5 });
    expect(r.standard).toEqual({ tipGwei: 0.5, maxFeeGwei: 2.5 });
    expect(r.avgUtilization).toBeNull();
    expect(r.notes[0]).toMatch(/fallback/);
    expect(feeHistoryTiers({ baseFeePerGas: ["0x3b9aca00"], gasUsedRatio: [], reward: [] }).fast.tipGwei).toBe(0);
  });
  it("a zero oldest base fee gives trend 0, not Infinity", () => {
    expect(feeHistoryTiers({ baseFeePerGas: ["0x0", "0x1"], gasUsedRatio: [1] }).baseFeeTrendPct).toBe(0);
  });
  it("throws on an empty base-fee list", () => {
    expect(() => feeHistoryTiers({ baseFeePerGas: [], gasUsedRatio: [] })).toThrow(RangeError);
  });
});

describe("etherscanTiers", () => {
  it("tip = price - base; maxFee = 2·base + tip; implied trend from utilisation", () => {
    const t = etherscanTiers({ safe: 12, propose: 13, fast: 15, baseFee: 11.5, gasUsedRatios: [0.5, 1, 0] });
    expect(t.slow).toEqual({ tipGwei: 0.5, maxFeeGwei: 23.5 });
    expect(t.standard).toEqual({ tipGwei: 1.5, maxFeeGwei: 24.5 });
    expect(t.fast).toEqual({ tipGwei: 3.5, maxFeeGwei: 26.5 });
    expect(t.avgUtilization).toBeCloseTo(0.5, 12);
    // (1 + 0) * (1 + 0.125) * (1 - 0.125) - 1 = 0.984375 - 1
    expect(t.baseFeeTrendPct).toBeCloseTo(-1.5625, 10);
    expect(t.source).toBe("etherscan");
  });
  it("clamps a tier below the base fee to a 0 tip; no ratios → unknown", () => {
    const t = etherscanTiers({ safe: 11, propose: 12, fast: 13, baseFee: 11.5, gasUsedRatios: [] });
    expect(t.slow.tipGwei).toBe(0);
    expect(t.avgUtilization).toBeNull();
    expect(t.baseFeeTrendPct).toBeNull();
  });
});

describe("gasVerdict", () => {
  const base = (u: number | null, trend: number | null, maxFee = 3): GasTiers => ({
    source: "fee_history",
    nextBaseFeeGwei: 1,
    avgUtilization: u,
    baseFeeTrendPct: trend,
    slow: { tipGwei: 0, maxFeeGwei: maxFee },
    standard: { tipGwei: 1, maxFeeGwei: maxFee },
    fast: { tipGwei: 2, maxFeeGwei: maxFee },
    blocks: 20,
    notes: [],
  });
  it.each([
    [0.8, 10, "wait"], // both thresholds met (≥)
    [0.95, 40, "wait"],
    [0.79, 40, "submit_now"], // busy but not congested
    [0.95, 9.9, "submit_now"], // congested but fee not spiking
    [0.3, -20, "submit_now"],
    [null, 50, "submit_now"], // unknown never delays
    [0.9, null, "submit_now"],
  ] as const)("utilisation %s, trend %s → %s", (u, t, v) => {
    expect(gasVerdict(base(u, t)).verdict).toBe(v);
  });
  it("the feeHistory example above (80 %, +20 %) says wait with a reason", () => {
    const r = gasVerdict(base(0.8, 20));
    expect(r.verdict).toBe("wait");
    expect(r.reason).toMatch(/80\.0% full/);
  });
  it("custom thresholds and a fee cap", () => {
    expect(gasVerdict(base(0.6, 5), { highUtilization: 0.5, risingTrendPct: 5 }).verdict).toBe("wait");
    const capped = gasVerdict(base(0.1, 0, 50), { maxFeeCapGwei: 30 });
    expect(capped.verdict).toBe("wait");
    expect(capped.reason).toMatch(/cap/);
    expect(gasVerdict(base(0.1, 0, 20), { maxFeeCapGwei: 30 }).verdict).toBe("submit_now");
  });
});

describe("gasValues keeps gas figures exact to the wei", () => {
  // Etherscan quotes gwei with up to 9 decimals (whole wei); above 10 gwei six significant
  // digits would drop real digits (20.118246051 → 20.1182).
  it.each([
    [20.118246051, 20.3, 21.000000001, 22.5],
    [0.005123456, 0.006, 0.007000001, 0.01],
    [142.987654321, 143, 144.123456789, 150],
  ])("base %d gwei", (base, safe, propose, fast) => {
    const tiers = etherscanTiers({ safe, propose, fast, baseFee: base, gasUsedRatios: [0.4, 0.6] });
    const v = gasValues(tiers, 1, { safe, standard: propose, fast });
    expect(v.base_fee_gwei).toBe(base);
    expect(v.safe_gwei).toBe(safe);
    expect(v.standard_gwei).toBe(propose);
    expect(v.fast_gwei).toBe(fast);
    expect(v.tips_gwei.standard).toBe(Number((propose - base).toFixed(9)));
    expect(v.max_fee_gwei.fast).toBe(Number((2 * base + (fast - base)).toFixed(9)));
  });
});
