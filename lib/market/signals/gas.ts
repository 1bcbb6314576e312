/**
 * EVM gas tiers from `eth_feeHistory` (Base RPC) or the Etherscan gas oracle
 * (upstreams.md §8), plus a submit-now / wait rule.
 *
 * EIP-1559 background used below: the base fee moves by at most ±12.5 % per block,
 * proportionally to how far the block's gasUsedRatio is from the 50 % target. A
 * priority tip goes to the block producer; maxFee = 2·nextBase + tip leaves room for
 * ~6 consecutive full blocks before the transaction becomes unincludable.
 */
import { isFiniteNumber, mean, median } from "./math";

const HEX_RE = /^0x[0-9a-f]+$/i;

/** Parse a JSON-RPC hex quantity ("0x1a") to a bigint. Throws TypeError on anything else. */
export function hexToBigInt(hex: string): bigint {
  if (typeof hex !== "string" || !HEX_RE.test(hex.trim())) throw new TypeError(`not a hex quantity: ${JSON.stringify(hex)}`);
  return BigInt(hex.trim());
}

const GWEI = 1_000_000_000n;

/**
 * Hex wei → gwei as a number. The integer and fractional parts are converted separately so
 * large values keep their gwei precision (Number(wei) alone loses digits above 2^53 wei).
 */
export function weiHexToGwei(hex: string): number {
  const wei = hexToBigInt(hex);
  return Number(wei / GWEI) + Number(wei % GWEI) / 1e9;
}

export type GasTier = { tipGwei: number; maxFeeGwei: number };

export type GasTiers = {
  source: "fee_history" | "etherscan";
  /** Base fee of the next block (gwei). */
  nextBaseFeeGwei: number;
  /** Mean gasUsedRatio over the window (0..1); null when no ratios were given. */
  avgUtilization: number | null;
  /**
   * Base-fee trend over the window in %. fee_history: (next / oldest − 1) · 100 (0 if the
   * oldest base fee is 0). etherscan: implied by the utilisations, see etherscanTiers.
   */
  baseFeeTrendPct: number | null;
  slow: GasTier;
  standard: GasTier;
  fast: GasTier;
  /** Number of blocks the window covered. */
  blocks: number;
  notes: string[];
};

/** maxFee = 2·nextBase + tip, the usual EIP-1559 wallet default. */
function tier(nextBase: number, tip: number): GasTier {
  return { tipGwei: tip, maxFeeGwei: 2 * nextBase + tip };
}

/**
 * Tiers from an `eth_feeHistory` result requested with reward percentiles [p_slow, p_std,
 * p_fast] (e.g. [10, 50, 90]). Tips are the median over blocks of reward[*][0], [1], [2];
 * baseFeePerGas has blockCount + 1 entries and its last one is the next block's base fee.
 * If `reward` is missing or empty, tips fall back to `opts.fallbackTipGwei` (e.g. from
 * eth_maxPriorityFeePerGas) or 0, with a note. Throws if baseFeePerGas is empty.
 */
export function feeHistoryTiers(
  fh: { baseFeePerGas: string[]; gasUsedRatio: number[]; reward?: string[][] },
  opts: { fallbackTipGwei?: number } = {},
): GasTiers {
  if (fh.baseFeePerGas.length === 0) throw new RangeError("feeHistory.baseFeePerGas is empty");
  const baseFees = fh.baseFeePerGas.map(weiHexToGwei);
  const next = baseFees[baseFees.length - 1] as number;
  const oldest = baseFees[0] as number;
  const ratios = fh.gasUsedRatio.filter(isFiniteNumber);
  const notes: string[] = [];

  const rewards = (fh.reward ?? []).filter((r) => Array.isArray(r) && r.length > 0);
  const tipAt = (i: number): number | null => {
    const xs = rewards.map((r) => r[i]).filter((x): x is string => typeof x === "string").map(weiHexToGwei);
    return median(xs);
  };
  const fallback = opts.fallbackTipGwei ?? 0;
  let slow = tipAt(0);
  let std = tipAt(1);
  let fast = tipAt(2);
  if (slow === null || std === null || fast === null) {
    notes.push(`feeHistory had no reward percentiles; tip fallback ${fallback} gwei used`);
    slow ??= fallback;
    std ??= fallback;
    fast ??= fallback;
  }
  return {
    source: "fee_history",
    nextBaseFeeGwei: next,
    avgUtilization: mean(ratios),
    baseFeeTrendPct: oldest > 0 ? (next / oldest - 1) * 100 : 0,
    slow: tier(next, slow),
    standard: tier(next, std),
    fast: tier(next, fast),
    blocks: fh.gasUsedRatio.length,
    notes,
  };
}

