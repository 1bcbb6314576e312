/**
 * SDEX (Stellar DEX) order-book math for the XLM/USDC pair (upstreams.md §3a).
 *
 * Horizon quirk: `price` is USD per XLM on both sides, but a BID's `amount` is in the
 * COUNTER asset (USDC) while an ASK's `amount` is in the BASE asset (XLM). The Python
 * prototype summed raw amounts (USDC against XLM), which biased its order-flow signal
 * strongly negative. Everything here works on books normalised to XLM on both sides.
 */
import { isFiniteNumber } from "./math";

/** One level exactly as Horizon reports it (already parsed to numbers by the adapter). */
export type RawLevel = { price: number; amount: number };
/** One level with its size expressed in XLM (base asset) on both sides. */
export type Level = { price: number; xlm: number };
/** Bids best-first (descending price), asks best-first (ascending price). */
export type Book = { bids: Level[]; asks: Level[] };

function usable(l: RawLevel): boolean {
  // Non-positive or non-finite levels carry no liquidity and would poison VWAP/division.
  return isFiniteNumber(l.price) && isFiniteNumber(l.amount) && l.price > 0 && l.amount > 0;
}

/**
 * Convert Horizon's levels to a {@link Book} in XLM units:
 * bid xlm = amount / price (amount is USDC), ask xlm = amount (already XLM).
 * Invalid levels are dropped and both sides are re-sorted best-first, so callers never
 * depend on upstream ordering.
 */
export function normalizeHorizonBook(bids: RawLevel[], asks: RawLevel[]): Book {
  return {
    bids: bids
      .filter(usable)
      .map((l) => ({ price: l.price, xlm: l.amount / l.price }))
      .sort((a, b) => b.price - a.price),
    asks: asks
      .filter(usable)
      .map((l) => ({ price: l.price, xlm: l.amount }))
      .sort((a, b) => a.price - b.price),
  };
}

/** Total XLM on one side of the book. */
export function depthXlm(levels: readonly Level[]): number {
  let s = 0;
  for (const l of levels) s += l.xlm;
  return s;
}

/** Total USD (USDC) notional on one side of the book: Σ price·xlm. */
export function depthUsd(levels: readonly Level[]): number {
  let s = 0;
  for (const l of levels) s += l.price * l.xlm;
  return s;
}

export type BookSnapshot = {
  bestBid: number;
  bestAsk: number;
  /** (bestBid + bestAsk) / 2 */
  mid: number;
  /** (bestAsk − bestBid) / mid · 100; negative only if the book is crossed. */
  spreadPct: number;
  bidDepthXlm: number;
  askDepthXlm: number;
  bidDepthUsd: number;
  askDepthUsd: number;
  /** Total number of levels (bids + asks). */
  levels: number;
  bidLevels: number;
  askLevels: number;
  /** bestBid ≥ bestAsk: should not happen on SDEX, flagged rather than hidden. */
  crossed: boolean;
};

/**
 * Top-of-book summary with depth on both sides in XLM and USD.
 * Returns null when either side is empty (no mid or spread can be defined).
 */
export function bookSnapshot(book: Book): BookSnapshot | null {
  const bid = book.bids[0];
  const ask = book.asks[0];
  if (!bid || !ask) return null;
  const mid = (bid.price + ask.price) / 2;
  return {
    bestBid: bid.price,
    bestAsk: ask.price,
    mid,
    spreadPct: ((ask.price - bid.price) / mid) * 100,
    bidDepthXlm: depthXlm(book.bids),
    askDepthXlm: depthXlm(book.asks),
    bidDepthUsd: depthUsd(book.bids),
    askDepthUsd: depthUsd(book.asks),
    levels: book.bids.length + book.asks.length,
    bidLevels: book.bids.length,
    askLevels: book.asks.length,
    crossed: bid.price >= ask.price,
  };
}

/**
 * Order-flow imbalance (B − A) / (B + A) with B and A the bid and ask depth in XLM,
 * in [−1, 1]; positive = more resting demand than supply. `levels` optionally limits the
 * calculation to the top N levels of each side. Null when both sides are empty.
 */
export function orderFlowImbalance(book: Book, opts: { levels?: number } = {}): number | null {
  const n = opts.levels;
  const bids = n === undefined ? book.bids : book.bids.slice(0, n);
  const asks = n === undefined ? book.asks : book.asks.slice(0, n);
  const b = depthXlm(bids);
  const a = depthXlm(asks);
  if (b + a <= 0) return null;
  return (b - a) / (b + a);
}

export type BookWalk = {
  /**
   * Volume-weighted average price of the filled part. When nothing can be filled (empty
   * side) it is NaN; when `sizeXlm` ≤ 0 it is the best price (the limit of the VWAP as
   * the size goes to 0).
   */
  vwap: number;
  filledXlm: number;
  /** filledXlm reached sizeXlm (within 1e-9 relative tolerance). */
  complete: boolean;
  /** USD paid (asks) or received (bids) for the filled part. */
  costUsd: number;
  levelsUsed: number;
  /** Price of the last (worst) level touched; NaN if none. */
  worstPrice: number;
  /** |vwap / best − 1| · 100: the slippage a market order of this size would suffer. */
  slippagePct: number;
};

/**
 * Walk levels best-first, consuming up to `sizeXlm`, and report the VWAP. Pass
 * `book.asks` to price a buy, `book.bids` to price a sell.
 */
export function walkBook(levels: Level[], sizeXlm: number): BookWalk {
  const best = levels[0];
  if (!best) {
    return { vwap: Number.NaN, filledXlm: 0, complete: sizeXlm <= 0, costUsd: 0, levelsUsed: 0, worstPrice: Number.NaN, slippagePct: Number.NaN };
  }
  if (!(sizeXlm > 0)) {
    return { vwap: best.price, filledXlm: 0, complete: true, costUsd: 0, levelsUsed: 0, worstPrice: best.price, slippagePct: 0 };
  }
  let remaining = sizeXlm;
  let filled = 0;
  let cost = 0;
  let used = 0;
  let worst = best.price;
  for (const l of levels) {
    if (remaining <= 0) break;
    const take = Math.min(remaining, l.xlm);
    if (take <= 0) continue;
    filled += take;
    cost += take * l.price;
    remaining -= take;
    used += 1;
    worst = l.price;
  }
  const vwap = filled > 0 ? cost / filled : Number.NaN;
  return {
    vwap,
    filledXlm: filled,
    // Floating-point sums of partial levels may land a hair below the target.
    complete: filled >= sizeXlm * (1 - 1e-9),
    costUsd: cost,
    levelsUsed: used,
    worstPrice: worst,
    slippagePct: filled > 0 ? Math.abs(vwap / best.price - 1) * 100 : Number.NaN,
  };
}
