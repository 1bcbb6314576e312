/** Simulated providers of the xlm family: Stellar Horizon and the three CEX tickers. */
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { horizonSim } from "@/lib/upstream-sim/providers/horizon";
import { krakenSim } from "@/lib/upstream-sim/providers/kraken";
import { coinbaseSim } from "@/lib/upstream-sim/providers/coinbase";
import { binanceSim } from "@/lib/upstream-sim/providers/binance";

export const XLM_SIMS: SimProvider[] = [horizonSim, krakenSim, coinbaseSim, binanceSim];
