/**
 * Active upstream probes for /health: one cheap request per provider, sent through the
 * same client base as the products (base URL, headers, key redaction), with a short
 * timeout and a minimal shape check, so "ok" means the provider answered the kind of
 * request the products make, not merely that a socket opened.
 *
 * Each probe uses a route the products themselves call (the offline simulator serves
 * exactly those), with the smallest parameters that route takes.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { fetchJson, type Provider, type Query, type RequestOptions } from "@/lib/market/upstream";
import { alternativeMe } from "@/lib/market/sources/alternative-me";
import { coingecko } from "@/lib/market/sources/coingecko";
import { horizon } from "@/lib/market/sources/horizon";
import { kraken } from "@/lib/market/sources/kraken";
import { coinbase } from "@/lib/market/sources/coinbase";
import { binance } from "@/lib/market/sources/binance";
import { etherscan, etherscanConfigured } from "@/lib/market/sources/etherscan";
import { baseRpc, ethRpc, type RpcProvider } from "@/lib/market/sources/evm-rpc";
import { polymarket } from "@/lib/market/sources/polymarket";
import { goplus } from "@/lib/market/sources/goplus";
import { dexscreener } from "@/lib/market/sources/dexscreener";
import { blockscout } from "@/lib/market/sources/blockscout";

/** USDC on Base: a token and a contract every Base-facing provider knows. */
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

export interface Probe {
  provider: Provider;
  /** False when the provider cannot be used as configured (e.g. a key is missing). */
  configured: () => boolean;
  /** Why it is not configured (shown in /health). */
  notConfigured?: string;
  request: () => { path: string; query: Query; schema: z.ZodType; opts?: RequestOptions };
}

const get = (path: string, query: Query, schema: z.ZodType) => () => ({ path, query, schema });

function rpcProbe(p: RpcProvider): Probe {
  return {
    provider: p,
    configured: () => true,
    request: () => ({
      path: p.path(),
      query: p.query(),
      schema: z.object({ result: z.string().regex(/^0x[0-9a-fA-F]+$/) }),
      opts: { method: "POST", body: { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] } },
    }),
  };
}

const always = () => true;

/** Every upstream provider the service uses, with its probe. */
export const PROBES: readonly Probe[] = [
  { provider: alternativeMe, configured: always, request: get("/fng/", { limit: 1, format: "json" }, z.object({ data: z.array(z.object({ value: z.string() })).min(1) })) },
  { provider: coingecko, configured: always, request: get("/api/v3/ping", {}, z.object({ gecko_says: z.string() })) },
  { provider: horizon, configured: always, request: get("/ledgers", { order: "desc", limit: 1 }, z.object({ _embedded: z.object({ records: z.array(z.object({ sequence: z.number() })).min(1) }) })) },
  { provider: kraken, configured: always, request: get("/0/public/Ticker", { pair: "XLMUSD" }, z.object({ error: z.array(z.string()).max(0), result: z.record(z.string(), z.unknown()) })) },
  { provider: coinbase, configured: always, request: get("/products/XLM-USD/ticker", {}, z.object({ price: z.string() })) },
  { provider: binance, configured: always, request: get("/api/v3/ticker/bookTicker", { symbol: "XLMUSDT" }, z.object({ bidPrice: z.string() })) },
  {
    provider: etherscan,
    configured: etherscanConfigured,
    notConfigured: "ETHERSCAN_API_KEY is not set; ETH gas comes from ETH_RPC_URL",
    request: () => ({
      path: "/v2/api",
      query: { chainid: 1, module: "gastracker", action: "gasoracle", apikey: env().ETHERSCAN_API_KEY },
      schema: z.object({ status: z.literal("1") }),
    }),
  },
  rpcProbe(ethRpc),
  rpcProbe(baseRpc),
  { provider: polymarket, configured: always, request: get("/markets", { active: true, closed: false, limit: 1 }, z.array(z.object({ question: z.string() }))) },
  { provider: goplus, configured: always, request: get(`/api/v1/token_security/8453`, { contract_addresses: BASE_USDC }, z.object({ code: z.literal(1) })) },
  { provider: dexscreener, configured: always, request: get(`/token-pairs/v1/base/${BASE_USDC}`, {}, z.array(z.object({ pairAddress: z.string() }))) },
  { provider: blockscout, configured: always, request: get(`/api/v2/addresses/${BASE_USDC}/counters`, {}, z.object({ transactions_count: z.unknown() })) },
];

export interface ProbeResult {
  status: "ok" | "down" | "not_configured";
  latency_ms: number | null;
  error: string | null;
}

/** Runs one probe; never throws. */
export async function runProbe(p: Probe, timeoutMs: number): Promise<ProbeResult> {
  if (!p.configured()) return { status: "not_configured", latency_ms: null, error: p.notConfigured ?? "not configured" };
  const t0 = Date.now();
  try {
    const r = p.request();
    await fetchJson(p.provider, r.path, r.query, r.schema, { ...r.opts, timeoutMs });
    return { status: "ok", latency_ms: Date.now() - t0, error: null };
  } catch (err) {
    // UpstreamError messages are already redacted (no keys, no base URL).
    return { status: "down", latency_ms: Date.now() - t0, error: (err as Error).message.slice(0, 300) };
  }
}
