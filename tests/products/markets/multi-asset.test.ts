import { describe, expect, it } from "vitest";
import { multiAsset } from "@/lib/catalog/products/markets/multi-asset";
import { UnavailableError } from "@/lib/errors";
import { SUPPORTED_TICKERS, TICKERS, type Ticker } from "@/lib/market/tickers";
import { COINGECKO_KEYLESS_BUDGET } from "@/lib/upstream-sim/providers/coingecko";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

const DAY = 86_400_000;
type Asset = {
  rank: number;
  ticker: Ticker;
  coingecko_id: string;
  last_close_usd: number;
  trailing_return_pct: number;
  buy_and_hold_return_pct: number;
  momentum_14d_pct: number | null;
  momentum_30d_pct: number | null;
  best_strategy: string;
  best_strategy_return_pct: number;
  strategy_edge_pp: number;
  score: number;
  verdict: string;
};
type Out = { period: string; tickers: string[]; assets: Asset[]; unavailable: { ticker: string; reason: string }[]; leader: string; laggard: string };

async function rawCloses(id: string, days: number): Promise<number[]> {
  const raw = await rawCg<{ prices: Array<[number, number]> }>(sim(), `/api/v3/coins/${id}/market_chart?vs_currency=usd&days=${days}&interval=daily`);
  return raw.prices.filter(([t]) => t % DAY === 0).map(([, p]) => p);
}

