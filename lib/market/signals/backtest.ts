/**
 * Daily-close indicators, strategy position generators and a backtest engine
 * (upstreams.md §13). Fixes the prototype's errors:
 *   1. RSI uses Wilder smoothing (the prototype used simple rolling means = Cutler's RSI;
 *      `cutlerRsi` is kept only to show the difference).
 *   2. RSI and Bollinger positions are STATEFUL: enter on the signal, hold until the exit
 *      signal (the prototype was long only on the days the condition held).
 *   3. Annualisation uses 365 periods (crypto trades every day), not 252.
 *   4. `trades` counts entries only (the prototype counted every position change).
 *   5. Bollinger bands use the population σ (divide by n), not the sample σ.
 */
import { assertPositiveInt, isFiniteNumber, mean, round, stdDev } from "./math";
import { brand } from "@/lib/errors/brand";

/** Thrown when a series is too short for the requested calculation. */
export class InsufficientHistoryError extends Error {
  readonly code = "insufficient_history" as const;
  readonly needed: number;
  readonly got: number;
  constructor(needed: number, got: number, what = "closes") {
    super(`insufficient history: need at least ${needed} ${what}, got ${got}`);
    this.name = "InsufficientHistoryError";
    this.needed = needed;
    this.got = got;
  }
}
brand(InsufficientHistoryError, "InsufficientHistoryError");

// ---------------------------------------------------------------------------------------
// Indicators
// ---------------------------------------------------------------------------------------

/** Simple moving average; null until `n` values are available (index < n − 1). */
export function sma(values: number[], n: number): (number | null)[] {
  assertPositiveInt(n, "sma window");
  const out: (number | null)[] = new Array<number | null>(values.length).fill(null);
  for (let i = n - 1; i < values.length; i++) {
    let s = 0;
    // Re-sum each window instead of a running sum so no floating-point drift accumulates.
    for (let j = i - n + 1; j <= i; j++) s += values[j] as number;
    out[i] = s / n;
  }
  return out;
}

function rsiFromAverages(avgGain: number, avgLoss: number): number {
  // upstreams.md §13: RSI is 100 whenever avgL = 0, a perfectly flat window included
  // (no loss at all reads as maximally overbought, as in Wilder's definition).
  if (avgLoss === 0) return 100;
  return 100 - 100 / (1 + avgGain / avgLoss);
}

function gainsAndLosses(closes: number[]): { g: number[]; l: number[] } {
  // g[i], l[i] belong to the change from closes[i-1] to closes[i]; index 0 is unused.
  const g = [0];
  const l = [0];
  for (let i = 1; i < closes.length; i++) {
    const d = (closes[i] as number) - (closes[i - 1] as number);
    g.push(Math.max(d, 0));
    l.push(Math.max(-d, 0));
  }
  return { g, l };
}

/**
 * Wilder's RSI. Gains G = max(Δc, 0), losses L = max(−Δc, 0). Both averages are seeded
 * with the plain mean of the first n changes (available at index n), then smoothed:
 * avg = (prev·(n−1) + x) / n. RSI = 100 − 100/(1 + avgG/avgL); 100 when avgL = 0,
 * a perfectly flat window included (upstreams.md §13). Null before index n.
 */
export function wilderRsi(closes: number[], n = 14): (number | null)[] {
  assertPositiveInt(n, "rsi period");
  const out: (number | null)[] = new Array<number | null>(closes.length).fill(null);
  if (closes.length <= n) return out;
  const { g, l } = gainsAndLosses(closes);
  let avgG = 0;
  let avgL = 0;
  for (let i = 1; i <= n; i++) {
    avgG += g[i] as number;
    avgL += l[i] as number;
  }
  avgG /= n;
  avgL /= n;
  out[n] = rsiFromAverages(avgG, avgL);
  for (let i = n + 1; i < closes.length; i++) {
    avgG = (avgG * (n - 1) + (g[i] as number)) / n;
    avgL = (avgL * (n - 1) + (l[i] as number)) / n;
    out[i] = rsiFromAverages(avgG, avgL);
  }
  return out;
}

