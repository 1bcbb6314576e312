/** Output pieces shared by the history-based markets products (/v1/screen, /v1/multi-asset). */
import { z } from "zod";
import type { BacktestMetrics } from "@/lib/market/signals/backtest";
import { dp } from "@/lib/catalog/products/markets/format";

/** Engine settings: every strategy pays this per position change (entry or exit). */
export const COST_BPS = 10;
/** Crypto trades every day of the year. */
export const PERIODS_PER_YEAR = 365;
export const BACKTEST_OPTS = { costBps: COST_BPS, periodsPerYear: PERIODS_PER_YEAR };

export const metricsSchema = z.object({
  total_return_pct: z.number().describe("Compounded return over the window, percent, after costs"),
  annualized_return_pct: z.number().describe("Total return annualised over 365 days per year, percent (noisy on short windows)"),
  max_drawdown_pct: z.number().describe("Worst peak-to-trough fall of the equity curve, percent (0 or negative)"),
  sharpe: z.number().describe("Mean / sample std of daily strategy returns x sqrt(365); 0 when returns are constant"),
  win_rate_pct: z.number().describe("Share of invested days with a positive net return, percent; 0 when never invested"),
  trades: z.number().int().describe("Entries (flat to long) that took effect in the window"),
  exposure_pct: z.number().describe("Share of days invested, percent"),
});

/** Rounded snake_case view of the engine's metrics. */
export function metricsOut(m: BacktestMetrics): z.infer<typeof metricsSchema> {
  return {
    total_return_pct: dp(m.totalReturnPct, 2),
    annualized_return_pct: dp(m.annualizedReturnPct, 2),
    max_drawdown_pct: dp(m.maxDrawdownPct, 2),
    sharpe: dp(m.sharpe, 2),
    win_rate_pct: dp(m.winRatePct, 1),
    trades: m.trades,
    exposure_pct: dp(m.exposurePct, 1),
  };
}

export const STRATEGY_NOTES = {
  sma_cross: "SMA(10) / SMA(30) crossover: long while SMA10 > SMA30, flat otherwise",
  rsi: "Wilder RSI(14), stateful: enter when RSI < 30, exit when RSI > 70, hold in between",
  bollinger: "Bollinger(20, 2, population sigma), stateful: enter below the lower band, exit above the middle band, hold in between",
  buy_and_hold: "Long from the window's first close to its last",
} as const;

export const assumptionsSchema = z.object({
  execution: z.literal("next_bar").describe("A position decided at a daily close takes effect on the next day's return"),
  cost_bps: z.number().describe("Cost in basis points charged per position change (each entry and each exit)"),
  positions: z.literal("long_flat").describe("Strategies are either fully long or flat; no shorting, no leverage"),
  periods_per_year: z.number().int().describe("Days per year used to annualise returns and Sharpe"),
  bars: z.literal("daily_close_00utc").describe("Daily closes at 00:00 UTC from CoinGecko market_chart (the partial current day is dropped)"),
  warmup_days: z.number().int().describe("Days fetched before the window only to warm the indicators up (fewer for 1y: CoinGecko's keyless tier serves 365 days)"),
  strategies: z.record(z.string(), z.string()).describe("Rules of each strategy"),
});

/** The backtest assumptions block both products print. */
export function assumptions(warmupDays: number): z.infer<typeof assumptionsSchema> {
  return {
    execution: "next_bar",
    cost_bps: COST_BPS,
    positions: "long_flat",
    periods_per_year: PERIODS_PER_YEAR,
    bars: "daily_close_00utc",
    warmup_days: warmupDays,
    strategies: { ...STRATEGY_NOTES },
  };
}

export const unavailableSchema = z
  .array(z.object({ ticker: z.string().describe("Requested ticker"), reason: z.string().describe("Why its history could not be used") }))
  .describe("Requested tickers that could not be screened (served results cover the rest); empty when complete");

/** Output fields every screen shares: what was asked, what could not be served, and how. */
export const screenEnvelope = {
  period: z.string().describe("Requested period (1mo, 3mo, 6mo, 1y)"),
  period_days: z.number().int().describe("Days in the period's window"),
  tickers: z.array(z.string()).describe("Tickers requested, normalised, in request order"),
  unavailable: unavailableSchema,
  source: z.literal("coingecko").describe("Upstream provider of the daily closes"),
  ts: z.string().describe("Time the response was computed (ISO 8601)"),
};
