import { describe, expect, it } from "vitest";
import { assertPositiveInt, finiteOrNull, isFiniteNumber, mean, median, plainDecimal, round, sig, stdDev, sum } from "@/lib/market/signals/math";
import * as signals from "@/lib/market/signals";

describe("math helpers", () => {
  it.each([
    [1.005, 2, 1.01], // naive x*100 rounding gives 1.00
    [0.12345, 4, 0.1235],
    [-0.00001, 4, 0], // no "-0"
    [1e-7, 4, 0],
    [123.456, 0, 123],
  ])("round(%d, %d) = %d", (x, dp, out) => {
    expect(round(x, dp)).toBe(out);
    expect(Object.is(round(x, dp), -0)).toBe(false);
  });
  it("round keeps non-finite values", () => {
    expect(Number.isNaN(round(Number.NaN))).toBe(true);
  });
  it.each([
    [0.123456789, 7, 0.1234568],
    [64250.12345, 7, 64250.12],
    [0.0051234567, 6, 0.00512346],
    [-1.23456789e-9, 3, -1.23e-9],
    [0, 6, 0],
  ])("sig(%d, %d) = %d", (x, digits, out) => {
    expect(sig(x, digits)).toBe(out);
  });
  it("sig keeps non-finite values and never answers -0", () => {
    expect(Object.is(sig(-0, 6), 0)).toBe(true);
    expect(Number.isNaN(sig(Number.NaN, 6))).toBe(true);
    expect(sig(Number.POSITIVE_INFINITY, 6)).toBe(Number.POSITIVE_INFINITY);
  });
  it("finiteOrNull: unknown stays null, never 0 or NaN", () => {
    for (const x of [null, undefined, Number.NaN, Number.NEGATIVE_INFINITY]) expect(finiteOrNull(x, (v) => round(v, 2))).toBeNull();
    expect(finiteOrNull(1.005, (v) => round(v, 2))).toBe(1.01);
  });
  it.each([
    [64250.123456, 8, "64250.123"],
    [1.2345678912e-7, 8, "0.00000012345679"],
    [1.5, 8, "1.5"],
    [100, 8, "100"],
    [0.1 + 0.2, 8, "0.3"],
    [0, 8, "0"],
  ])("plainDecimal(%d, %d) = %s (no exponent, no trailing zeros)", (x, digits, out) => {
    expect(plainDecimal(x, digits)).toBe(out);
  });
  it("sum / mean / median", () => {
    expect(sum([])).toBe(0);
    expect(sum([1, 2, 3])).toBe(6);
    expect(mean([])).toBeNull();
    expect(mean([1, 2, 6])).toBe(3);
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it("stdDev: population vs sample on [2,4,4,4,5,5,7,9]", () => {
    // mean 5, Σ(x-5)² = 32 → population √(32/8) = 2, sample √(32/7) = 2.138090
    expect(stdDev([2, 4, 4, 4, 5, 5, 7, 9], 0)).toBeCloseTo(2, 12);
    expect(stdDev([2, 4, 4, 4, 5, 5, 7, 9], 1)).toBeCloseTo(2.1380899353, 9);
    expect(stdDev([5], 1)).toBe(0);
    expect(stdDev([], 0)).toBe(0);
  });
  it("isFiniteNumber", () => {
    expect(isFiniteNumber(1)).toBe(true);
    expect(isFiniteNumber(Number.NaN)).toBe(false);
    expect(isFiniteNumber(Number.POSITIVE_INFINITY)).toBe(false);
    expect(isFiniteNumber("1")).toBe(false);
    expect(isFiniteNumber(null)).toBe(false);
  });
  it("assertPositiveInt", () => {
    expect(() => assertPositiveInt(3, "n")).not.toThrow();
    expect(() => assertPositiveInt(0, "n")).toThrow(/n must be a positive integer/);
  });
});

describe("index re-exports", () => {
  it.each([
    "normalizeHorizonBook", "bookSnapshot", "orderFlowImbalance", "walkBook",
    "clamp", "fngToScore", "momentumScore", "parseWeights", "compositeSentiment", "sentimentLabel", "DEFAULT_WEIGHTS",
    "directionalVerdict", "fusedVerdict", "breadthToScore",
    "arbitrageScan",
    "sma", "wilderRsi", "bollinger", "smaCrossPositions", "rsiPositions", "bollingerPositions", "runBacktest",
    "buyAndHold", "screenStrategies", "trailingReturnPct", "momentumPct", "rankAssets", "InsufficientHistoryError",
    "STABLECOIN_IDS", "isStablecoin", "breadthStats", "marketRegime", "topMovers",
    "hexToBigInt", "weiHexToGwei", "feeHistoryTiers", "gasVerdict", "etherscanTiers",
    "ledgerHealth", "feeCongestion", "tradeStats",
    "evmTokenRisk", "solanaTokenRisk",
    "whaleFlow",
    "parseOutcomes", "summarizeMarket",
  ])("%s", (name) => {
    expect((signals as Record<string, unknown>)[name]).toBeDefined();
  });
});
