/**
 * CEX ↔ SDEX arbitrage scan (upstreams.md §4 "Compute").
 *
 * Buy on SDEX, sell on CEX:  effBuy  = sdexAskVWAP(size) · (1 + sdexFee)
 *                            effSell = cexBid · (1 − takerFee)
 * Buy on CEX, sell on SDEX:  effBuy  = cexAsk · (1 + takerFee)
 *                            effSell = sdexBidVWAP(size) · (1 − sdexFee)
 * net% = (effSell / effBuy − 1) · 100; gross% is the same without fees.
 * The SDEX side is priced by walking the book for the trade size, because on SDEX the
 * slippage, not the 100-stroop network fee, is the real cost.
 */
import { walkBook, type Book } from "./orderbook";
import { isFiniteNumber } from "./math";

export type CexQuote = { venue: string; bid: number; ask: number; takerFeePct: number; quoteCurrency: "USD" | "USDT" };

export type ArbDirection = "buy_sdex_sell_cex" | "buy_cex_sell_sdex";

export type ArbLeg = {
  venue: string;
  direction: ArbDirection;
  /** Effective buy price per XLM after fees (USD). */
  effBuy: number;
  /** Effective sell price per XLM after fees (USD). */
  effSell: number;
  /** (rawSell / rawBuy − 1) · 100, before fees. */
  grossPct: number;
  /** (effSell / effBuy − 1) · 100, after taker and SDEX fees. */
  netPct: number;
  /** XLM the SDEX side could absorb (≤ sizeXlm). */
  filledXlm: number;
  /** The SDEX side can fill the whole size. */
  complete: boolean;
  /** complete && netPct ≥ thresholdPct. */
  go: boolean;
  quoteCurrency: "USD" | "USDT";
};

export type ArbitrageScan = {
  legs: ArbLeg[];
  /** Highest-net leg among complete legs (falls back to all legs when none is complete). */
  best: ArbLeg | null;
  verdict: "go" | "no_go";
  sizeXlm: number;
  thresholdPct: number;
  notes: string[];
};

const DEFAULT_THRESHOLD_PCT = 0.5;

/**
 * Evaluate both directions against every venue for a trade of `sizeXlm`.
 * A leg is "go" only when the SDEX side fills the full size and net% ≥ threshold
 * (default 0.5 %). Venues with a non-positive/non-finite bid or ask, and directions
 * with no SDEX liquidity at all, are skipped with a note rather than reported as NaN.
 */
export function arbitrageScan(
  book: Book,
  venues: CexQuote[],
  opts: { sizeXlm: number; sdexFeePct?: number; thresholdPct?: number },
): ArbitrageScan {
  const { sizeXlm } = opts;
  if (!(isFiniteNumber(sizeXlm) && sizeXlm > 0)) throw new RangeError(`sizeXlm must be > 0, got ${sizeXlm}`);
  const sdexFee = (opts.sdexFeePct ?? 0) / 100;
  const thresholdPct = opts.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  const notes: string[] = [
    "Withdrawal fees, transfer time and inventory/rebalancing costs are ignored.",
    "SDEX quotes are in USDC; the USDC/USD and USDT/USD basis is ignored (treated as 1:1).",
  ];
  if (!opts.sdexFeePct) notes.push("SDEX network fee (100 stroops per operation) treated as negligible.");

  // The SDEX side is the same for every venue, so walk each side once.
  const buySdex = walkBook(book.asks, sizeXlm);
  const sellSdex = walkBook(book.bids, sizeXlm);
  if (buySdex.filledXlm === 0) notes.push("SDEX has no asks: buy-on-SDEX legs skipped.");
  if (sellSdex.filledXlm === 0) notes.push("SDEX has no bids: sell-on-SDEX legs skipped.");

  const legs: ArbLeg[] = [];
  const mk = (venue: CexQuote, direction: ArbDirection, rawBuy: number, rawSell: number, effBuy: number, effSell: number, filledXlm: number, complete: boolean): ArbLeg => {
    const netPct = (effSell / effBuy - 1) * 100;
    return {
      venue: venue.venue,
      direction,
      effBuy,
      effSell,
      grossPct: (rawSell / rawBuy - 1) * 100,
      netPct,
      filledXlm,
      complete,
      go: complete && netPct >= thresholdPct,
      quoteCurrency: venue.quoteCurrency,
    };
  };

  for (const v of venues) {
    const fee = v.takerFeePct / 100;
    if (!(isFiniteNumber(v.bid) && isFiniteNumber(v.ask) && v.bid > 0 && v.ask > 0 && isFiniteNumber(fee) && fee >= 0)) {
      notes.push(`${v.venue}: invalid quote or fee, skipped.`);
      continue;
    }
    if (v.quoteCurrency === "USDT") notes.push(`${v.venue} quotes in USDT, not USD.`);
    if (buySdex.filledXlm > 0) {
      legs.push(mk(v, "buy_sdex_sell_cex", buySdex.vwap, v.bid, buySdex.vwap * (1 + sdexFee), v.bid * (1 - fee), buySdex.filledXlm, buySdex.complete));
    }
    if (sellSdex.filledXlm > 0) {
      legs.push(mk(v, "buy_cex_sell_sdex", v.ask, sellSdex.vwap, v.ask * (1 + fee), sellSdex.vwap * (1 - sdexFee), sellSdex.filledXlm, sellSdex.complete));
    }
  }
  if (!buySdex.complete && buySdex.filledXlm > 0) {
    notes.push(`SDEX asks hold only ${buySdex.filledXlm} XLM of the ${sizeXlm} XLM size: buy-on-SDEX legs are not go.`);
  }
  if (!sellSdex.complete && sellSdex.filledXlm > 0) {
    notes.push(`SDEX bids hold only ${sellSdex.filledXlm} XLM of the ${sizeXlm} XLM size: sell-on-SDEX legs are not go.`);
  }

  const pool = legs.some((l) => l.complete) ? legs.filter((l) => l.complete) : legs;
  let best: ArbLeg | null = null;
  for (const l of pool) if (best === null || l.netPct > best.netPct) best = l;

  return { legs, best, verdict: legs.some((l) => l.go) ? "go" : "no_go", sizeXlm, thresholdPct, notes };
}
