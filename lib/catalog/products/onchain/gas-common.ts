/**
 * Output fields shared by /v1/eth-gas and /v1/gas: safe / standard / fast gas prices,
 * their tips and EIP-1559 max fees, utilisation, base-fee trend and the submit-now /
 * wait verdict, all computed by `lib/market/signals/gas`.
 */
import { z } from "zod";
import { gasVerdict, type GasTiers } from "@/lib/market/signals/gas";
import { dpOrNull, gwei } from "@/lib/catalog/products/onchain/format";

const gweiField = (d: string) => z.number().nonnegative().describe(d);
const perTier = (d: string) =>
  z
    .object({ safe: gweiField(`${d}, safe tier`), standard: gweiField(`${d}, standard tier`), fast: gweiField(`${d}, fast tier`) })
    .describe(d);

/** zod fields common to both gas products. */
export const gasFields = {
  base_fee_gwei: gweiField("Base fee of the next block, gwei"),
  safe_gwei: gweiField("Gas price for a cheap, slower inclusion (next base fee + 10th-percentile tip), gwei"),
  standard_gwei: gweiField("Gas price for inclusion within a few blocks (next base fee + median tip), gwei"),
  fast_gwei: gweiField("Gas price for next-block inclusion (next base fee + 90th-percentile tip), gwei"),
  tips_gwei: perTier("Priority fee (maxPriorityFeePerGas) to set, gwei"),
  max_fee_gwei: perTier("EIP-1559 maxFeePerGas = 2 × next base fee + tip (room for ~6 full blocks), gwei"),
  utilization_pct: z.number().min(0).max(200).nullable().describe("Average gasUsed / gasLimit of the sampled blocks, percent; null when unknown"),
  base_fee_trend_pct: z.number().nullable().describe("Change of the base fee over the sampled blocks, percent (implied from utilisation on the Etherscan path); null when unknown"),
  blocks_sampled: z.number().int().nonnegative().describe("Number of recent blocks the figures are computed from"),
  latest_block: z.number().int().nonnegative().nullable().describe("Newest block of the sample; null when unknown"),
  verdict: z.enum(["submit_now", "wait"]).describe("submit_now, or wait when blocks are ≥ 80% full and the base fee rose ≥ 10% over the window (a spike that usually passes)"),
  verdict_reason: z.string().describe("Why the verdict was chosen"),
};

/** Values of `gasFields` from computed tiers (gwei exact to the wei). */
export function gasValues(t: GasTiers, latestBlock: number | null, prices?: { safe: number; standard: number; fast: number }) {
  const v = gasVerdict(t);
  const price = prices ?? {
    safe: t.nextBaseFeeGwei + t.slow.tipGwei,
    standard: t.nextBaseFeeGwei + t.standard.tipGwei,
    fast: t.nextBaseFeeGwei + t.fast.tipGwei,
  };
  return {
    base_fee_gwei: gwei(t.nextBaseFeeGwei),
    safe_gwei: gwei(price.safe),
    standard_gwei: gwei(price.standard),
    fast_gwei: gwei(price.fast),
    tips_gwei: { safe: gwei(t.slow.tipGwei), standard: gwei(t.standard.tipGwei), fast: gwei(t.fast.tipGwei) },
    max_fee_gwei: { safe: gwei(t.slow.maxFeeGwei), standard: gwei(t.standard.maxFeeGwei), fast: gwei(t.fast.maxFeeGwei) },
    utilization_pct: t.avgUtilization === null ? null : dpOrNull(t.avgUtilization * 100, 2),
    base_fee_trend_pct: dpOrNull(t.baseFeeTrendPct, 2),
    blocks_sampled: t.blocks,
    latest_block: latestBlock,
    verdict: v.verdict,
    verdict_reason: v.reason,
  };
}
