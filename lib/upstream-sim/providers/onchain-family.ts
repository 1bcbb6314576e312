/** Simulated providers of the onchain family. */
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { etherscanSim } from "@/lib/upstream-sim/providers/etherscan";
import { baseRpcSim, ethRpcSim } from "@/lib/upstream-sim/providers/evm-rpc";
import { polymarketSim } from "@/lib/upstream-sim/providers/polymarket";
import { goplusSim } from "@/lib/upstream-sim/providers/goplus";
import { dexscreenerSim } from "@/lib/upstream-sim/providers/dexscreener";
import { blockscoutSim } from "@/lib/upstream-sim/providers/blockscout";

export const ONCHAIN_SIMS: SimProvider[] = [etherscanSim, ethRpcSim, baseRpcSim, polymarketSim, goplusSim, dexscreenerSim, blockscoutSim];
