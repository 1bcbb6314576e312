/**
 * Simulated Etherscan V2 gas oracle, consistent with the simulated Ethereum node: the
 * same blocks, base fees and tips. Like the real API it answers HTTP 200 with
 * `status: "0"` for a missing key, an unknown action and chains the free plan does not
 * cover (Base), with the reason in `result`.
 */
import type { World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimResponse } from "@/lib/upstream-sim/provider";
import { baseFeeWei, blockAt, gasUsedRatio, tipWei } from "@/lib/upstream-sim/providers/evm-rpc";

const notOk = (result: string): SimResponse => ({ body: { status: "0", message: "NOTOK", result } });

/** Gwei string with at most `dp` decimals and no trailing zeros, as Etherscan prints them. */
function gweiString(wei: bigint, dp: number): string {
  return String(Number((Number(wei) / 1e9).toFixed(dp)));
}

function gasOracle(world: World, now: number): SimResponse {
  const latest = blockAt("eth", now);
  const base = baseFeeWei(world, "eth", latest + 1);
  const ratios = [4, 3, 2, 1, 0].map((k) => gasUsedRatio(world, "eth", latest - k));
  return {
    body: {
      status: "1",
      message: "OK",
      result: {
        LastBlock: String(latest),
        SafeGasPrice: gweiString(base + tipWei(world, "eth", latest, 10), 3),
        ProposeGasPrice: gweiString(base + tipWei(world, "eth", latest, 50), 3),
        FastGasPrice: gweiString(base + tipWei(world, "eth", latest, 90), 3),
        suggestBaseFee: gweiString(base, 9),
        gasUsedRatio: ratios.join(","),
      },
    },
  };
}

export const etherscanSim: SimProvider = {
  name: "etherscan",
  envVar: "ETHERSCAN_BASE_URL",
  handle(req, world) {
    if (req.path !== "/v2/api" && req.path !== "/v2/api/") return null;
    const q = req.query;
    if (!q.get("apikey")) return notOk("Missing/Invalid API Key");
    const chainId = q.get("chainid");
    if (!chainId) return notOk("Missing chainid parameter (required for v2 api), please see https://api.etherscan.io/v2/chainlist for the list of supported chainids");
    if (chainId === "8453" || chainId === "10" || chainId === "56" || chainId === "43114") {
      return notOk("Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage. https://etherscan.io/apis");
    }
    if (chainId !== "1") return notOk("Invalid chainid");
    if (q.get("module") !== "gastracker" || q.get("action") !== "gasoracle") return notOk("Error! Missing Or invalid Action name");
    return gasOracle(world, req.now);
  },
};