/**
 * Tiers from Etherscan's gas oracle (values already parsed to numbers, gwei). Etherscan's
 * Safe/Propose/Fast prices are TOTAL gas prices (base + tip), so tip = max(0, price − base).
 * Etherscan gives no base-fee history; the trend is implied from the block utilisations
 * with the EIP-1559 rule: Π(1 + 0.125·(uᵢ − 0.5)/0.5) − 1, in %.
 */
export function etherscanTiers(oracle: {
  safe: number;
  propose: number;
  fast: number;
  baseFee: number;
  gasUsedRatios: number[];
}): GasTiers {
  const base = oracle.baseFee;
  const ratios = oracle.gasUsedRatios.filter(isFiniteNumber);
  const tip = (p: number) => Math.max(0, p - base);
  let implied: number | null = null;
  if (ratios.length > 0) {
    let f = 1;
    for (const u of ratios) f *= 1 + 0.125 * ((Math.min(Math.max(u, 0), 1) - 0.5) / 0.5);
    implied = (f - 1) * 100;
  }
  return {
    source: "etherscan",
    nextBaseFeeGwei: base,
    avgUtilization: mean(ratios),
    baseFeeTrendPct: implied,
    slow: tier(base, tip(oracle.safe)),
    standard: tier(base, tip(oracle.propose)),
    fast: tier(base, tip(oracle.fast)),
    blocks: ratios.length,
    notes: ["base-fee trend implied from gasUsedRatio (EIP-1559 ±12.5 %/block rule)"],
  };
}

export type GasVerdictOptions = {
  /** Average utilisation at or above which the chain counts as congested (default 0.8). */
  highUtilization?: number;
  /** Base-fee rise (%) over the window that counts as a spike (default 10). */
  risingTrendPct?: number;
  /** Wait if the standard maxFee exceeds this many gwei (optional budget cap). */
  maxFeeCapGwei?: number;
};

/**
 * submit_now / wait. Rule (in order):
 *   1. standard.maxFeeGwei > maxFeeCapGwei (if given)                  → wait (over budget)
 *   2. avgUtilization ≥ 0.8 AND baseFeeTrendPct ≥ +10 %                 → wait: a congestion
 *      spike; EIP-1559 base fees fall again once blocks drop below 50 % full.
 *   3. otherwise                                                         → submit_now
 * Unknown utilisation or trend never triggers "wait" (we do not delay on missing data).
 */
export function gasVerdict(tiers: GasTiers, opts: GasVerdictOptions = {}): { verdict: "submit_now" | "wait"; reason: string } {
  const hi = opts.highUtilization ?? 0.8;
  const rise = opts.risingTrendPct ?? 10;
  const u = tiers.avgUtilization;
  const t = tiers.baseFeeTrendPct;
  if (opts.maxFeeCapGwei !== undefined && tiers.standard.maxFeeGwei > opts.maxFeeCapGwei) {
    return { verdict: "wait", reason: `standard max fee ${tiers.standard.maxFeeGwei.toFixed(4)} gwei is above the ${opts.maxFeeCapGwei} gwei cap` };
  }
  if (u !== null && t !== null && u >= hi && t >= rise) {
    return {
      verdict: "wait",
      reason: `blocks are ${(u * 100).toFixed(1)}% full on average and the base fee rose ${t.toFixed(1)}% over the window; congestion spikes usually pass within minutes`,
    };
  }
  const parts: string[] = [];
  parts.push(u === null ? "utilisation unknown" : `utilisation ${(u * 100).toFixed(1)}%`);
  parts.push(t === null ? "base-fee trend unknown" : `base-fee trend ${t >= 0 ? "+" : ""}${t.toFixed(1)}%`);
  return { verdict: "submit_now", reason: `no congestion spike (${parts.join(", ")})` };
}
