import { describe, expect, it } from "vitest";
import {
  clamp,
  compositeSentiment,
  DEFAULT_WEIGHTS,
  fngToScore,
  momentumScore,
  parseWeights,
  sentimentLabel,
  type Weights,
} from "@/lib/market/signals/sentiment";

describe("clamp", () => {
  it.each([
    [5, -1, 1, 1],
    [-5, -1, 1, -1],
    [0.3, -1, 1, 0.3],
    [1, -1, 1, 1],
  ])("clamp(%d, %d, %d) = %d", (x, lo, hi, out) => {
    expect(clamp(x, lo, hi)).toBe(out);
  });
  it("keeps NaN visible", () => {
    expect(Number.isNaN(clamp(Number.NaN, -1, 1))).toBe(true);
  });
});

describe("fngToScore", () => {
  it.each([
    [0, -1], // (0 - 50) / 50
    [25, -0.5],
    [50, 0],
    [72, 0.44], // 22 / 50
    [100, 1],
    [120, 1], // clamped
  ])("index %d → %d", (i, s) => {
    expect(fngToScore(i)).toBeCloseTo(s, 12);
  });
});

describe("momentumScore", () => {
  it.each([
    [2.5, 5, 0.5],
    [-10, 5, -1],
    [2.5, 10, 0.25],
    [0, 5, 0],
    [7, 5, 1],
  ])("change %d%% with scale %d → %d", (c, s, out) => {
    expect(momentumScore(c, s)).toBeCloseTo(out, 12);
  });
  it("defaults the scale to 5", () => {
    expect(momentumScore(1)).toBeCloseTo(0.2, 12);
  });
  it("rejects a non-positive scale", () => {
    expect(() => momentumScore(1, 0)).toThrow(RangeError);
  });
});

describe("parseWeights", () => {
  it.each<[string | undefined, Weights]>([
    [undefined, { fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 }],
    ["", { fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 }],
    ["fear_greed=0.4,order_flow=0.3,momentum=0.3", { fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 }],
    // missing names keep defaults: 1 + 0.3 + 0.3 = 1.6 → 0.625, 0.1875, 0.1875
    ["fear_greed=1", { fear_greed: 0.625, order_flow: 0.1875, momentum: 0.1875 }],
    // 2 + 1 + 1 = 4
    ["fear_greed=2,order_flow=1,momentum=1", { fear_greed: 0.5, order_flow: 0.25, momentum: 0.25 }],
    // whitespace and a trailing comma; 0.4 + 0.3 + 0 = 0.7
    [" momentum = 0 , ", { fear_greed: 0.4 / 0.7, order_flow: 0.3 / 0.7, momentum: 0 }],
  ])("%j", (spec, expected) => {
    const w = parseWeights(spec);
    expect(w.fear_greed).toBeCloseTo(expected.fear_greed, 12);
    expect(w.order_flow).toBeCloseTo(expected.order_flow, 12);
    expect(w.momentum).toBeCloseTo(expected.momentum, 12);
    expect(w.fear_greed + w.order_flow + w.momentum).toBeCloseTo(1, 12);
  });

  it.each([
    ["volume=1", /unknown sentiment weight "volume"/],
    ["fear_greed=-1", /must not be negative/],
    ["fear_greed=abc", /not a number/],
    ["fear_greed=", /not a number/],
    ["fear_greed", /expected name=value/],
    ["fear_greed=0,order_flow=0,momentum=0", /must not all be zero/],
    ["momentum=1,momentum=2", /duplicate/],
    ["fear_greed=Infinity", /not a number/],
  ])("rejects %j", (spec, msg) => {
    expect(() => parseWeights(spec)).toThrow(msg);
  });

  it("DEFAULT_WEIGHTS sum to 1", () => {
    expect(DEFAULT_WEIGHTS.fear_greed + DEFAULT_WEIGHTS.order_flow + DEFAULT_WEIGHTS.momentum).toBeCloseTo(1, 12);
  });
});

describe("compositeSentiment", () => {
  const W = { ...DEFAULT_WEIGHTS };

  it("weights all three: 0.4*0.44 + 0.3*0.2 + 0.3*(-0.4) = 0.116", () => {
    const r = compositeSentiment({ fear_greed: 0.44, order_flow: 0.2, momentum: -0.4 }, W);
    expect(r?.score).toBeCloseTo(0.116, 10);
    expect(r?.missing).toEqual([]);
    expect(r?.weightsUsed).toEqual({ fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 });
  });

  it("renormalises over available components: (0.176 + 0.06) / 0.7 = 0.3371", () => {
    const r = compositeSentiment({ fear_greed: 0.44, order_flow: 0.2, momentum: null }, W);
    expect(r?.score).toBe(0.3371); // 0.337142... rounded to 4 dp
    expect(r?.missing).toEqual(["momentum"]);
    expect(r?.weightsUsed.fear_greed).toBeCloseTo(0.571429, 6);
    expect(r?.weightsUsed.order_flow).toBeCloseTo(0.428571, 6);
    expect(r?.weightsUsed.momentum).toBeUndefined();
  });

  it("treats undefined and NaN as missing", () => {
    const r = compositeSentiment({ fear_greed: Number.NaN, order_flow: -0.5 }, W);
    expect(r?.score).toBe(-0.5);
    expect(r?.missing).toEqual(["fear_greed", "momentum"]);
  });

  it("clamps out-of-range components and the result", () => {
    expect(compositeSentiment({ fear_greed: 3 }, W)?.score).toBe(1);
  });

  it("rounds to 4 dp: 0.12345 → 0.1235", () => {
    expect(compositeSentiment({ momentum: 0.12345 }, W)?.score).toBe(0.1235);
  });

  it("returns null when nothing is available", () => {
    expect(compositeSentiment({}, W)).toBeNull();
    expect(compositeSentiment({ fear_greed: null, order_flow: null, momentum: null }, W)).toBeNull();
  });

  it("returns null when only zero-weight components are available", () => {
    expect(compositeSentiment({ fear_greed: 0.5 }, { fear_greed: 0, order_flow: 0, momentum: 1 })).toBeNull();
  });
});

describe("sentimentLabel", () => {
  it.each([
    [1, "strongly_bullish"],
    [0.5, "strongly_bullish"],
    [0.4999, "bullish"],
    [0.15, "bullish"],
    [0.1499, "neutral"],
    [0, "neutral"],
    [-0.1499, "neutral"],
    [-0.15, "bearish"],
    [-0.4999, "bearish"],
    [-0.5, "strongly_bearish"],
    [-1, "strongly_bearish"],
    [Number.NaN, "neutral"],
  ])("%d → %s", (s, label) => {
    expect(sentimentLabel(s)).toBe(label);
  });
});
