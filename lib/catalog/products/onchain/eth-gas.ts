// GET /v1/eth-gas — Ethereum gas oracle: safe/standard/fast gwei, base fee, utilisation, verdict.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { etherscanConfigured, gasOracle } from "@/lib/market/sources/etherscan";
import { ethRpc, feeHistory, gasPrice } from "@/lib/market/sources/evm-rpc";
import { etherscanTiers, feeHistoryTiers } from "@/lib/market/signals/gas";
import { UpstreamError } from "@/lib/market/upstream";
import { gasFields, gasValues } from "@/lib/catalog/products/onchain/gas-common";
import { gweiOrNull, weiToGwei } from "@/lib/catalog/products/onchain/format";

/** Blocks and reward percentiles of the RPC path (same window as /v1/gas). */
const WINDOW = 20;
const PERCENTILES = [10, 50, 90];

export const ethGas = defineProduct({
  id: "eth-gas",
  path: "/v1/eth-gas",
  title: "Ethereum gas oracle",
  description:
    "Ethereum mainnet gas: safe / standard / fast gas prices in gwei with their priority tips and EIP-1559 max fees, the next block's base fee, block utilisation, base-fee trend and a submit-now / wait verdict. Source: the Etherscan V2 gas oracle when the service has an Etherscan key, otherwise (or when Etherscan fails) eth_feeHistory over the last 20 blocks (10th/50th/90th percentile tips) plus eth_gasPrice on the Ethereum RPC endpoint.",
  tags: ["gas", "ethereum", "onchain"],
  kind: "data",
  httpPrice: "0.005",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    chain: z.literal("ethereum").describe("Chain the figures are for"),
    chain_id: z.literal(1).describe("EVM chain id"),
    unit: z.literal("gwei").describe("Unit of every *_gwei field (1 gwei = 1e-9 ETH per gas)"),
    ...gasFields,
    node_gas_price_gwei: z.number().nullable().describe("eth_gasPrice of the RPC node (legacy single-price suggestion), gwei; null on the Etherscan path"),
    method: z.enum(["etherscan_gasoracle", "eth_feeHistory"]).describe("How the tiers were computed"),
    source: z.enum(["etherscan", "eth-rpc"]).describe("Upstream provider that served the figures"),
    unavailable: z.array(z.string()).describe("Sources that were tried and failed (e.g. 'etherscan' before falling back to the RPC); empty when none"),
    notes: z.array(z.string()).describe("Caveats about the computation"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    chain: "ethereum",
    chain_id: 1,
    unit: "gwei",
    base_fee_gwei: 17.258078217,
    safe_gwei: 17.389534133,
    standard_gwei: 17.90918363,
    fast_gwei: 20.483024438,
    tips_gwei: {
      safe: 0.131455916,
      standard: 0.651105413,
      fast: 3.224946221,
    },
    max_fee_gwei: {
      safe: 34.64761235,
      standard: 35.167261847,
      fast: 37.741102655,
    },
    utilization_pct: 52.39,
    base_fee_trend_pct: 12.66,
    blocks_sampled: 20,
    latest_block: 26566726,
    verdict: "submit_now",
    verdict_reason: "no congestion spike (utilisation 52.4%, base-fee trend +12.7%)",
    node_gas_price_gwei: 17.99978197,
    method: "eth_feeHistory",
    source: "eth-rpc",
    unavailable: [],
    notes: ["tips are the medians over 20 blocks of the 10th / 50th / 90th percentile rewards"],
    ts: "2026-11-26T19:18:58.500Z",
  },
  cacheTtlSeconds: 12,
  sources: ["etherscan", "eth-rpc"],
  handler: async (_params, ctx) => {
    const unavailable: string[] = [];
    const notes: string[] = [];
    if (etherscanConfigured()) {
      try {
        const o = await gasOracle(1);
        const tiers = etherscanTiers(o);
        return {
          chain: "ethereum" as const,
          chain_id: 1 as const,
          unit: "gwei" as const,
          ...gasValues(tiers, o.lastBlock, { safe: o.safe, standard: o.propose, fast: o.fast }),
          node_gas_price_gwei: null,
          method: "etherscan_gasoracle" as const,
          source: "etherscan" as const,
          unavailable,
          notes: [...tiers.notes, "tiers are Etherscan's Safe / Propose / Fast gas prices; tips = price − suggested base fee"],
          ts: ctx.now.toISOString(),
        };
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        // The RPC path computes the same figures: fall back rather than fail.
        unavailable.push("etherscan");
        notes.push(`Etherscan gas oracle failed (${err.kind}); computed from eth_feeHistory instead`);
      }
    }
    const [fh, gp] = await Promise.allSettled([feeHistory(ethRpc, WINDOW, "latest", PERCENTILES), gasPrice(ethRpc)]);
    if (fh.status === "rejected") throw fh.reason;
    if (gp.status === "rejected") unavailable.push("eth_gasPrice");
    const tiers = feeHistoryTiers(fh.value);
    const latest = Number(fh.value.oldestBlock) + fh.value.gasUsedRatio.length - 1;
    return {
      chain: "ethereum" as const,
      chain_id: 1 as const,
      unit: "gwei" as const,
      ...gasValues(tiers, latest),
      node_gas_price_gwei: gp.status === "fulfilled" ? gweiOrNull(weiToGwei(gp.value)) : null,
      method: "eth_feeHistory" as const,
      source: "eth-rpc" as const,
      unavailable,
      notes: [...notes, ...tiers.notes, `tips are the medians over ${WINDOW} blocks of the 10th / 50th / 90th percentile rewards`],
      ts: ctx.now.toISOString(),
    };
  },
});
