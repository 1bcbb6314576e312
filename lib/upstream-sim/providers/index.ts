/**
 * Every simulated provider; each module speaks one provider's wire format.
 * Family owners add their providers here (one line each).
 */
import type { SimProvider } from "@/lib/upstream-sim/server";
import { alternativeMeSim } from "@/lib/upstream-sim/providers/alternative-me";
import { coingeckoSim } from "@/lib/upstream-sim/providers/coingecko";

export const SIM_PROVIDERS: SimProvider[] = [alternativeMeSim, coingeckoSim];
