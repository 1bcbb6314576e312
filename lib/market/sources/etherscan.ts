/**
 * Etherscan V2 gas oracle (`/v2/api?chainid=..&module=gastracker&action=gasoracle`).
 * A key is required, so the adapter is only used when `ETHERSCAN_API_KEY` is set; the
 * key travels as the `apikey` query parameter and is redacted from errors and logs.
 * Etherscan answers HTTP 200 with `status: "0"` on API-level failures (bad key, chain
 * not on the plan, rate limit): those become `UpstreamError`s, never data.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, upstreamFailure, type Provider } from "@/lib/market/upstream";

export const etherscan: Provider = {
  name: "etherscan",
  baseUrl: () => env().ETHERSCAN_BASE_URL,
  secretParams: ["apikey"],
};

/** True when a key is configured (the oracle cannot be called without one). */
export function etherscanConfigured(): boolean {
  return Boolean(env().ETHERSCAN_API_KEY);
}

const gwei = z
  .string()
  .regex(/^\d+(\.\d+)?$/, "expected a decimal gwei string")
  .transform(Number);

const OracleResult = z.object({
  LastBlock: z.string().regex(/^\d+$/).transform(Number),
  SafeGasPrice: gwei,
  ProposeGasPrice: gwei,
  FastGasPrice: gwei,
  suggestBaseFee: gwei,
  // Comma-separated ratios, e.g. "0.43,0.51,0.39".
  gasUsedRatio: z
    .string()
    .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean).map(Number))
    .pipe(z.array(z.number().min(0).max(2))),
});

const OracleResponse = z.union([
  z.object({ status: z.literal("1"), message: z.string(), result: OracleResult }),
  // Failures carry the reason in `result` as a string (e.g. "Invalid API Key").
  z.object({ status: z.literal("0"), message: z.string(), result: z.unknown() }),
]);

export interface GasOracle {
  lastBlock: number;
  /** Gwei. */
  safe: number;
  propose: number;
  fast: number;
  /** Base fee suggested for the next block, gwei. */
  baseFee: number;
  /** gasUsed/gasLimit of the last few blocks, oldest first. */
  gasUsedRatios: number[];
}

/** Gas oracle of `chainId` (1 = Ethereum). Throws UpstreamError without a key or on `status: "0"`. */
export async function gasOracle(chainId = 1): Promise<GasOracle> {
  const key = env().ETHERSCAN_API_KEY;
  if (!key) upstreamFailure(etherscan, "ETHERSCAN_API_KEY is not configured");
  return cached(`etherscan:gasoracle:${chainId}`, 10_000, async () => {
    const res = await fetchJson(etherscan, "/v2/api", { chainid: chainId, module: "gastracker", action: "gasoracle", apikey: key }, OracleResponse);
    if (res.status !== "1") {
      const reason = typeof res.result === "string" ? res.result : res.message;
      upstreamFailure(etherscan, `gas oracle error: ${reason.slice(0, 200)}`);
    }
    const r = res.result;
    return { lastBlock: r.LastBlock, safe: r.SafeGasPrice, propose: r.ProposeGasPrice, fast: r.FastGasPrice, baseFee: r.suggestBaseFee, gasUsedRatios: r.gasUsedRatio };
  });
}
