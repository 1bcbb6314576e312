/**
 * The remote facilitator, when one is configured: FACILITATOR_URL, or Coinbase's hosted
 * CDP facilitator when CDP_API_KEY_ID and CDP_API_KEY_SECRET are set (its URL unless
 * FACILITATOR_URL names another). Requests carry FACILITATOR_AUTH_HEADERS and, with CDP
 * keys, the short-lived JWT `@coinbase/x402` signs for each verify / settle / supported
 * call. EVM and Solana payments use the same configuration.
 */
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import { env } from "@/lib/config/env";

/** Coinbase's hosted facilitator (what `@coinbase/x402`'s createFacilitatorConfig points at). */
export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

type PathHeaders = { verify?: Record<string, string>; settle?: Record<string, string>; supported?: Record<string, string> };

/** The remote facilitator's URL, or null when verify and settle run in process. */
export function remoteFacilitatorUrl(): string | null {
  const cfg = env();
  return cfg.FACILITATOR_URL ?? (cfg.CDP_API_KEY_ID && cfg.CDP_API_KEY_SECRET ? CDP_FACILITATOR_URL : null);
}

/** The headers of one round of calls: CDP's (a fresh JWT per call kind) with the static ones over them. */
async function authHeaders(): Promise<PathHeaders> {
  const cfg = env();
  const fixed = cfg.FACILITATOR_AUTH_HEADERS ?? {};
  let cdp: PathHeaders = {};
  if (cfg.CDP_API_KEY_ID && cfg.CDP_API_KEY_SECRET) {
    // Loaded on first use: the CDP SDK is only needed by instances that use it.
    const { createCdpAuthHeaders } = await import("@coinbase/x402");
    cdp = (await createCdpAuthHeaders(cfg.CDP_API_KEY_ID, cfg.CDP_API_KEY_SECRET)!()) as PathHeaders;
  }
  return { verify: { ...cdp.verify, ...fixed }, settle: { ...cdp.settle, ...fixed }, supported: { ...cdp.supported, ...fixed } };
}

/** A client for the remote facilitator (null without one). */
export function remoteFacilitatorClient(): FacilitatorClient | null {
  const url = remoteFacilitatorUrl();
  if (!url) return null;
  const cfg = env();
  const needsAuth = !!cfg.FACILITATOR_AUTH_HEADERS || !!(cfg.CDP_API_KEY_ID && cfg.CDP_API_KEY_SECRET);
  return new HTTPFacilitatorClient({ url, timeoutMs: cfg.PAYMENT_TIMEOUT_MS, ...(needsAuth ? { createAuthHeaders: authHeaders } : {}) });
}
