import { describe, expect, it } from "vitest";
import {
  breadthStats,
  isStablecoin,
  marketRegime,
  STABLECOIN_IDS,
  STABLECOIN_SYMBOLS,
  topMovers,
  type MoverCoin,
} from "@/lib/market/signals/breadth";

describe("isStablecoin", () => {
  it.each([
    [{ id: "tether", symbol: "usdt" }, true],
    [{ id: "usd-coin", symbol: "usdc" }, true],
    [{ id: "dai", symbol: "dai" }, true],
    [{ id: "first-digital-usd", symbol: "fdusd" }, true],
    [{ id: "ethena-usde", symbol: "usde" }, true],
    [{ id: "euro-coin", symbol: "eurc" }, true],
    [{ id: "some-new-thing", symbol: "USDT0" }, true], // "usd" prefix, case-insensitive
    [{ id: "other", symbol: "pyusd" }, true], // by symbol
    [{ id: "paypal-usd", symbol: "zzz" }, true], // by id
    [{ id: "stellar", symbol: "xlm" }, false],
    [{ id: "bitcoin", symbol: "btc" }, false],
    [{ id: "ethereum", symbol: "eth" }, false],
  ])("%j → %s", (c, v) => {
    expect(isStablecoin(c)).toBe(v);
  });
  it("lists contain the brief's names", () => {
    for (const s of ["usdt", "usdc", "dai", "fdusd", "tusd", "usde", "usds", "pyusd", "usdd", "frax", "busd", "gusd", "lusd", "eurc"]) {
      expect(STABLECOIN_SYMBOLS.has(s)).toBe(true);
    }
    expect(STABLECOIN_IDS.has("tether")).toBe(true);
  });
});

describe("breadthStats", () => {
  it("ignores null/non-finite: [1, -2, 0, 3, 4] → breadth 60 %, mean 1.2, median 1", () => {
    const s = breadthStats([1, -2, 0, 3, null, Number.NaN, 4, Number.POSITIVE_INFINITY]);
    expect(s).toEqual({
      n: 5,
      advancers: 3,
      decliners: 1,
      unchanged: 1,
      breadthPct: 60,
      meanChangePct: 1.2,
      medianChangePct: 1,
    });
  });
  it("median of an even count is the mean of the middle two: [4,1,3,2] → 2.5", () => {
    expect(breadthStats([4, 1, 3, 2])?.medianChangePct).toBe(2.5);
  });
  it("all decliners → breadth 0", () => {
    expect(breadthStats([-1, -3])?.breadthPct).toBe(0);
    expect(breadthStats([-1, -3])?.meanChangePct).toBe(-2);
  });
  it.each([[[]], [[null, null]], [[Number.NaN]]])("null when nothing usable: %j", (xs) => {
    expect(breadthStats(xs)).toBeNull();
  });
});

describe("marketRegime", () => {
  it.each([
    [60, 0.5, "risk_on"],
    [80, 3, "risk_on"],
    [59.9, 0.5, "mild_risk_on"], // fails risk_on breadth, ≥55 and >0
    [70, 0.2, "mild_risk_on"], // fails risk_on mean
    [55, 0.01, "mild_risk_on"],
    [55, 0, "mixed"], // mean must be > 0
    [40, -0.5, "risk_off"],
    [10, -4, "risk_off"],
    [45, -0.1, "mild_risk_off"],
    [30, -0.2, "mild_risk_off"],
    [45, 0, "mixed"],
    [50, 0, "mixed"],
    [70, -1, "mixed"], // many up but average down
    [30, 1, "mixed"],
  ])("breadth %d, mean %d → %s", (b, m, r) => {
    expect(marketRegime(b, m)).toBe(r);
  });
});

describe("topMovers", () => {
  const c = (id: string, change: number | null, vol: number | null, symbol = id): MoverCoin => ({
    id,
    symbol,
    name: id.toUpperCase(),
    price: 1,
    change24hPct: change,
    volumeUsd: vol,
  });
  const coins = [
    c("a", 12, 5e6),
    c("b", 30, 2e6),
    c("c", -8, 3e6),
    c("d", -20, 1e6), // exactly the minimum volume: included
    c("e", 50, 5e5), // too thin
    c("f", 40, null), // unknown volume
    c("tether", 60, 1e9, "usdt"), // stablecoin
    c("g", null, 1e9), // unknown change
    c("h", 0, 1e9), // unchanged: neither list
    c("i", 12, 9e6), // same change as a, higher volume → first
    c("j", -1, 2e6),
  ];

  it("sorts gainers desc and losers asc, n each, with filters", () => {
    const r = topMovers(coins, { n: 3 });
    expect(r.gainers.map((x) => x.id)).toEqual(["b", "i", "a"]);
    expect(r.losers.map((x) => x.id)).toEqual(["d", "c", "j"]);
  });
  it("defaults n = 10, minVolumeUsd = 1e6", () => {
    const r = topMovers(coins);
    expect(r.gainers.map((x) => x.id)).toEqual(["b", "i", "a"]);
    expect(r.losers).toHaveLength(3);
  });
  it("minVolumeUsd is configurable", () => {
    expect(topMovers(coins, { minVolumeUsd: 0 }).gainers[0]?.id).toBe("e");
  });
  it("empty input", () => {
    expect(topMovers([])).toEqual({ gainers: [], losers: [] });
  });
});
