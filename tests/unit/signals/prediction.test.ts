import { describe, expect, it } from "vitest";
import { parseOutcomes, summarizeMarket } from "@/lib/market/signals/prediction";

describe("parseOutcomes", () => {
  it("parses Gamma's JSON-encoded strings", () => {
    expect(parseOutcomes('["Yes","No"]', '["0.65","0.35"]')).toEqual([
      { outcome: "Yes", probability: 0.65 },
      { outcome: "No", probability: 0.35 },
    ]);
  });
  it("accepts plain arrays and numeric prices", () => {
    expect(parseOutcomes(["A", "B", "C"], [0.2, "0.3", 0.5])).toEqual([
      { outcome: "A", probability: 0.2 },
      { outcome: "B", probability: 0.3 },
      { outcome: "C", probability: 0.5 },
    ]);
  });
  it.each([
    ["length mismatch", '["Yes","No"]', '["0.5"]'],
    ["bad JSON", "[Yes,No]", '["0.5","0.5"]'],
    ["price > 1", '["Yes","No"]', '["1.2","0.1"]'],
    ["negative price", '["Yes","No"]', '["-0.1","0.1"]'],
    ["non-numeric price", '["Yes","No"]', '["abc","0.1"]'],
    ["empty price string", '["Yes","No"]', '["","0.1"]'],
    ["null", null, null],
    ["undefined", undefined, '["0.5"]'],
    ["object", { a: 1 }, '["0.5"]'],
    ["non-string outcome", "[1,2]", '["0.5","0.5"]'],
    ["empty arrays", "[]", "[]"],
    ["JSON that is not an array", '"Yes"', '"0.5"'],
  ])("%s → []", (_n, o, p) => {
    expect(parseOutcomes(o, p)).toEqual([]);
  });
});

describe("summarizeMarket", () => {
  it("summarises a binary market", () => {
    const s = summarizeMarket({
      question: "Will X happen?",
      slug: "will-x-happen",
      endDate: "2026-12-31T00:00:00Z",
      volume24hr: 12345.6,
      volumeNum: 1_000_000,
      volume: "999",
      liquidityNum: "5000.5",
      outcomes: '["Yes","No"]',
      outcomePrices: '["0.65","0.36"]',
    });
    expect(s.question).toBe("Will X happen?");
    expect(s.slug).toBe("will-x-happen");
    expect(s.endDate).toBe("2026-12-31T00:00:00Z");
    expect(s.volume24hUsd).toBe(12345.6);
    expect(s.volumeUsd).toBe(1_000_000); // volumeNum preferred
    expect(s.liquidityUsd).toBe(5000.5);
    expect(s.leading).toEqual({ outcome: "Yes", probability: 0.65 });
    expect(s.yesProbability).toBe(0.65);
    expect(s.overround).toBeCloseTo(0.01, 12); // 0.65 + 0.36 - 1
  });
  it("multi-outcome: leading is the max, no yesProbability", () => {
    const s = summarizeMarket({ outcomes: ["A", "B", "C"], outcomePrices: ["0.2", "0.5", "0.3"], volume: "42" });
    expect(s.leading?.outcome).toBe("B");
    expect(s.yesProbability).toBeNull();
    expect(s.overround).toBeCloseTo(0, 12);
    expect(s.volumeUsd).toBe(42); // falls back to `volume`
  });
  it("missing data → nulls", () => {
    const s = summarizeMarket({});
    expect(s).toEqual({
      question: null,
      slug: null,
      endDate: null,
      volume24hUsd: null,
      volumeUsd: null,
      liquidityUsd: null,
      outcomes: [],
      leading: null,
      yesProbability: null,
      overround: null,
    });
  });
});
