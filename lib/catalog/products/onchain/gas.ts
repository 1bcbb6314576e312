// GET /v1/gas — Base gas oracle: gwei, tiers and a submit-now / wait verdict.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { baseRpc, feeHistory, gasPrice, maxPriorityFeePerGas } from "@/lib/market/sources/evm-rpc";
import { feeHistoryTiers } from "@/lib/market/signals/gas";
import { gasFields, gasValues } from "@/lib/catalog/products/onchain/gas-common";
import { gweiOrNull, weiToGwei } from "@/lib/catalog/products/onchain/format";

const L1_FEE_NOTE =
  "Base (an OP Stack rollup) also charges an L1 data fee for posting the transaction to Ethereum. It is not part of eth_gasPrice, depends on the transaction's calldata size and the Ethereum blob/base fee, and often dominates the total cost of simple transfers.";

export const baseGas = defineProduct({
  id: "gas",
  path: "/v1/gas",
  title: "Base gas oracle",
  description:
    "Base (eip155:8453) gas in gwei: eth_gasPrice, the next base fee, eth_maxPriorityFeePerGas and safe / standard / fast tiers from eth_feeHistory over the last 20 blocks (10th/50th/90th percentile tips), with utilisation, base-fee trend and a submit-now / wait verdict. Base also charges an L1 data fee that eth_gasPrice does not show.",
  tags: ["gas", "base", "onchain"],
  kind: "data",
  httpPrice: "0.02",
  tool: { name: "get_base_gas_oracle", price: "0.02", label: "Base gas oracle" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    chain: z.literal("base").describe("Chain the figures are for"),
    chain_id: z.literal(8453).describe("EVM chain id"),
    unit: z.literal("gwei").describe("Unit of every *_gwei field (1 gwei = 1e-9 ETH per gas)"),
    gas_price_gwei: z.number().nullable().describe("eth_gasPrice of the node (base fee + suggested tip), gwei; null when that call failed"),
    priority_fee_gwei: z.number().nullable().describe("eth_maxPriorityFeePerGas of the node, gwei; null when that call failed"),
    ...gasFields,
    l1_data_fee_note: z.string().describe("Reminder that Base's L1 data fee comes on top of the L2 gas shown here"),
    method: z.literal("eth_feeHistory").describe("How the tiers were computed"),
    source: z.literal("base-rpc").describe("Upstream provider (Base JSON-RPC)"),
    unavailable: z.array(z.string()).describe("RPC calls that failed (their fields are null); empty when none"),
    notes: z.array(z.string()).describe("Caveats about the computation"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    chain: "base",
    chain_id: 8453,
    unit: "gwei",
    gas_price_gwei: 0.007594253,
    priority_fee_gwei: 0.001136022,
    base_fee_gwei: 0.006458231,
    safe_gwei: 0.006611108,
    standard_gwei: 0.007215433,
    fast_gwei: 0.010208677,
    tips_gwei: {
      safe: 0.000152877,
      standard: 0.000757202,
      fast: 0.003750446,
    },
    max_fee_gwei: {
      safe: 0.013069339,
      standard: 0.013673664,
      fast: 0.016666908,
    },
    utilization_pct: 50.14,
    base_fee_trend_pct: 0.72,
    blocks_sampled: 20,
    latest_block: 54465695,
    verdict: "submit_now",
    verdict_reason: "no congestion spike (utilisation 50.1%, base-fee trend +0.7%)",
    l1_data_fee_note: "Base (an OP Stack rollup) also charges an L1 data fee for posting the transaction to Ethereum. It is not part of eth_gasPrice, depends on the transaction's calldata size and the Ethereum blob/base fee, and often dominates the total cost of simple transfers.",
    method: "eth_feeHistory",
    source: "base-rpc",
    unavailable: [],
    notes: ["tips are the medians over 20 blocks of the 10th / 50th / 90th percentile rewards"],
    ts: "2026-11-26T19:18:58.735Z",
  },
  cacheTtlSeconds: 6,
  sources: ["base-rpc"],
  handler: async (_params, ctx) => {
    const [fh, gp, tip] = await Promise.allSettled([feeHistory(baseRpc, 20, "latest", [10, 50, 90]), gasPrice(baseRpc), maxPriorityFeePerGas(baseRpc)]);
    // Tiers and the verdict need the fee history; the two single values are extras.
    if (fh.status === "rejected") throw fh.reason;
    const unavailable: string[] = [];
    if (gp.status === "rejected") unavailable.push("eth_gasPrice");
    if (tip.status === "rejected") unavailable.push("eth_maxPriorityFeePerGas");
    const tipGwei = tip.status === "fulfilled" ? weiToGwei(tip.value) : undefined;
    const tiers = feeHistoryTiers(fh.value, { fallbackTipGwei: tipGwei });
    const latest = Number(fh.value.oldestBlock) + fh.value.gasUsedRatio.length - 1;
    return {
      chain: "base" as const,
      chain_id: 8453 as const,
      unit: "gwei" as const,
      gas_price_gwei: gp.status === "fulfilled" ? gweiOrNull(weiToGwei(gp.value)) : null,
      priority_fee_gwei: tipGwei === undefined ? null : gweiOrNull(tipGwei),
      ...gasValues(tiers, latest),
      l1_data_fee_note: L1_FEE_NOTE,
      method: "eth_feeHistory" as const,
      source: "base-rpc" as const,
      unavailable,
      notes: [...tiers.notes, "tips are the medians over 20 blocks of the 10th / 50th / 90th percentile rewards"],
      ts: ctx.now.toISOString(),
    };
  },
});
