import { describe, expect, it } from "vitest";
import { screen } from "@/lib/catalog/products/markets/screen";
import { UnavailableError } from "@/lib/errors";
import { SUPPORTED_TICKERS } from "@/lib/market/tickers";
import { COINGECKO_KEYLESS_BUDGET } from "@/lib/upstream-sim/providers/coingecko";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

const DAY = 86_400_000;
type Metrics = { total_return_pct: number; max_drawdown_pct: number; trades: number; exposure_pct: number };
type Result = {
  ticker: string;
  window_start: string;
  window_end: string;
  window_closes: number;
  warmup_closes: number;
  first_close_usd: number;
  last_close_usd: number;
  buy_and_hold: Metrics;
  strategies: Record<"sma_cross" | "rsi" | "bollinger", Metrics & { edge_pp: number }>;
  best_strategy: string;
  best_edge_pp: number;
  beats_buy_and_hold: boolean;
};
type Out = { period: string; period_days: number; tickers: string[]; results: Result[]; unavailable: { ticker: string; reason: string }[]; assumptions: Record<string, unknown> };

/** Raw daily closes from the simulator, with the trailing "now" point dropped. */
async function rawCloses(id: string, days: number): Promise<Array<[number, number]>> {
  const raw = await rawCg<{ prices: Array<[number, number]> }>(sim(), `/api/v3/coins/${id}/market_chart?vs_currency=usd&days=${days}&interval=daily`);
  return raw.prices.filter(([t]) => t % DAY === 0);
}

/** Independent SMA(10/30) crossover backtest over the last `w` closes (positions from the whole series). */
function smaCross(closes: number[], w: number): { total: number; trades: number; maxDd: number } {
  const avg = (i: number, n: number) => closes.slice(i - n + 1, i + 1).reduce((a, b) => a + b, 0) / n;
  const pos = closes.map((_, i) => (i >= 29 && avg(i, 10) > avg(i, 30) ? 1 : 0));
  const s = closes.length - w;
  let eq = 1;
  let peak = 1;
  let maxDd = 0;
  for (let t = s + 1; t < closes.length; t++) {
    const p1 = pos[t - 1]!;
    const p2 = t - 1 > s ? pos[t - 2]! : 0;
    eq *= 1 + p1 * (closes[t]! / closes[t - 1]! - 1) - 0.001 * Math.abs(p1 - p2);
    peak = Math.max(peak, eq);
    maxDd = Math.min(maxDd, eq / peak - 1);
  }
  let trades = 0;
  for (let t = s; t < closes.length - 1; t++) if (pos[t] === 1 && (t === s ? 0 : pos[t - 1]) === 0) trades++;
  return { total: (eq - 1) * 100, trades, maxDd: maxDd * 100 };
}

