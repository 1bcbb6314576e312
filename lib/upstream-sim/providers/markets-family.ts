/** Simulated providers of the markets family. */
import type { SimProvider } from "@/lib/upstream-sim/provider";

export const MARKETS_SIMS: SimProvider[] = [];