/**
 * Cutler's RSI (simple rolling means of the last n gains/losses) — what the prototype
 * computed. Exported only so tests and docs can show it differs from {@link wilderRsi};
 * do not use it for signals.
 */
export function cutlerRsi(closes: number[], n = 14): (number | null)[] {
  assertPositiveInt(n, "rsi period");
  const out: (number | null)[] = new Array<number | null>(closes.length).fill(null);
  const { g, l } = gainsAndLosses(closes);
  for (let i = n; i < closes.length; i++) {
    let sg = 0;
    let sl = 0;
    for (let j = i - n + 1; j <= i; j++) {
      sg += g[j] as number;
      sl += l[j] as number;
    }
    out[i] = rsiFromAverages(sg / n, sl / n);
  }
  return out;
}

export type Band = { mid: number; upper: number; lower: number };

/**
 * Bollinger bands: mid = SMA(n), upper/lower = mid ± k·σ with σ the POPULATION standard
 * deviation of the same n closes (divide by n). Null before index n − 1.
 */
export function bollinger(closes: number[], n = 20, k = 2): Array<Band | null> {
  assertPositiveInt(n, "bollinger period");
  const out: Array<Band | null> = new Array<Band | null>(closes.length).fill(null);
  for (let i = n - 1; i < closes.length; i++) {
    const w = closes.slice(i - n + 1, i + 1);
    const m = mean(w) as number;
    const sd = stdDev(w, 0);
    out[i] = { mid: m, upper: m + k * sd, lower: m - k * sd };
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Position generators: value at index t is the position decided at the close of bar t
// (it takes effect on bar t + 1 in runBacktest).
// ---------------------------------------------------------------------------------------

/** Long (1) while SMA(fast) > SMA(slow), flat (0) otherwise or while either is undefined. */
export function smaCrossPositions(closes: number[], fast = 10, slow = 30): number[] {
  const f = sma(closes, fast);
  const s = sma(closes, slow);
  return closes.map((_, i) => {
    const a = f[i];
    const b = s[i];
    return a != null && b != null && a > b ? 1 : 0;
  });
}

/**
 * Stateful RSI mean-reversion: enter when RSI < `enter` (30), exit when RSI > `exit` (70),
 * HOLD the current position in between (and while RSI is undefined, i.e. stay flat).
 */
export function rsiPositions(closes: number[], opts: { period?: number; enter?: number; exit?: number } = {}): number[] {
  const { period = 14, enter = 30, exit = 70 } = opts;
  const rsi = wilderRsi(closes, period);
  let state = 0;
  return rsi.map((r) => {
    if (r != null) {
      if (state === 0 && r < enter) state = 1;
      else if (state === 1 && r > exit) state = 0;
    }
    return state;
  });
}

/**
 * Stateful Bollinger mean-reversion: enter when the close is below the lower band, exit
 * when it is above the middle band, HOLD in between.
 */
export function bollingerPositions(closes: number[], opts: { period?: number; k?: number } = {}): number[] {
  const { period = 20, k = 2 } = opts;
  const bands = bollinger(closes, period, k);
  let state = 0;
  return closes.map((c, i) => {
    const b = bands[i];
    if (b) {
      if (state === 0 && c < b.lower) state = 1;
      else if (state === 1 && c > b.mid) state = 0;
    }
    return state;
  });
}

// ---------------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------------

export type BacktestOptions = { costBps?: number; periodsPerYear?: number };

export type BacktestMetrics = {
  /** (final equity − 1) · 100 */
  totalReturnPct: number;
  /** (equity^(periodsPerYear / bars) − 1) · 100; −100 if equity hit 0. */
  annualizedReturnPct: number;
  /** min(equity / running peak − 1) · 100 — reported as a negative number (or 0). */
  maxDrawdownPct: number;
  /** mean / sample-std of per-bar strategy returns · √periodsPerYear; 0 when std ≈ 0. */
  sharpe: number;
  /** Share of in-market bars (pos_{t−1} ≠ 0) whose net return was > 0; 0 when never in. */
  winRatePct: number;
  /** Number of entries (flat → long transitions) that took effect within the data. */
  trades: number;
  /** In-market bars / bars · 100. */
  exposurePct: number;
  /** Number of return periods = closes.length − 1. */
  bars: number;
  finalEquity: number;
};

/**
 * Vectorless backtest on closes with positions decided at each close.
 *
 * r_t = c_t / c_{t−1} − 1 for t = 1..N−1, and
 * r_strat_t = pos_{t−1} · r_t − cost · |pos_{t−1} − pos_{t−2}|  (pos_{−1} = 0)
 * so a position acts on the NEXT bar and the switching cost (default 10 bps) is charged
 * on the bar where the new position takes effect. A position decided at the last close
 * never takes effect and is not charged. Throws InsufficientHistoryError for < 2 closes
 * and RangeError for mismatched lengths or non-positive/non-finite closes.
 */
export function runBacktest(closes: number[], positions: number[], opts: BacktestOptions = {}): BacktestMetrics {
  if (closes.length < 2) throw new InsufficientHistoryError(2, closes.length);
  if (positions.length !== closes.length) {
    throw new RangeError(`positions (${positions.length}) must have the same length as closes (${closes.length})`);
  }
  for (const c of closes) if (!(isFiniteNumber(c) && c > 0)) throw new RangeError(`closes must be finite and > 0, got ${c}`);
  for (const p of positions) if (!isFiniteNumber(p)) throw new RangeError(`positions must be finite, got ${p}`);
  const cost = (opts.costBps ?? 10) / 10_000;
  const ppy = opts.periodsPerYear ?? 365;

  const bars = closes.length - 1;
  const strat: number[] = [];
  let inMarket = 0;
  let wins = 0;
  let eq = 1;
  let peak = 1;
  let maxDd = 0;
  for (let t = 1; t < closes.length; t++) {
    const p1 = positions[t - 1] as number;
    const p2 = t >= 2 ? (positions[t - 2] as number) : 0;
    const r = (closes[t] as number) / (closes[t - 1] as number) - 1;
    const s = p1 * r - cost * Math.abs(p1 - p2);
    strat.push(s);
    if (p1 !== 0) {
      inMarket += 1;
      if (s > 0) wins += 1;
    }
    eq *= 1 + s;
    peak = Math.max(peak, eq);
    maxDd = Math.min(maxDd, eq / peak - 1);
  }
  let trades = 0;
  for (let t = 0; t < closes.length - 1; t++) {
    const prev = t === 0 ? 0 : (positions[t - 1] as number);
    if ((positions[t] as number) > 0 && prev <= 0) trades += 1;
  }
  const m = mean(strat) as number;
  const sd = stdDev(strat, 1);
  // A (near-)constant return series has no measurable risk; report 0, not ±∞.
  const sharpe = sd > 1e-12 ? (m / sd) * Math.sqrt(ppy) : 0;
  return {
    totalReturnPct: (eq - 1) * 100,
    annualizedReturnPct: eq > 0 ? (eq ** (ppy / bars) - 1) * 100 : -100,
    maxDrawdownPct: maxDd * 100,
    sharpe,
    winRatePct: inMarket > 0 ? (wins / inMarket) * 100 : 0,
    trades,
    exposurePct: (inMarket / bars) * 100,
    bars,
    finalEquity: eq,
  };
}

/** Buy-and-hold benchmark: position 1 on every bar (one entry, entry cost charged). */
export function buyAndHold(closes: number[], opts: BacktestOptions = {}): BacktestMetrics {
  return runBacktest(closes, closes.map(() => 1), opts);
}

export type StrategyName = "sma_cross" | "rsi" | "bollinger" | "buy_and_hold";

export type StrategyScreen = {
  sma_cross: BacktestMetrics;
  rsi: BacktestMetrics;
  bollinger: BacktestMetrics;
  buy_and_hold: BacktestMetrics;
  /** Highest total return; ties go to the earlier name in sma_cross, rsi, bollinger, buy_and_hold. */
  best: StrategyName;
  /** totalReturnPct − buy_and_hold.totalReturnPct, in percentage points. */
  vsBuyAndHoldPp: Record<StrategyName, number>;
};

/** Run SMA(10/30), RSI(14, 30/70) and Bollinger(20, 2) against buy-and-hold. */
export function screenStrategies(closes: number[], opts: BacktestOptions = {}): StrategyScreen {
  const res: Record<StrategyName, BacktestMetrics> = {
    sma_cross: runBacktest(closes, smaCrossPositions(closes), opts),
    rsi: runBacktest(closes, rsiPositions(closes), opts),
    bollinger: runBacktest(closes, bollingerPositions(closes), opts),
    buy_and_hold: buyAndHold(closes, opts),
  };
  const names: StrategyName[] = ["sma_cross", "rsi", "bollinger", "buy_and_hold"];
  let best: StrategyName = "sma_cross";
  for (const n of names) if (res[n].totalReturnPct > res[best].totalReturnPct) best = n;
  const bh = res.buy_and_hold.totalReturnPct;
  const vs = {} as Record<StrategyName, number>;
  for (const n of names) vs[n] = res[n].totalReturnPct - bh;
  return { ...res, best, vsBuyAndHoldPp: vs };
}

// ---------------------------------------------------------------------------------------
// Multi-asset ranking
// ---------------------------------------------------------------------------------------

/** (last / first − 1) · 100 over the whole series. Needs ≥ 2 closes. */
export function trailingReturnPct(closes: number[]): number {
  if (closes.length < 2) throw new InsufficientHistoryError(2, closes.length);
  const first = closes[0] as number;
  if (!(first > 0)) throw new RangeError(`first close must be > 0, got ${first}`);
  return ((closes[closes.length - 1] as number) / first - 1) * 100;
}

/** (last / close `lookback` bars earlier − 1) · 100. Needs ≥ lookback + 1 closes. */
export function momentumPct(closes: number[], lookback: number): number {
  assertPositiveInt(lookback, "momentum lookback");
  if (closes.length < lookback + 1) throw new InsufficientHistoryError(lookback + 1, closes.length);
  const base = closes[closes.length - 1 - lookback] as number;
  if (!(base > 0)) throw new RangeError(`reference close must be > 0, got ${base}`);
  return ((closes[closes.length - 1] as number) / base - 1) * 100;
}

export type AssetRow = { ticker: string; trailingReturnPct: number; momentumPct: number; strategyEdgePp: number };
export type RankedAsset<T extends AssetRow = AssetRow> = T & {
  rank: number;
  /** Ranking score in (−1, 1), 4 dp. */
  score: number;
  verdict: "overweight" | "neutral" | "underweight";
};

/** Verdict thresholds on the ranking score. */
export const RANK_OVERWEIGHT = 0.2;
export const RANK_UNDERWEIGHT = -0.2;

/**
 * Rank assets by an absolute score (so a single asset still gets a meaningful verdict):
 *   score = 0.4·tanh(trailing% / 20) + 0.4·tanh(momentum% / 10) + 0.2·tanh(edge pp / 10)
 * tanh squashes each input into (−1, 1) so one outlier cannot dominate; the scales say
 * "a 20 % trailing return / 10 % recent momentum / 10 pp strategy edge is a strong
 * reading". Non-finite inputs count as 0. verdict: score ≥ 0.2 overweight, ≤ −0.2
 * underweight, else neutral. Sorted by score descending (ties by ticker), rank from 1.
 */
export function rankAssets<T extends AssetRow>(rows: T[]): Array<RankedAsset<T>> {
  const f = (x: number) => (isFiniteNumber(x) ? x : 0);
  const scored = rows.map((r) => {
    const score = round(
      0.4 * Math.tanh(f(r.trailingReturnPct) / 20) + 0.4 * Math.tanh(f(r.momentumPct) / 10) + 0.2 * Math.tanh(f(r.strategyEdgePp) / 10),
      4,
    );
    const verdict: RankedAsset["verdict"] = score >= RANK_OVERWEIGHT ? "overweight" : score <= RANK_UNDERWEIGHT ? "underweight" : "neutral";
    return { ...r, score, verdict };
  });
  scored.sort((a, b) => b.score - a.score || (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0));
  return scored.map((r, i) => ({ ...r, rank: i + 1 }));
}
