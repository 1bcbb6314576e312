// GET /v1/screen — SMA / RSI / Bollinger backtests vs buy-and-hold over chosen tickers.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { screenWindow, ACTIVE_STRATEGIES } from "@/lib/market/signals/markets-window";
import { periodDays, type Ticker } from "@/lib/market/tickers";
import { MAX_TICKERS, periodParam, tickersParam } from "@/lib/catalog/products/markets/params";
import { historyDays, loadHistories, type Unavailable } from "@/lib/catalog/products/markets/history";
import { dp, sig } from "@/lib/catalog/products/markets/format";
import {
  assumptions,
  assumptionsSchema,
  BACKTEST_OPTS,
  metricsOut,
  metricsSchema,
  screenEnvelope,
} from "@/lib/catalog/products/markets/backtest-output";

const DEFAULT_TICKERS: Ticker[] = ["XLM-USD", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD"];

const strategyName = z.enum(ACTIVE_STRATEGIES);
const strategySchema = metricsSchema.extend({
  edge_pp: z.number().describe("Total return minus buy-and-hold's total return, percentage points"),
});

const resultSchema = z.object({
  ticker: z.string().describe("Ticker, <SYMBOL>-USD"),
  coingecko_id: z.string().describe("CoinGecko coin id the history came from"),
  window_start: z.string().describe("Date of the window's first close (ISO 8601, 00:00 UTC)"),
  window_end: z.string().describe("Date of the window's last close (ISO 8601, 00:00 UTC)"),
  window_closes: z.number().int().describe("Daily closes in the window (returns = closes - 1)"),
  warmup_closes: z.number().int().describe("Closes before the window used only to warm the indicators up"),
  first_close_usd: z.number().describe("Close at the window start, USD"),
  last_close_usd: z.number().describe("Close at the window end, USD"),
  buy_and_hold: metricsSchema.describe("Buy-and-hold benchmark over the window"),
  strategies: z
    .object({ sma_cross: strategySchema, rsi: strategySchema, bollinger: strategySchema })
    .describe("Backtest of each strategy over the window"),
  best_strategy: strategyName.describe("Strategy with the highest total return over the window"),
  best_edge_pp: z.number().describe("Best strategy's total return minus buy-and-hold's, percentage points"),
  beats_buy_and_hold: z.boolean().describe("Whether the best strategy returned more than buy-and-hold"),
});

export const screen = defineProduct({
  id: "screen",
  path: "/v1/screen",
  title: "Strategy screen",
  description: `Parameterized strategy screen over caller-chosen tickers (at most ${MAX_TICKERS}): SMA(10/30) crossover, Wilder RSI(14) and Bollinger(20, 2) daily backtests against buy-and-hold with total and annualised return, max drawdown, Sharpe, win rate, trades, edge in percentage points and the best strategy per ticker. Next-bar execution, ${BACKTEST_OPTS.costBps} bp per position change, long/flat.`,
  tags: ["markets", "backtest", "screen"],
  kind: "data",
  httpPrice: "0.01",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    tickers: tickersParam(DEFAULT_TICKERS),
    period: periodParam,
  },
  output: z.object({
    ...screenEnvelope,
    results: z.array(resultSchema).describe("One screen per ticker that could be served, in request order"),
    assumptions: assumptionsSchema.describe("Backtest assumptions"),
  }),
  example: {
    period: "3mo",
    period_days: 90,
    tickers: ["XLM-USD", "BTC-USD"],
    unavailable: [],
    source: "coingecko",
    ts: "2026-11-26T19:18:46.195Z",
    results: [
      {
        ticker: "XLM-USD",
        coingecko_id: "stellar",
        window_start: "2026-08-28T00:00:00.000Z",
        window_end: "2026-11-26T00:00:00.000Z",
        window_closes: 91,
        warmup_closes: 29,
        first_close_usd: 0.3777601,
        last_close_usd: 0.3988234,
        buy_and_hold: {
          total_return_pct: 5.46,
          annualized_return_pct: 24.07,
          max_drawdown_pct: -31.78,
          sharpe: 0.69,
          win_rate_pct: 53.3,
          trades: 1,
          exposure_pct: 100,
        },
        strategies: {
          sma_cross: {
            total_return_pct: -23.35,
            annualized_return_pct: -65.98,
            max_drawdown_pct: -34.8,
            sharpe: -1.06,
            win_rate_pct: 50,
            trades: 3,
            exposure_pct: 73.3,
            edge_pp: -28.81,
          },
          rsi: {
            total_return_pct: 0,
            annualized_return_pct: 0,
            max_drawdown_pct: 0,
            sharpe: 0,
            win_rate_pct: 0,
            trades: 0,
            exposure_pct: 0,
            edge_pp: -5.46,
          },
          bollinger: {
            total_return_pct: 0,
            annualized_return_pct: 0,
            max_drawdown_pct: 0,
            sharpe: 0,
            win_rate_pct: 0,
            trades: 0,
            exposure_pct: 0,
            edge_pp: -5.46,
          },
        },
        best_strategy: "rsi",
        best_edge_pp: -5.46,
        beats_buy_and_hold: false,
      },
    ],
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
  // Daily closes change once a day; 5 minutes keeps repeated screens cheap and fresh enough.
  cacheTtlSeconds: 300,
  sources: ["coingecko"],
  handler: async ({ tickers, period }, ctx) => {
    const { ok, unavailable } = await loadHistories(tickers, period);
    const missing: Unavailable[] = unavailable; // already in request order
    const results: z.input<typeof resultSchema>[] = [];
    for (const h of ok) {
      const s = screenWindow(h.closes, h.windowCloses, BACKTEST_OPTS);
      const start = s.warmupBars;
      const strategies = Object.fromEntries(
        ACTIVE_STRATEGIES.map((n) => [n, { ...metricsOut(s.strategies[n]), edge_pp: dp(s.strategies[n].edgePp, 2) }]),
      ) as z.input<typeof resultSchema>["strategies"];
      results.push({
        ticker: h.ticker,
        coingecko_id: h.id,
        window_start: new Date(h.times[start]!).toISOString(),
        window_end: new Date(h.times[h.times.length - 1]!).toISOString(),
        window_closes: h.closes.length - start,
        warmup_closes: start,
        first_close_usd: sig(h.closes[start]!),
        last_close_usd: sig(h.closes[h.closes.length - 1]!),
        buy_and_hold: metricsOut(s.buyAndHold),
        strategies,
        best_strategy: s.best,
        best_edge_pp: dp(s.bestEdgePp, 2),
        beats_buy_and_hold: s.bestEdgePp > 0,
      });
    }
    if (results.length === 0) {
      throw new UnavailableError(`Strategy screen is unavailable: no history could be loaded (${missing.map((m) => `${m.ticker}: ${m.reason}`).join("; ")}).`, {
        sources: ["coingecko"],
      });
    }
    return {
      period,
      period_days: periodDays(period),
      tickers,
      results,
      unavailable: missing,
      assumptions: assumptions(historyDays(period) - periodDays(period)),
      source: "coingecko" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
