/**
 * Strategy screen over a trailing window with indicator warm-up. `screenStrategies`
 * computes indicators on the same closes it scores, so SMA(30) is flat for the first 29
 * bars of the window while buy-and-hold is invested: the comparison is biased, and a 1mo
 * window never sees an SMA cross at all. Here the positions are computed on the whole
 * series (warm-up bars + window) and only the window's bars are scored, with the same
 * engine (`runBacktest`: next-bar execution, cost per position change, long/flat).
 */
import {
  bollingerPositions,
  buyAndHold,
  InsufficientHistoryError,
  rsiPositions,
  runBacktest,
  smaCrossPositions,
  type BacktestMetrics,
  type BacktestOptions,
} from "./backtest";

export const ACTIVE_STRATEGIES = ["sma_cross", "rsi", "bollinger"] as const;
export type ActiveStrategy = (typeof ACTIVE_STRATEGIES)[number];

export type WindowScreen = {
  /** Metrics per active strategy, scored over the window only. */
  strategies: Record<ActiveStrategy, BacktestMetrics & { edgePp: number }>;
  /** Buy-and-hold over the same window (one entry at the window's first close). */
  buyAndHold: BacktestMetrics;
  /** Active strategy with the highest total return (ties: sma_cross, rsi, bollinger). */
  best: ActiveStrategy;
  /** Best active strategy's total return minus buy-and-hold's, percentage points. */
  bestEdgePp: number;
  /** Closes before the window used only to warm the indicators up. */
  warmupBars: number;
};

/**
 * Screens SMA(10/30), stateful RSI(14, 30/70) and stateful Bollinger(20, 2) against
 * buy-and-hold over the last `windowCloses` closes of `closes`; earlier closes only warm
 * the indicators up (a position held at the window start enters at its first close and
 * pays the entry cost, like buy-and-hold). Throws InsufficientHistoryError when fewer
 * than 2 window closes exist.
 */
export function screenWindow(closes: number[], windowCloses: number, opts: BacktestOptions = {}): WindowScreen {
  const w = Math.min(windowCloses, closes.length);
  if (w < 2) throw new InsufficientHistoryError(2, w);
  const start = closes.length - w;
  const win = closes.slice(start);
  const positions: Record<ActiveStrategy, number[]> = {
    sma_cross: smaCrossPositions(closes, 10, 30),
    rsi: rsiPositions(closes, { period: 14, enter: 30, exit: 70 }),
    bollinger: bollingerPositions(closes, { period: 20, k: 2 }),
  };
  const bh = buyAndHold(win, opts);
  const strategies = {} as WindowScreen["strategies"];
  let best: ActiveStrategy = "sma_cross";
  for (const name of ACTIVE_STRATEGIES) {
    const m = runBacktest(win, positions[name].slice(start), opts);
    strategies[name] = { ...m, edgePp: m.totalReturnPct - bh.totalReturnPct };
    if (m.totalReturnPct > strategies[best].totalReturnPct) best = name;
  }
  return { strategies, buyAndHold: bh, best, bestEdgePp: strategies[best].edgePp, warmupBars: start };
}
