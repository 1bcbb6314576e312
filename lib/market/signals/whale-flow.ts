/**
 * Whale / DEX flow from DexScreener pairs (upstreams.md §12).
 *
 * DexScreener gives buy/sell COUNTS and total USD volume, but no USD split between buys
 * and sells and no per-trade sizes. So buy pressure is a share of trade counts, and the
 * average trade size (volume / trades) is the only whale proxy.
 */
import { isFiniteNumber } from "./math";

export type DexPair = {
  dexId: string;
  pairAddress: string;
  liquidityUsd: number | null;
  volume: { h1: number; h24: number };
  txns: { h1: { buys: number; sells: number }; h24: { buys: number; sells: number } };
  priceUsd: number | null;
};

/** Thresholds used by {@link whaleFlow}. */
export const WHALE_FLOW_THRESHOLDS = Object.freeze({
  /** buyRatio24h ≥ this → accumulating. */
  accumulating: 0.55,
  /** buyRatio24h ≤ this → distributing. */
  distributing: 0.45,
  /** Fewer 24h trades than this → always "balanced" (too little data). */
  minTrades24h: 20,
  /** Total liquidity below this (USD) → thin-liquidity note. */
  thinLiquidityUsd: 50_000,
  /** surgeRatio above this → activity-surge note. */
  surge: 2,
  /** turnover (24h volume / liquidity) above this → wash-trading note. */
  highTurnover: 5,
});

export type WhaleFlow = {
  pairs: number;
  /** buys / (buys + sells) over 24h, by trade count; null without trades. */
  buyRatio24h: number | null;
  buyRatio1h: number | null;
  txns24h: { buys: number; sells: number };
  txns1h: { buys: number; sells: number };
  /** Σ liquidity over pairs that report it; null when none does. */
  liquidityUsd: number | null;
  volume24hUsd: number;
  volume1hUsd: number;
  /** volume24h / (buys24h + sells24h); null without trades. */
  avgTradeUsd: number | null;
  /** volume.h1 / (volume.h24 / 24): last hour vs the 24h hourly average; null if no 24h volume. */
  surgeRatio: number | null;
  /** volume24h / liquidity; null without liquidity. */
  turnover: number | null;
  /** Price of the most liquid pair (null if unknown). */
  priceUsd: number | null;
  topPair: { dexId: string; pairAddress: string } | null;
  verdict: "accumulating" | "distributing" | "balanced";
  notes: string[];
};

const n0 = (x: unknown) => (isFiniteNumber(x) && x > 0 ? x : 0);

/**
 * Aggregate all pairs of a token. Verdict (by 24h trade counts): buyRatio ≥ 0.55 →
 * accumulating, ≤ 0.45 → distributing, otherwise — or with fewer than 20 trades in 24h —
 * balanced. Notes: thin liquidity (< $50k), activity surge (surgeRatio > 2×), very high
 * turnover (> 5× liquidity per day), too few trades, and a last hour that leans the
 * other way. Returns null for an empty pair list.
 */
export function whaleFlow(pairs: DexPair[]): WhaleFlow | null {
  if (pairs.length === 0) return null;
  const T = WHALE_FLOW_THRESHOLDS;
  let b24 = 0, s24 = 0, b1 = 0, s1 = 0, v24 = 0, v1 = 0;
  let liq = 0;
  let liqKnown = false;
  let top: DexPair | null = null;
  for (const p of pairs) {
    b24 += n0(p.txns.h24.buys);
    s24 += n0(p.txns.h24.sells);
    b1 += n0(p.txns.h1.buys);
    s1 += n0(p.txns.h1.sells);
    v24 += n0(p.volume.h24);
    v1 += n0(p.volume.h1);
    if (isFiniteNumber(p.liquidityUsd)) {
      liqKnown = true;
      liq += Math.max(0, p.liquidityUsd);
      if (top === null || (top.liquidityUsd ?? -1) < p.liquidityUsd) top = p;
    }
  }
  top ??= pairs[0] ?? null;
  const tx24 = b24 + s24;
  const tx1 = b1 + s1;
  const buyRatio24h = tx24 > 0 ? b24 / tx24 : null;
  const buyRatio1h = tx1 > 0 ? b1 / tx1 : null;
  const liquidityUsd = liqKnown ? liq : null;
  const surgeRatio = v24 > 0 ? v1 / (v24 / 24) : null;
  const turnover = liquidityUsd !== null && liquidityUsd > 0 ? v24 / liquidityUsd : null;

  let verdict: WhaleFlow["verdict"] = "balanced";
  if (buyRatio24h !== null && tx24 >= T.minTrades24h) {
    if (buyRatio24h >= T.accumulating) verdict = "accumulating";
    else if (buyRatio24h <= T.distributing) verdict = "distributing";
  }

  const notes: string[] = [];
  if (tx24 < T.minTrades24h) notes.push(`only ${tx24} trades in 24h: too few for a directional read`);
  if (liquidityUsd === null) notes.push("liquidity not reported by any pair");
  else if (liquidityUsd < T.thinLiquidityUsd) notes.push(`thin liquidity: $${Math.round(liquidityUsd).toLocaleString("en-US")} < $50,000; large orders will move the price`);
  if (surgeRatio !== null && surgeRatio > T.surge) notes.push(`activity surge: last-hour volume is ${surgeRatio.toFixed(1)}x the 24h hourly average`);
  if (turnover !== null && turnover > T.highTurnover) notes.push(`very high turnover: 24h volume is ${turnover.toFixed(1)}x liquidity (possible wash trading)`);
  if (buyRatio1h !== null && tx1 > 0) {
    if (verdict === "accumulating" && buyRatio1h <= T.distributing) notes.push("last hour leans to selling, against the 24h accumulation");
    if (verdict === "distributing" && buyRatio1h >= T.accumulating) notes.push("last hour leans to buying, against the 24h distribution");
  }
  notes.push("buy/sell pressure is by trade count; DexScreener has no USD split by side, so average trade size is the only whale proxy");

  return {
    pairs: pairs.length,
    buyRatio24h,
    buyRatio1h,
    txns24h: { buys: b24, sells: s24 },
    txns1h: { buys: b1, sells: s1 },
    liquidityUsd,
    volume24hUsd: v24,
    volume1hUsd: v1,
    avgTradeUsd: tx24 > 0 ? v24 / tx24 : null,
    surgeRatio,
    turnover,
    priceUsd: top && isFiniteNumber(top.priceUsd) ? top.priceUsd : (pairs.find((p) => isFiniteNumber(p.priceUsd))?.priceUsd ?? null),
    topPair: top ? { dexId: top.dexId, pairAddress: top.pairAddress } : null,
    verdict,
    notes,
  };
}
