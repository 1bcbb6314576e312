/**
 * The same-origin Solana JSON-RPC relay the pages read through (POST /api/solana-rpc):
 * `@x402/svm`'s client scheme reads the mint and a recent blockhash, and the page reads
 * the payer's USDC balance, and a Wallet Standard wallet offers no RPC of its own. The
 * relay keeps the pages' CSP at `connect-src 'self'` and the operator's RPC URL (which
 * often carries an API key) on the server. It forwards one read at a time, of the few
 * methods a payment needs, to SOLANA_RPC_URL (or the cluster's public endpoint), with a
 * timeout and a per-IP hourly limit; it never sends a transaction (the facilitator does).
 */
import { env } from "@/lib/config/env";
import { ApiError, errorResponse, jsonResponse } from "@/lib/errors";
import { readBounded } from "@/lib/http/read-bounded";
import { clientIp } from "@/lib/http/client-ip";
import { rateLimit, rateLimitHeaders } from "@/lib/limits/ratelimit";
import { policies } from "@/lib/limits/policies";
import { svmNetwork } from "@/lib/payments/svm/config";

/** The reads a payment from a page makes. */
export const RELAYED_METHODS = new Set(["getLatestBlockhash", "getAccountInfo", "getTokenAccountBalance", "getBalance", "getMultipleAccounts"]);

const PUBLIC_RPC: Record<string, string> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "https://api.mainnet-beta.solana.com",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "https://api.devnet.solana.com",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "https://api.testnet.solana.com",
};

const MAX_BODY = 4096;

function rpcError(id: unknown, code: number, message: string, status = 200, headers: Record<string, string> = {}): Response {
  return jsonResponse({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

/** Answers one relayed JSON-RPC read. */
export async function relaySolanaRpc(req: Request): Promise<Response> {
  const cfg = env();
  if (!cfg.SOLANA_PAY_TO_ADDRESS) return errorResponse(new ApiError("not_found", "This instance takes no Solana payments."));
  const limit = await rateLimit("solana_relay", clientIp(req));
  const limitHeaders = rateLimitHeaders(limit, policies().solana_relay.windowSeconds);
  if (!limit.success) return errorResponse(new ApiError("rate_limited", "Too many Solana reads from this address; try again later.", { headers: limitHeaders }));
  const text = await readBounded(req, MAX_BODY);
  if (text === null) return errorResponse(new ApiError("payload_too_large", `One JSON-RPC request of at most ${MAX_BODY} bytes.`));
  let call: { id?: unknown; method?: unknown; params?: unknown };
  try {
    call = JSON.parse(text) as typeof call;
  } catch {
    return rpcError(null, -32700, "Parse error", 400);
  }
  if (!call || typeof call !== "object" || Array.isArray(call)) return rpcError(null, -32600, "One JSON-RPC request per call (no batches).", 400);
  if (typeof call.method !== "string" || !RELAYED_METHODS.has(call.method)) return rpcError(call.id, -32601, `Not relayed: ${String(call.method)}. Relayed: ${[...RELAYED_METHODS].join(", ")}.`, 400);
  const upstream = cfg.SOLANA_RPC_URL ?? PUBLIC_RPC[svmNetwork()];
  if (!upstream) return errorResponse(new ApiError("service_unavailable", "No Solana RPC is configured for this network.", { retryAfterSeconds: 60 }));
  try {
    const res = await fetch(upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: call.id ?? 1, method: call.method, params: Array.isArray(call.params) ? call.params : [] }),
      signal: AbortSignal.timeout(cfg.UPSTREAM_TIMEOUT_MS),
    });
    const body = await res.text();
    return new Response(body, { status: res.ok ? 200 : 502, headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...limitHeaders } });
  } catch {
    return rpcError(call.id, -32000, "The Solana RPC did not answer in time.", 503, { "Retry-After": "5", ...limitHeaders });
  }
}
