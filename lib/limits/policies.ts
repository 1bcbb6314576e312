/**
 * Rate-limit policies, by name. Fixed windows as spec 8 states for /v1/sample; the
 * free-key minting limit protects the key table from being farmed.
 */
import { env } from "@/lib/config/env";

export interface Policy {
  name: string;
  limit: number;
  windowSeconds: number;
}

export function policies(): Record<"sample" | "free_key_mint", Policy> {
  const cfg = env();
  return {
    sample: { name: "sample", limit: cfg.SAMPLE_LIMIT_PER_HOUR, windowSeconds: 3600 },
    free_key_mint: { name: "free_key_mint", limit: cfg.FREE_KEY_MINTS_PER_HOUR, windowSeconds: 3600 },
  };
}