const DEFAULTS = ["XLM-USD", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD", "LINK-USD", "AVAX-USD", "DOGE-USD"];

describe("GET /v1/multi-asset", () => {
  it("screens the 8 default assets over 3mo; returns and momentum match the raw closes", async () => {
    const out = await run<Out>(multiAsset);
    expect(out.period).toBe("3mo");
    expect(out.tickers).toEqual(DEFAULTS);
    expect(out.assets).toHaveLength(8);
    expect(out.assets.map((a) => a.ticker).sort()).toEqual([...DEFAULTS].sort());
    for (const a of out.assets) {
      expect(a.coingecko_id).toBe(TICKERS[a.ticker]);
      const closes = await rawCloses(a.coingecko_id, 120);
      const last = closes[closes.length - 1]!;
      const trailing = (last / closes[closes.length - 91]! - 1) * 100;
      expect(Math.abs(a.trailing_return_pct - trailing)).toBeLessThanOrEqual(0.006);
      expect(Math.abs(a.momentum_14d_pct! - (last / closes[closes.length - 15]! - 1) * 100)).toBeLessThanOrEqual(0.006);
      expect(Math.abs(a.momentum_30d_pct! - (last / closes[closes.length - 31]! - 1) * 100)).toBeLessThanOrEqual(0.006);
      expect(Math.abs(a.last_close_usd / last - 1)).toBeLessThan(1e-6);
      // Buy-and-hold differs from the raw trailing return only by the 10 bp entry.
      const c0 = closes[closes.length - 91]!;
      const c1 = closes[closes.length - 90]!;
      const bh = ((c1 / c0 - 0.001) * (last / c1) - 1) * 100;
      expect(Math.abs(a.buy_and_hold_return_pct - bh)).toBeLessThanOrEqual(0.006);
      expect(Math.abs(a.strategy_edge_pp - (a.best_strategy_return_pct - a.buy_and_hold_return_pct))).toBeLessThanOrEqual(0.011);
      // Score per the documented formula, from the unrounded raw inputs.
      const m14 = (last / closes[closes.length - 15]! - 1) * 100;
      const score = 0.4 * Math.tanh(trailing / 20) + 0.4 * Math.tanh(m14 / 10) + 0.2 * Math.tanh(a.strategy_edge_pp / 10);
      expect(Math.abs(a.score - score)).toBeLessThan(0.001);
      expect(a.verdict).toBe(a.score >= 0.2 ? "overweight" : a.score <= -0.2 ? "underweight" : "neutral");
    }
    // Ranked by score, 1..n.
    expect(out.assets.map((a) => a.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 1; i < out.assets.length; i++) expect(out.assets[i]!.score).toBeLessThanOrEqual(out.assets[i - 1]!.score);
    expect(out.leader).toBe(out.assets[0]!.ticker);
    expect(out.laggard).toBe(out.assets[7]!.ticker);
    expect(out.unavailable).toEqual([]);
  });

  it("honours the period (6mo) and a custom ticker list", async () => {
    const out = await run<Out>(multiAsset, { tickers: "XRP-USD, dot-usd", period: "6mo" });
    expect(out.tickers).toEqual(["XRP-USD", "DOT-USD"]);
    const xrp = out.assets.find((a) => a.ticker === "XRP-USD")!;
    const closes = await rawCloses("ripple", 210);
    const trailing = (closes[closes.length - 1]! / closes[closes.length - 181]! - 1) * 100;
    expect(Math.abs(xrp.trailing_return_pct - trailing)).toBeLessThanOrEqual(0.006);
  });

  it("marks an asset whose history fails as unavailable and ranks the rest", async () => {
    sim().setFault("coingecko", { mode: "error", pathPrefix: "/api/v3/coins/solana/" });
    const out = await run<Out>(multiAsset);
    expect(out.assets).toHaveLength(7);
    expect(out.assets.map((a) => a.ticker)).not.toContain("SOL-USD");
    expect(out.assets.map((a) => a.rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(out.unavailable).toEqual([{ ticker: "SOL-USD", reason: "coingecko http (HTTP 500)" }]);
  });

  it("reports a timed-out asset as unavailable too", async () => {
    sim().setFault("coingecko", { mode: "hang", pathPrefix: "/api/v3/coins/dogecoin/" });
    const out = await run<Out>(multiAsset, { tickers: "XLM-USD,DOGE-USD" });
    expect(out.assets.map((a) => a.ticker)).toEqual(["XLM-USD"]);
    expect(out.unavailable).toEqual([{ ticker: "DOGE-USD", reason: "coingecko timeout" }]);
  });

  it("ranks what it could load and names the rate-limited tickers when CoinGecko answers 429", async () => {
    sim().setRateLimit("coingecko", COINGECKO_KEYLESS_BUDGET);
    const out = await run<Out>(multiAsset);
    expect(out.assets).toHaveLength(5);
    expect(out.unavailable).toHaveLength(3);
    for (const u of out.unavailable) expect(u.reason).toMatch(/^coingecko: rate limited \(HTTP 429\)/);
    expect(out.assets.map((a) => a.rank)).toEqual([1, 2, 3, 4, 5]);
  });

  it("is unavailable when every history fails", async () => {
    sim().setFault("coingecko", { mode: "error", status: 500 });
    await expect(run(multiAsset)).rejects.toBeInstanceOf(UnavailableError);
    await expect(run(multiAsset)).rejects.toMatchObject({ status: 503, headers: { "Retry-After": "30" } });
  });

  it("answers 422 for an unknown ticker, too many tickers, a bad period and an empty list", () => {
    const supported = SUPPORTED_TICKERS.join(", ");
    expect(detailOf(multiAsset, { tickers: "BTC-EUR,XYZ" })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: `Value error, unsupported tickers 'BTC-EUR', 'XYZ-USD'; supported: ${supported}`,
        type: "value_error",
        input: "BTC-EUR,XYZ",
        ctx: { error: `unsupported tickers 'BTC-EUR', 'XYZ-USD'; supported: ${supported}` },
      },
    ]);
    const eleven = SUPPORTED_TICKERS.slice(0, 11).join(",");
    expect(detailOf(multiAsset, { tickers: eleven })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: "List should have at most 10 items after validation, not 11",
        type: "too_long",
        input: eleven,
        ctx: { field_type: "List", max_length: 10, actual_length: 11 },
      },
    ]);
    expect(detailOf(multiAsset, { period: "3m" })).toEqual([
      {
        loc: ["query", "period"],
        msg: "Input should be '1mo', '3mo', '6mo' or '1y'",
        type: "literal_error",
        input: "3m",
        ctx: { expected: "'1mo', '3mo', '6mo' or '1y'" },
      },
    ]);
    expect(detailOf(multiAsset, { tickers: "," })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: "List should have at least 1 item after validation, not 0",
        type: "too_short",
        input: ",",
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      },
    ]);
  });
});
