/** Every simulated provider; each module speaks one provider's wire format. */
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { alternativeMeSim } from "@/lib/upstream-sim/providers/alternative-me";
import { coingeckoSim } from "@/lib/upstream-sim/providers/coingecko";
import { XLM_SIMS } from "@/lib/upstream-sim/providers/xlm-family";
import { MARKETS_SIMS } from "@/lib/upstream-sim/providers/markets-family";
import { ONCHAIN_SIMS } from "@/lib/upstream-sim/providers/onchain-family";

export const SIM_PROVIDERS: SimProvider[] = [alternativeMeSim, coingeckoSim, ...XLM_SIMS, ...MARKETS_SIMS, ...ONCHAIN_SIMS];
