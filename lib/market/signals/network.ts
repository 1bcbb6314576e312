/**
 * Stellar network pulse from Horizon (upstreams.md §3b, §3d, §3e): ledger health, fee
 * congestion and SDEX trade statistics.
 */
import { isFiniteNumber } from "./math";

/** 1 XLM = 10^7 stroops. */
export const STROOPS_PER_XLM = 10_000_000;

/** Ledger age thresholds (s). Ledgers close every ~5–6 s, so 15 s ≈ 2 missed closes. */
export const LEDGER_HEALTHY_MAX_S = 15;
export const LEDGER_LAGGING_MAX_S = 60;

export type LedgerHealth = {
  /** now − closed_at in seconds (clock skew that makes it negative is clamped to 0). */
  ageSeconds: number;
  /** ≤ 15 s healthy, ≤ 60 s lagging, otherwise stalled. */
  status: "healthy" | "lagging" | "stalled";
  /** failed / (successful + failed); null when the ledger had no transactions. */
  failureRatio: number | null;
  txCount: number;
  operationCount: number;
  baseFeeXlm: number;
  baseReserveXlm: number;
};

/**
 * Health of the latest ledger. `now` is passed in (no clock reads here).
 * Status: age ≤ 15 s → healthy; ≤ 60 s → lagging; > 60 s → stalled (Horizon or the
 * network has stopped ingesting). Throws RangeError for invalid dates.
 */
export function ledgerHealth(input: {
  closedAt: Date;
  now: Date;
  successfulTx: number;
  failedTx: number;
  operationCount: number;
  baseFeeStroops: number;
  baseReserveStroops: number;
}): LedgerHealth {
  const closed = input.closedAt.getTime();
  const now = input.now.getTime();
  if (!Number.isFinite(closed) || !Number.isFinite(now)) throw new RangeError("ledgerHealth: invalid date");
  const ageSeconds = Math.max(0, (now - closed) / 1000);
  const status = ageSeconds <= LEDGER_HEALTHY_MAX_S ? "healthy" : ageSeconds <= LEDGER_LAGGING_MAX_S ? "lagging" : "stalled";
  const tx = input.successfulTx + input.failedTx;
  return {
    ageSeconds,
    status,
    failureRatio: tx > 0 ? input.failedTx / tx : null,
    txCount: tx,
    operationCount: input.operationCount,
    baseFeeXlm: input.baseFeeStroops / STROOPS_PER_XLM,
    baseReserveXlm: input.baseReserveStroops / STROOPS_PER_XLM,
  };
}

/**
 * Fee congestion from /fee_stats: congested when ledger_capacity_usage > 0.9 or the
 * median charged fee (p50, stroops) exceeds the last ledger's base fee — i.e. surge
 * pricing is active and a base-fee transaction may not get in.
 */
export function feeCongestion(input: { capacityUsage: number; p50: number; lastBaseFee: number }): {
  congested: boolean;
  reason: string;
  /** p50 / lastBaseFee (1 = no surge); null if the base fee is not positive. */
  surgeMultiple: number | null;
} {
  const { capacityUsage, p50, lastBaseFee } = input;
  const surgeMultiple = lastBaseFee > 0 ? p50 / lastBaseFee : null;
  const reasons: string[] = [];
  if (capacityUsage > 0.9) reasons.push(`ledger capacity usage ${(capacityUsage * 100).toFixed(0)}% > 90%`);
  if (p50 > lastBaseFee) reasons.push(`median fee charged ${p50} stroops > base fee ${lastBaseFee} stroops (surge pricing)`);
  if (reasons.length > 0) return { congested: true, reason: reasons.join("; "), surgeMultiple };
  return {
    congested: false,
    reason: `capacity usage ${(capacityUsage * 100).toFixed(0)}% and median fee ${p50} stroops at or below base fee ${lastBaseFee}`,
    surgeMultiple,
  };
}

export type TradeInput = { baseAmount: number; counterAmount: number; baseIsSeller: boolean; time: Date };

export type TradeStats = {
  count: number;
  /** Σ counter / Σ base (USD per XLM); null without volume. */
  vwap: number | null;
  baseVolume: number;
  counterVolume: number;
  /** Taker-buy (XLM bought by the aggressor) trades and base volume. */
  buyCount: number;
  sellCount: number;
  buyVolumeBase: number;
  sellVolumeBase: number;
  /** buyVolumeBase / baseVolume; null without volume. */
  buyRatio: number | null;
  firstTime: Date | null;
  lastTime: Date | null;
};

/**
 * Statistics over Horizon trades for one pair (base = XLM, counter = USDC).
 *
 * Direction: Horizon records the MAKER (the offer owner or liquidity pool whose offer was
 * claimed) as the "seller" of the asset it sold, and the operation source (the TAKER) as
 * the buyer. `base_is_seller: true` therefore means the maker sold the base asset, i.e.
 * the taker BOUGHT XLM → counted as a buy (aggressive buying). `false` means the taker
 * sold XLM → a sell. (stellar/go services/horizon ... processors/trades_processor.go:
 * base = sold asset of the claimed offer unless the asset ids force a swap, which also
 * flips base_is_seller.) Trades with non-finite or non-positive amounts are skipped.
 */
export function tradeStats(trades: TradeInput[]): TradeStats {
  let count = 0;
  let baseVol = 0;
  let counterVol = 0;
  let buyCount = 0;
  let sellCount = 0;
  let buyVol = 0;
  let sellVol = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const t of trades) {
    if (!(isFiniteNumber(t.baseAmount) && isFiniteNumber(t.counterAmount) && t.baseAmount > 0 && t.counterAmount > 0)) continue;
    count += 1;
    baseVol += t.baseAmount;
    counterVol += t.counterAmount;
    if (t.baseIsSeller) {
      buyCount += 1;
      buyVol += t.baseAmount;
    } else {
      sellCount += 1;
      sellVol += t.baseAmount;
    }
    const ms = t.time.getTime();
    if (Number.isFinite(ms)) {
      if (first === null || ms < first) first = ms;
      if (last === null || ms > last) last = ms;
    }
  }
  return {
    count,
    vwap: baseVol > 0 ? counterVol / baseVol : null,
    baseVolume: baseVol,
    counterVolume: counterVol,
    buyCount,
    sellCount,
    buyVolumeBase: buyVol,
    sellVolumeBase: sellVol,
    buyRatio: baseVol > 0 ? buyVol / baseVol : null,
    firstTime: first === null ? null : new Date(first),
    lastTime: last === null ? null : new Date(last),
  };
}
