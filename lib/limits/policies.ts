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

/**
 * Reads a browser may relay to the Solana RPC (lib/http/solana-relay.ts) per client IP and
 * hour: a payment from a page takes four or five; this bounds what the relay costs the
 * operator's RPC quota when someone uses it as a free node.
 */
const SOLANA_RELAY_PER_HOUR = 600;

export function policies(): Record<"sample" | "free_key_mint" | "solana_relay", Policy> {
  const cfg = env();
  return {
    sample: { name: "sample", limit: cfg.SAMPLE_LIMIT_PER_HOUR, windowSeconds: 3600 },
    free_key_mint: { name: "free_key_mint", limit: cfg.FREE_KEY_MINTS_PER_HOUR, windowSeconds: 3600 },
    solana_relay: { name: "solana_relay", limit: SOLANA_RELAY_PER_HOUR, windowSeconds: 3600 },
  };
}