describe("GET /v1/screen", () => {
  it("screens the five default tickers over 3mo with buy-and-hold recomputed from raw closes", async () => {
    const out = await run<Out>(screen);
    expect(out.period).toBe("3mo");
    expect(out.tickers).toEqual(["XLM-USD", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD"]);
    expect(out.results.map((r) => r.ticker)).toEqual(out.tickers);
    expect(out.unavailable).toEqual([]);
    expect(out.assumptions).toMatchObject({ execution: "next_bar", cost_bps: 10, positions: "long_flat", periods_per_year: 365, warmup_days: 30 });

    const ids = { "XLM-USD": "stellar", "BTC-USD": "bitcoin", "ETH-USD": "ethereum", "SOL-USD": "solana", "ADA-USD": "cardano" } as const;
    for (const r of out.results) {
      const pts = await rawCloses(ids[r.ticker as keyof typeof ids], 120);
      const closes = pts.map(([, p]) => p);
      const win = closes.slice(-91);
      expect(r.window_closes).toBe(91);
      expect(r.warmup_closes).toBe(closes.length - 91);
      expect(r.window_start).toBe(new Date(pts[pts.length - 91]![0]).toISOString());
      expect(r.window_end).toBe(new Date(pts[pts.length - 1]![0]).toISOString());
      expect(Date.parse(r.window_end) - Date.parse(r.window_start)).toBe(90 * DAY);
      // Buy-and-hold: one entry at the first close paying 10 bp, then held.
      const c0 = win[0]!;
      const c1 = win[1]!;
      const cN = win[win.length - 1]!;
      const bh = ((c1 / c0 - 0.001) * (cN / c1) - 1) * 100;
      expect(Math.abs(r.buy_and_hold.total_return_pct - bh)).toBeLessThanOrEqual(0.006);
      expect(r.buy_and_hold.trades).toBe(1);
      expect(r.buy_and_hold.exposure_pct).toBe(100);
      expect(Math.abs(r.first_close_usd / c0 - 1)).toBeLessThan(1e-6); // 7 significant digits
      expect(Math.abs(r.last_close_usd / cN - 1)).toBeLessThan(1e-6);
      // SMA crossover recomputed independently, with warm-up before the window.
      const sma = smaCross(closes, 91);
      expect(Math.abs(r.strategies.sma_cross.total_return_pct - sma.total)).toBeLessThanOrEqual(0.006);
      expect(r.strategies.sma_cross.trades).toBe(sma.trades);
      expect(Math.abs(r.strategies.sma_cross.max_drawdown_pct - sma.maxDd)).toBeLessThanOrEqual(0.006);
      // Edges and the best strategy are consistent with the reported returns.
      for (const s of ["sma_cross", "rsi", "bollinger"] as const) {
        const m = r.strategies[s];
        expect(Math.abs(m.edge_pp - (m.total_return_pct - r.buy_and_hold.total_return_pct))).toBeLessThanOrEqual(0.011);
        expect(m.max_drawdown_pct).toBeLessThanOrEqual(0);
        expect(r.strategies[r.best_strategy as "rsi"].total_return_pct).toBeGreaterThanOrEqual(m.total_return_pct);
      }
      expect(r.best_edge_pp).toBe(r.strategies[r.best_strategy as "rsi"].edge_pp);
      expect(r.beats_buy_and_hold).toBe(r.best_edge_pp > 0);
    }
  });

  it("honours period and ticker choice (1mo, lower case, bare symbols)", async () => {
    const out = await run<Out>(screen, { tickers: "xlm,doge-usd", period: "1MO" });
    expect(out.period).toBe("1mo");
    expect(out.period_days).toBe(30);
    expect(out.tickers).toEqual(["XLM-USD", "DOGE-USD"]);
    const pts = await rawCloses("dogecoin", 60);
    const win = pts.slice(-31).map(([, p]) => p);
    const r = out.results[1]!;
    expect(r.window_closes).toBe(31);
    const bh = ((win[1]! / win[0]! - 0.001) * (win[30]! / win[1]!) - 1) * 100;
    expect(Math.abs(r.buy_and_hold.total_return_pct - bh)).toBeLessThanOrEqual(0.006);
    // With warm-up the SMA crossover can trade inside a 30-day window.
    const sma = smaCross(pts.map(([, p]) => p), 31);
    expect(Math.abs(r.strategies.sma_cross.total_return_pct - sma.total)).toBeLessThanOrEqual(0.006);
  });

  it("uses the 365 days the keyless tier allows for 1y (no warm-up)", async () => {
    const out = await run<Out>(screen, { tickers: "BTC-USD", period: "1y" });
    expect(out.assumptions.warmup_days).toBe(0);
    const r = out.results[0]!;
    const pts = await rawCloses("bitcoin", 365);
    expect(r.window_closes).toBe(pts.length);
    expect(r.warmup_closes).toBe(0);
    const c = pts.map(([, p]) => p);
    const bh = ((c[1]! / c[0]! - 0.001) * (c[c.length - 1]! / c[1]!) - 1) * 100;
    expect(Math.abs(r.buy_and_hold.total_return_pct - bh)).toBeLessThanOrEqual(0.006);
  });

  it("serves the other tickers when one asset's history fails", async () => {
    sim().setFault("coingecko", { mode: "error", pathPrefix: "/api/v3/coins/solana/" });
    const out = await run<Out>(screen);
    expect(out.results.map((r) => r.ticker)).toEqual(["XLM-USD", "BTC-USD", "ETH-USD", "ADA-USD"]);
    expect(out.unavailable).toEqual([{ ticker: "SOL-USD", reason: "coingecko http (HTTP 500)" }]);
  });

  it("degrades to named unavailable tickers when CoinGecko's keyless budget (5 a minute) runs out", async () => {
    sim().setRateLimit("coingecko", COINGECKO_KEYLESS_BUDGET);
    const tickers = ["XLM-USD", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD", "LINK-USD", "AVAX-USD", "DOGE-USD"];
    const out = await run<Out>(screen, { tickers: tickers.join(",") });
    expect(out.results).toHaveLength(5);
    expect(out.unavailable).toHaveLength(3);
    expect([...out.results.map((r) => r.ticker), ...out.unavailable.map((u) => u.ticker)].sort()).toEqual([...tickers].sort());
    for (const u of out.unavailable) expect(u.reason).toMatch(/^coingecko: rate limited \(HTTP 429\), retry after (59|60) s$/);
    // Requests stay within the limiter's bound (COINGECKO_MAX_CONCURRENCY, 3 by default).
    expect(sim().peakConcurrency("coingecko")).toBeLessThanOrEqual(3);
    // Retry-After (60 s) is beyond what a call waits: no history is asked for twice (no
    // retry). The five served and at least the first refusal reach CoinGecko; whether the
    // other tickers' requests were already in flight when that 429 came back, or were
    // failed without a request by the pause it set, depends on timing: 6 to 8 requests.
    const perHistory = Object.entries(sim().counts()).filter(([k]) => k.startsWith("coingecko ") && k.includes("/market_chart"));
    expect(perHistory.length).toBeGreaterThanOrEqual(6);
    for (const [key, n] of perHistory) expect(n, key).toBe(1);
    expect(sim().total("coingecko")).toBe(perHistory.length);
  });

  it("waits out a short Retry-After and completes the screen with one retry per refused ticker", async () => {
    sim().setRateLimit("coingecko", { limit: 3, windowMs: 2_500 });
    const out = await run<Out>(screen);
    expect(out.results.map((r) => r.ticker)).toEqual(out.tickers);
    expect(out.unavailable).toEqual([]);
    // 3 served, then the 4th refused (Retry-After: 3) and retried once after the pause; the
    // 5th is refused and retried too if it was in flight when that 429 came back, or waits
    // out the pause and goes once: 6 or 7 requests, never a second retry.
    const perHistory = Object.entries(sim().counts()).filter(([k]) => k.startsWith("coingecko ")).map(([, n]) => n);
    expect(perHistory).toHaveLength(5);
    expect(perHistory.every((n) => n === 1 || n === 2)).toBe(true);
    expect(perHistory.filter((n) => n === 2).length).toBeGreaterThanOrEqual(1);
    expect(sim().total("coingecko")).toBe(perHistory.reduce((a, b) => a + b, 0));
  });

  it("is unavailable when every history fails", async () => {
    sim().setFault("coingecko", { mode: "error", status: 503 });
    await expect(run(screen, { tickers: "XLM-USD,BTC-USD" })).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("coingecko", { mode: "malformed" });
    await expect(run(screen, { tickers: "XLM-USD" })).rejects.toMatchObject({ status: 503, code: "upstream_unavailable" });
  });

  it("answers 422 with pydantic-style details for bad parameters", () => {
    const supported = SUPPORTED_TICKERS.join(", ");
    expect(detailOf(screen, { tickers: "XLM-USD,FOO-USD" })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: `Value error, unsupported ticker 'FOO-USD'; supported: ${supported}`,
        type: "value_error",
        input: "XLM-USD,FOO-USD",
        ctx: { error: `unsupported ticker 'FOO-USD'; supported: ${supported}` },
      },
    ]);
    const eleven = SUPPORTED_TICKERS.slice(0, 11).join(",");
    expect(detailOf(screen, { tickers: eleven })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: "List should have at most 10 items after validation, not 11",
        type: "too_long",
        input: eleven,
        ctx: { field_type: "List", max_length: 10, actual_length: 11 },
      },
    ]);
    expect(detailOf(screen, { period: "2y" })).toEqual([
      {
        loc: ["query", "period"],
        msg: "Input should be '1mo', '3mo', '6mo' or '1y'",
        type: "literal_error",
        input: "2y",
        ctx: { expected: "'1mo', '3mo', '6mo' or '1y'" },
      },
    ]);
    expect(detailOf(screen, { tickers: " , " })).toEqual([
      {
        loc: ["query", "tickers"],
        msg: "List should have at least 1 item after validation, not 0",
        type: "too_short",
        input: " , ",
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it("fetches each history once for concurrent callers, in parallel", async () => {
    await Promise.all(Array.from({ length: 20 }, () => run(screen)));
    expect(sim().total("coingecko")).toBe(5);
  });

  it("accepts exactly 10 tickers and reads duplicates once", async () => {
    const ten = SUPPORTED_TICKERS.slice(0, 10).join(",");
    const out = await run<Out>(screen, { tickers: `${ten},XLM-USD`, period: "1mo" });
    expect(out.results).toHaveLength(10);
  });
});
