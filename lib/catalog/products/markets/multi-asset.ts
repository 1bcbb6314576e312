// GET /v1/multi-asset — trailing return, momentum and strategy edge, ranked across assets.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { momentumPct, rankAssets, trailingReturnPct } from "@/lib/market/signals/backtest";
import { ACTIVE_STRATEGIES, screenWindow } from "@/lib/market/signals/markets-window";
import { periodDays, type Ticker } from "@/lib/market/tickers";
import { periodParam, tickersParam } from "@/lib/catalog/products/markets/params";
import { historyDays, loadHistories } from "@/lib/catalog/products/markets/history";
import { dp, dpOrNull, sig } from "@/lib/catalog/products/markets/format";
import { assumptions, assumptionsSchema, BACKTEST_OPTS, screenEnvelope } from "@/lib/catalog/products/markets/backtest-output";

const DEFAULT_TICKERS: Ticker[] = ["XLM-USD", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD", "LINK-USD", "AVAX-USD", "DOGE-USD"];

/** Momentum lookbacks in days; the shorter one feeds the ranking (recent trend). */
const MOMENTUM_SHORT = 14;
const MOMENTUM_LONG = 30;

const momentumOrNull = (closes: number[], n: number) => (closes.length > n ? momentumPct(closes, n) : null);

const assetSchema = z.object({
  rank: z.number().int().describe("Rank by score, 1 = strongest"),
  ticker: z.string().describe("Ticker, <SYMBOL>-USD"),
  coingecko_id: z.string().describe("CoinGecko coin id the history came from"),
  last_close_usd: z.number().describe("Latest daily close (00:00 UTC), USD"),
  trailing_return_pct: z.number().describe("Price return over the period's window (last close / first close - 1), percent"),
  buy_and_hold_return_pct: z.number().describe("Buy-and-hold backtest return over the window after the 10 bp entry cost, percent"),
  momentum_14d_pct: z.number().nullable().describe("Return over the last 14 days, percent; null when history is shorter"),
  momentum_30d_pct: z.number().nullable().describe("Return over the last 30 days, percent; null when history is shorter"),
  best_strategy: z.enum(ACTIVE_STRATEGIES).describe("Best of SMA(10/30), RSI(14) and Bollinger(20, 2) over the window"),
  best_strategy_return_pct: z.number().describe("Best strategy's total return over the window, percent"),
  strategy_edge_pp: z.number().describe("Best strategy's return minus buy-and-hold's, percentage points"),
  score: z.number().describe("Ranking score in (-1, 1): 0.4 tanh(trailing/20) + 0.4 tanh(momentum14/10) + 0.2 tanh(edge/10)"),
  verdict: z.enum(["overweight", "neutral", "underweight"]).describe("overweight when score >= 0.2, underweight when <= -0.2, else neutral"),
});

export const multiAsset = defineProduct({
  id: "multi-asset",
  path: "/v1/multi-asset",
  title: "Multi-asset strategy screen",
  description:
    "Screen across up to 10 assets (8 by default): trailing return over the period versus buy-and-hold and the best of SMA / RSI / Bollinger strategies, 14- and 30-day momentum, and a ranked overweight / neutral / underweight verdict per asset.",
  tags: ["markets", "screen", "multi-asset"],
  kind: "data",
  httpPrice: "0.005",
  tool: { name: "screen_multi_asset_strategy", price: "0.10", label: "Multi-asset strategy screen" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    tickers: tickersParam(DEFAULT_TICKERS),
    period: periodParam,
  },
  output: z.object({
    ...screenEnvelope,
    assets: z.array(assetSchema).describe("Served assets, best-ranked first"),
    leader: z.string().describe("Ticker ranked first"),
    laggard: z.string().describe("Ticker ranked last"),
    assumptions: assumptionsSchema.describe("Backtest assumptions behind the strategy figures"),
  }),
  example: {
    period: "3mo",
    period_days: 90,
    tickers: ["XLM-USD", "BTC-USD"],
    unavailable: [],
    source: "coingecko",
    ts: "2026-11-26T19:18:46.034Z",
    assets: [
      {
        rank: 1,
        ticker: "AVAX-USD",
        coingecko_id: "avalanche-2",
        last_close_usd: 38.57889,
        trailing_return_pct: 57.24,
        buy_and_hold_return_pct: 57.08,
        momentum_14d_pct: 10.74,
        momentum_30d_pct: -11.31,
        best_strategy: "rsi",
        best_strategy_return_pct: 84.8,
        strategy_edge_pp: 27.72,
        score: 0.9122,
        verdict: "overweight",
      },
    ],
    leader: "AVAX-USD",
    laggard: "DOGE-USD",
    assumptions: {
      execution: "next_bar",
      cost_bps: 10,
      positions: "long_flat",
      periods_per_year: 365,
      bars: "daily_close_00utc",
      warmup_days: 30,
      strategies: {
        sma_cross: "SMA(10) / SMA(30) crossover: long while SMA10 > SMA30, flat otherwise",
        rsi: "Wilder RSI(14), stateful: enter when RSI < 30, exit when RSI > 70, hold in between",
        bollinger: "Bollinger(20, 2, population sigma), stateful: enter below the lower band, exit above the middle band, hold in between",
        buy_and_hold: "Long from the window's first close to its last",
      },
    },
  },
  // History-based: daily closes change once a day.
  cacheTtlSeconds: 300,
  sources: ["coingecko"],
  handler: async ({ tickers, period }, ctx) => {
    const { ok, unavailable } = await loadHistories(tickers, period);
    if (ok.length === 0) {
      throw new UnavailableError(`Multi-asset screen is unavailable: no history could be loaded (${unavailable.map((m) => `${m.ticker}: ${m.reason}`).join("; ")}).`, {
        sources: ["coingecko"],
      });
    }
    const rows = ok.map((h) => {
      const s = screenWindow(h.closes, h.windowCloses, BACKTEST_OPTS);
      const m14 = momentumOrNull(h.closes, MOMENTUM_SHORT);
      return {
        ticker: h.ticker as string,
        id: h.id,
        lastClose: h.closes[h.closes.length - 1]!,
        trailingReturnPct: trailingReturnPct(h.closes.slice(s.warmupBars)),
        buyAndHoldPct: s.buyAndHold.totalReturnPct,
        m14,
        m30: momentumOrNull(h.closes, MOMENTUM_LONG),
        // rankAssets counts a non-finite input as 0: unknown momentum is neutral.
        momentumPct: m14 ?? Number.NaN,
        best: s.best,
        bestReturnPct: s.strategies[s.best].totalReturnPct,
        strategyEdgePp: s.bestEdgePp,
      };
    });
    const ranked = rankAssets(rows);
    return {
      period,
      period_days: periodDays(period),
      tickers,
      assets: ranked.map((r) => ({
        rank: r.rank,
        ticker: r.ticker,
        coingecko_id: r.id,
        last_close_usd: sig(r.lastClose),
        trailing_return_pct: dp(r.trailingReturnPct, 2),
        buy_and_hold_return_pct: dp(r.buyAndHoldPct, 2),
        momentum_14d_pct: dpOrNull(r.m14, 2),
        momentum_30d_pct: dpOrNull(r.m30, 2),
        best_strategy: r.best,
        best_strategy_return_pct: dp(r.bestReturnPct, 2),
        strategy_edge_pp: dp(r.strategyEdgePp, 2),
        score: r.score,
        verdict: r.verdict,
      })),
      unavailable,
      leader: ranked[0]!.ticker,
      laggard: ranked[ranked.length - 1]!.ticker,
      assumptions: assumptions(historyDays(period) - periodDays(period)),
      source: "coingecko" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
