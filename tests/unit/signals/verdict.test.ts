import { describe, expect, it } from "vitest";
import { breadthToScore, directionalVerdict, fusedVerdict, FUSED_WEIGHTS } from "@/lib/market/signals/verdict";

describe("directionalVerdict", () => {
  it("bullish with 2/3 agreement: 0.6 * (0.5 + 0.5*2/3) * (0.4 + 0.6*1) = 0.5", () => {
    // strength = min(1, 0.3/0.5) = 0.6
    const v = directionalVerdict({ composite: 0.3, components: { fear_greed: 0.4, order_flow: 0.2, momentum: -0.1 } });
    expect(v.verdict).toBe("bullish");
    expect(v.agreement).toBeCloseTo(0.6667, 4);
    expect(v.confidence).toBeCloseTo(0.5, 4);
    expect(v.available).toBe(3);
    expect(v.missing).toEqual([]);
    expect(v.rationale.length).toBeGreaterThanOrEqual(2);
  });

  it("bearish with a missing component: 1 * 1 * (0.4 + 0.6*2/3) = 0.8", () => {
    const v = directionalVerdict({ composite: -0.6, components: { fear_greed: -0.8, order_flow: -0.5, momentum: null } });
    expect(v.verdict).toBe("bearish");
    expect(v.agreement).toBe(1);
    expect(v.confidence).toBeCloseTo(0.8, 4);
    expect(v.missing).toEqual(["momentum"]);
    expect(v.rationale.join(" ")).toMatch(/missing components/);
  });

  it.each([
    // composite, components, verdict, agreement, confidence (arithmetic in the name)
    [0.05, { fear_greed: 0.1, order_flow: 0.2, momentum: 0.3 }, "neutral", 1, 0.1], // 0.1 * 1 * 1
    [0, {}, "neutral", 0, 0],
    [0.2, {}, "bullish", 0, 0.08], // 0.4 * 0.5 * 0.4
    [0.15, { fear_greed: 0.15 }, "bullish", 1, 0.18], // 0.3 * 1 * (0.4 + 0.2)
    [-0.1499, { momentum: -0.2 }, "neutral", 1, 0.1799], // 0.2998 * 1 * 0.6 = 0.17988
  ] as const)("composite %d → %s", (composite, components, verdict, agreement, confidence) => {
    const v = directionalVerdict({ composite, components });
    expect(v.verdict).toBe(verdict);
    expect(v.agreement).toBeCloseTo(agreement, 4);
    expect(v.confidence).toBeCloseTo(confidence, 4);
  });

  it("confidence grows with |composite| and with agreement", () => {
    const c = { fear_greed: 0.5, order_flow: 0.5, momentum: 0.5 };
    expect(directionalVerdict({ composite: 0.4, components: c }).confidence).toBeGreaterThan(
      directionalVerdict({ composite: 0.2, components: c }).confidence,
    );
    expect(directionalVerdict({ composite: 0.4, components: c }).confidence).toBeGreaterThan(
      directionalVerdict({ composite: 0.4, components: { ...c, momentum: -0.5 } }).confidence,
    );
  });

  it("rejects a non-finite composite", () => {
    expect(() => directionalVerdict({ composite: Number.NaN, components: {} })).toThrow(RangeError);
  });
});

describe("fusedVerdict", () => {
  it("weights sum to 1", () => {
    expect(Object.values(FUSED_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("buy: 0.4*0.5 + 0.15*0.2 + 0.2*0.6 + 0.25*0.4 = 0.45; conf 1*1*(0.5+0.5*0.9) = 0.95 → A", () => {
    const v = fusedVerdict({ composite: 0.5, fngScore: 0.2, momentum: 0.6, breadthScore: 0.4 });
    expect(v?.score).toBeCloseTo(0.45, 10);
    expect(v?.verdict).toBe("buy");
    expect(v?.confidence).toBeCloseTo(0.95, 4);
    expect(v?.grade).toBe("A");
    expect(v?.inputsUsed).toEqual(["composite", "fear_greed", "momentum", "breadth"]);
    expect(v?.missing).toEqual([]);
  });

  it("strong_sell from partial inputs: (0.15*-0.6 + 0.2*-0.8) / 0.35 = -0.7143; conf = 0.35 → C", () => {
    const v = fusedVerdict({ composite: null, fngScore: -0.6, momentum: -0.8, breadthScore: null });
    expect(v?.score).toBeCloseTo(-0.7143, 4);
    expect(v?.verdict).toBe("strong_sell");
    expect(v?.coverage).toBeCloseTo(0.35, 10);
    expect(v?.confidence).toBeCloseTo(0.35, 4);
    expect(v?.grade).toBe("C");
    expect(v?.missing).toEqual(["composite", "breadth"]);
  });

  it("hold: score 0.04 - 0.015 + 0.01 + 0.075 = 0.11; 3/4 inputs inside ±0.15; conf 0.875 * (0.5 + 0.5*(1 - 0.11/0.15)) = 0.5542 → B", () => {
    const v = fusedVerdict({ composite: 0.1, fngScore: -0.1, momentum: 0.05, breadthScore: 0.3 });
    expect(v?.score).toBeCloseTo(0.11, 10);
    expect(v?.verdict).toBe("hold");
    expect(v?.agreement).toBeCloseTo(0.75, 10);
    expect(v?.confidence).toBeCloseTo(0.5542, 4);
    expect(v?.grade).toBe("B");
  });

  it("sell: -0.12 + 0.015 - 0.08 - 0.05 = -0.235; conf 0.875 * (0.5 + 0.5*0.47) = 0.6431 → B", () => {
    const v = fusedVerdict({ composite: -0.3, fngScore: 0.1, momentum: -0.4, breadthScore: -0.2 });
    expect(v?.score).toBeCloseTo(-0.235, 10);
    expect(v?.verdict).toBe("sell");
    expect(v?.confidence).toBeCloseTo(0.6431, 4);
    expect(v?.grade).toBe("B");
  });

  it.each([
    // single input → coverage = its weight; agreement 1
    [{ composite: 5, fngScore: null, momentum: null, breadthScore: null }, 1, "strong_buy", 0.4, "C"], // 0.4*1*1
    [{ composite: null, fngScore: 0.2, momentum: null, breadthScore: null }, 0.2, "buy", 0.105, "D"], // 0.15*1*(0.5+0.2)
    [{ composite: null, fngScore: null, momentum: -0.5, breadthScore: null }, -0.5, "strong_sell", 0.2, "D"],
  ] as const)("%j", (input, score, verdict, confidence, grade) => {
    const v = fusedVerdict(input);
    expect(v?.score).toBeCloseTo(score, 10);
    expect(v?.verdict).toBe(verdict);
    expect(v?.confidence).toBeCloseTo(confidence, 4);
    expect(v?.grade).toBe(grade);
  });

  it("returns null when nothing is available", () => {
    expect(fusedVerdict({ composite: null, fngScore: null, momentum: null, breadthScore: null })).toBeNull();
    expect(fusedVerdict({ composite: Number.NaN, fngScore: null, momentum: null, breadthScore: null })).toBeNull();
  });
});

describe("breadthToScore", () => {
  it.each([
    [70, 2, 0.4], // 0.5*0.4 + 0.5*0.4
    [50, 0, 0],
    [0, -10, -1],
    [100, 10, 1],
    [30, 1, -0.1], // 0.5*(-0.4) + 0.5*0.2
    [62, -1, 0.02], // 0.5*0.24 + 0.5*(-0.2)
  ])("breadth %d%%, mean %d%% → %d", (b, m, s) => {
    expect(breadthToScore(b, m)).toBeCloseTo(s, 10);
  });
  it("rejects non-finite input", () => {
    expect(() => breadthToScore(Number.NaN, 1)).toThrow(RangeError);
  });
});
