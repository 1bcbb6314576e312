/**
 * Server configuration, validated once with zod. Every setting has a default that
 * runs the service on a fresh machine (embedded database, in-process limits, live
 * public upstream APIs). The configuration table of docs/configuration.md is checked against
 * `CONFIG_DOCS` by a test, so a setting cannot be added without being documented.
 */
import { z } from "zod";
import { parseWeights } from "@/lib/market/signals/sentiment";
import { processState, resetProcessState } from "@/lib/process-state";

const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");
const optionalUrl = z.url().optional();
const positiveInt = z.coerce.number().int().positive();

/** The embedded database's folder when DATA_DIR is unset (also read by lib/server/standalone.ts). */
export const DEFAULT_DATA_DIR = "./data";

const schema = z.object({
  NODE_ENV: z.string().default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_BASE_URL: optionalUrl,

  DATA_DIR: z.string().default(DEFAULT_DATA_DIR),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/).default("echo"),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  DATABASE_POOL_MAX: positiveInt.max(1000).default(10),

  UPSTREAM_MODE: z.enum(["live", "simulated"]).default("live"),
  UPSTREAM_TIMEOUT_MS: positiveInt.default(6000),
  SIM_SEED: z.coerce.number().int().default(402),
  SENTIMENT_WEIGHTS: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      // Checked here so a bad setting stops the server at start, not a request later.
      try {
        parseWeights(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),

  FNG_BASE_URL: z.url().default("https://api.alternative.me"),
  COINGECKO_BASE_URL: z.url().default("https://api.coingecko.com"),
  COINGECKO_API_KEY: z.string().optional(),
  COINGECKO_PLAN: z.enum(["auto", "demo", "pro"]).default("auto"),
  COINGECKO_MAX_CONCURRENCY: positiveInt.max(50).default(3),
  HORIZON_BASE_URL: z.url().default("https://horizon.stellar.org"),
  KRAKEN_BASE_URL: z.url().default("https://api.kraken.com"),
  COINBASE_BASE_URL: z.url().default("https://api.exchange.coinbase.com"),
  BINANCE_BASE_URL: z.url().default("https://api.binance.com"),
  ETHERSCAN_BASE_URL: z.url().default("https://api.etherscan.io"),
  ETHERSCAN_API_KEY: z.string().optional(),
  ETH_RPC_URL: z.url().default("https://ethereum-rpc.publicnode.com"),
  BASE_RPC_URL: z.url().default("https://mainnet.base.org"),
  POLYMARKET_BASE_URL: z.url().default("https://gamma-api.polymarket.com"),
  GOPLUS_BASE_URL: z.url().default("https://api.gopluslabs.io"),
  DEXSCREENER_BASE_URL: z.url().default("https://api.dexscreener.com"),
  BLOCKSCOUT_BASE_URL: z.url().default("https://base.blockscout.com"),

  KRAKEN_TAKER_FEE_PCT: z.coerce.number().min(0).max(5).default(0.26),
  COINBASE_TAKER_FEE_PCT: z.coerce.number().min(0).max(5).default(0.6),
  BINANCE_TAKER_FEE_PCT: z.coerce.number().min(0).max(5).default(0.1),
  ARB_TRADE_SIZE_XLM: z.coerce.number().positive().default(10000),

  PAY_TO_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed EVM address").optional(),
  X402_NETWORK: z.string().regex(/^eip155:\d+$/).default("eip155:8453"),
  USDC_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/).default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  USDC_EIP712_NAME: z.string().default("USD Coin"),
  USDC_EIP712_VERSION: z.string().default("2"),
  FACILITATOR_URL: optionalUrl,
  CDP_API_KEY_ID: z.string().min(1).optional(),
  CDP_API_KEY_SECRET: z.string().min(1).optional(),
  FACILITATOR_AUTH_HEADERS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      // Checked here so a malformed value stops the server at start, not a payment later.
      if (!v) return undefined;
      try {
        const parsed = z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "not an HTTP header name"), z.string()).parse(JSON.parse(v));
        return parsed;
      } catch (err) {
        ctx.addIssue({ code: "custom", message: `must be a JSON object of header names to string values (${(err as Error).message.split("\n")[0]})` });
        return z.NEVER;
      }
    }),
  FACILITATOR_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex key").optional(),
  SETTLEMENT_RPC_URL: optionalUrl,
  X402_EIP6492_FACTORIES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      const bad = list.find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a));
      if (bad) {
        ctx.addIssue({ code: "custom", message: `must be comma-separated 0x-prefixed EVM addresses (${bad})` });
        return z.NEVER;
      }
      return list;
    }),
  SOLANA_NETWORK: z.string().default("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"),
  SOLANA_PAY_TO_ADDRESS: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/).optional(),
  SOLANA_USDC_MINT: z.string().default("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"),
  SOLANA_RPC_URL: optionalUrl,
  SOLANA_FEE_PAYER_SECRET: z.string().optional(),
  SOLANA_MAX_COMPUTE_UNITS: positiveInt.max(1_400_000).default(20_000),
  SOLANA_MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS: z.coerce.number().int().min(0).max(5_000_000).default(1),
  SOLANA_PAYER_FEE_BUDGET_LAMPORTS: z.coerce.number().int().min(0).default(50_000),
  STELLAR_PAY_TO_ADDRESS: z.string().regex(/^G[A-Z2-7]{55}$/).optional(),
  STELLAR_NETWORK_PASSPHRASE: z.string().default("Public Global Stellar Network ; September 2015"),
  STELLAR_HORIZON_SUBMIT_URL: optionalUrl,
  XLM_QUOTE_TTL_SECONDS: positiveInt.max(86_400).default(600),
  PAYMENT_TIMEOUT_MS: positiveInt.default(15000),
  X402_GAS_TOKEN_USD: z.coerce.number().positive().default(5000),
  X402_MAX_GAS_SHARE: z.coerce.number().positive().default(2),
  X402_PAYER_FEE_BUDGET_WEI: z.coerce.bigint().min(0n).default(100_000_000_000_000n),
  X402_OPTIMISTIC_MAX_USD: z.coerce.number().min(0).default(0),
  X402_OPTIMISTIC_PAYER_CAP_USD: z.coerce.number().min(0).default(0.1),
  X402_OPTIMISTIC_SERVICE_CAP_USD: z.coerce.number().min(0).default(1),
  X402_OPTIMISTIC_LOSS_WINDOW_SECONDS: positiveInt.max(7 * 86_400).default(3600),
  PAYMENT_LEASE_SECONDS: positiveInt.min(3).max(300).default(10),
  STANDARD_BUNDLE_CREDITS: positiveInt.default(10),
  ENTERPRISE_BUNDLE_CREDITS: positiveInt.default(10000),
  FREE_KEY_DAILY_QUOTA: positiveInt.default(50),
  SAMPLE_LIMIT_PER_HOUR: positiveInt.default(10),
  FREE_KEY_MINTS_PER_HOUR: positiveInt.default(5),
  ATTESTATION_PRIVATE_KEY: z.string().optional(),
  ADMIN_TOKEN: z.string().min(16).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  CACHE_DISABLED: bool.default(false),
}).refine((v) => !v.UPSTASH_REDIS_REST_URL || v.UPSTASH_REDIS_REST_TOKEN, {
  path: ["UPSTASH_REDIS_REST_TOKEN"],
  message: "is required with UPSTASH_REDIS_REST_URL",
});

export type Env = z.infer<typeof schema>;

/** One line per setting for the configuration table (docs/configuration.md, generated by npm run readme). */
export const CONFIG_DOCS: Record<keyof Env, string> = {
  NODE_ENV: "Node environment.",
  PORT: "HTTP port (0 picks a free port).",
  HOST: "Interface to listen on.",
  PUBLIC_BASE_URL: "Base URL written into discovery documents and payment requirements; defaults to the request's origin (Host header; X-Forwarded-Host/-Proto only with TRUST_PROXY_HOPS > 0), in which case documents are cached `private`. Set it in production.",
  DATA_DIR: "Folder for the embedded PGlite database (`memory` keeps it in memory). One process per folder: a second server on it is refused (lock file `pglite.lock`).",
  DATABASE_URL: "PostgreSQL URL; when set, PostgreSQL replaces the embedded database (`?schema=name` selects a schema).",
  REDIS_URL: "Redis URL; when set, rate limits use @upstash/ratelimit on it instead of in-process counters.",
  REDIS_KEY_PREFIX: "Prefix of every Redis key this service writes (separates deployments sharing one Redis).",
  UPSTASH_REDIS_REST_URL: "Upstash REST Redis URL (with UPSTASH_REDIS_REST_TOKEN): rate limits use it through @upstash/redis when REDIS_URL is unset (serverless: HTTP per command, no connection to hold).",
  UPSTASH_REDIS_REST_TOKEN: "Token of UPSTASH_REDIS_REST_URL.",
  DATABASE_POOL_MAX: "Connections each instance's PostgreSQL pool may open (default 10; N instances open up to N times this; serverless: 1-2 per instance, behind a pooler such as PgBouncer in transaction mode).",
  UPSTREAM_MODE: "`live` (public APIs) or `simulated` (starts the offline upstream simulator on a loopback port).",
  UPSTREAM_TIMEOUT_MS: "Timeout of each upstream request.",
  SIM_SEED: "Seed of the offline simulator's market data.",
  SENTIMENT_WEIGHTS: "Composite weights, e.g. `fear_greed=0.4,order_flow=0.3,momentum=0.3`.",
  FNG_BASE_URL: "alternative.me Fear & Greed API.",
  COINGECKO_BASE_URL: "CoinGecko API (use https://pro-api.coingecko.com for Pro).",
  COINGECKO_API_KEY: "CoinGecko key, sent as `x-cg-pro-api-key` on the Pro plan and as `x-cg-demo-api-key` otherwise (see COINGECKO_PLAN).",
  COINGECKO_PLAN: "Which header carries COINGECKO_API_KEY: `auto` picks Pro when COINGECKO_BASE_URL's host is pro-api.coingecko.com and Demo otherwise; `demo` or `pro` force it (e.g. behind a proxy).",
  COINGECKO_MAX_CONCURRENCY: "CoinGecko requests in flight at once, shared by every caller (the keyless tier answers 429 to bursts); a 429 pauses them all for its Retry-After, then the call is retried once.",
  HORIZON_BASE_URL: "Stellar Horizon.",
  KRAKEN_BASE_URL: "Kraken public API.",
  COINBASE_BASE_URL: "Coinbase Exchange public API.",
  BINANCE_BASE_URL: "Binance public API (answers 451 from US addresses).",
  ETHERSCAN_BASE_URL: "Etherscan V2 API.",
  ETHERSCAN_API_KEY: "Etherscan key; without it ETH gas comes from ETH_RPC_URL.",
  ETH_RPC_URL: "Ethereum JSON-RPC endpoint.",
  BASE_RPC_URL: "Base JSON-RPC endpoint.",
  POLYMARKET_BASE_URL: "Polymarket Gamma API.",
  GOPLUS_BASE_URL: "GoPlus token-security API.",
  DEXSCREENER_BASE_URL: "DexScreener API.",
  BLOCKSCOUT_BASE_URL: "Blockscout (Base) API for address counters.",
  KRAKEN_TAKER_FEE_PCT: "Kraken taker fee used by the arbitrage scan.",
  COINBASE_TAKER_FEE_PCT: "Coinbase taker fee used by the arbitrage scan.",
  BINANCE_TAKER_FEE_PCT: "Binance taker fee used by the arbitrage scan.",
  ARB_TRADE_SIZE_XLM: "Trade size (XLM) the arbitrage scan walks through the SDEX book.",
  PAY_TO_ADDRESS: "EVM address receiving USDC payments on X402_NETWORK; x402 on EVM is offered only when set.",
  X402_NETWORK: "CAIP-2 network of USDC payments (spec: eip155:8453, Base).",
  USDC_ADDRESS: "USDC contract on X402_NETWORK.",
  USDC_EIP712_NAME: "EIP-712 domain name of the USDC contract (Base USDC: `USD Coin`).",
  USDC_EIP712_VERSION: "EIP-712 domain version of the USDC contract.",
  FACILITATOR_URL: "Remote x402 facilitator; when set, verify and settle go there instead of the in-process facilitator.",
  CDP_API_KEY_ID: "Coinbase Developer Platform API key id: with CDP_API_KEY_SECRET, verify and settle go to Coinbase's hosted facilitator (https://api.cdp.coinbase.com/platform/v2/x402, or FACILITATOR_URL when set), each call signed with a short-lived JWT by `@coinbase/x402`.",
  CDP_API_KEY_SECRET: "The CDP API key's secret (PEM EC key or base64 Ed25519 key); a secret, set it only through the platform's secret store.",
  FACILITATOR_AUTH_HEADERS: "Headers sent to the remote facilitator on every verify, settle and supported call, as a JSON object, e.g. `{\"Authorization\":\"Bearer …\"}` (a secret: keep it in the platform's secret store). A malformed value stops the server at start.",
  FACILITATOR_PRIVATE_KEY: "Key of the in-process facilitator that submits EIP-3009 settlements (pays gas).",
  SETTLEMENT_RPC_URL: "JSON-RPC endpoint the in-process facilitator settles on (default BASE_RPC_URL): http(s):// or the node's WebSocket endpoint, ws(s)://, which answers each request sooner (see \"Settlement modes\").",
  X402_EIP6492_FACTORIES: "Smart-wallet factories (comma-separated addresses) the in-process facilitator may call to deploy a payer's wallet that is not deployed yet (ERC-6492 signatures), paying the gas; empty (default) refuses such payments. The deployment is sent with the facilitator key like any settlement.",
  SOLANA_NETWORK: "CAIP-2 id of Solana mainnet (the genesis hash cut to CAIP-2's 32 characters, as x402 clients expect; the full hash is accepted too).",
  SOLANA_PAY_TO_ADDRESS: "Solana address receiving USDC; Solana is offered only when set.",
  SOLANA_USDC_MINT: "USDC mint on Solana.",
  SOLANA_RPC_URL: "Solana RPC used to simulate and send payment transactions.",
  SOLANA_FEE_PAYER_SECRET: "Base58 secret key of the Solana fee payer (facilitator).",
  SOLANA_MAX_COMPUTE_UNITS: "Highest compute-unit limit (SetComputeUnitLimit) a Solana payment transaction may ask for: the fee payer pays for it. Default 20 000, what the official x402 client sets for this transfer; above it the payment is refused (402 payment_invalid, reason `compute_budget_too_high`) before anything is sent.",
  SOLANA_MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS: "Highest priority fee (SetComputeUnitPrice, micro-lamports per compute unit) a Solana payment transaction may offer at the fee payer's expense. Default 1, what the official x402 client sets; above it the payment is refused (402 payment_invalid, reason `compute_budget_too_high`).",
  SOLANA_PAYER_FEE_BUDGET_LAMPORTS: "Network fees (lamports) a payer's failed Solana payment transactions may cost the fee payer before its payments are refused (402 payment_invalid, reason `fee_budget_spent`) until one of its payments settles; counted across instances (PostgreSQL). Default 50 000 (five failed transactions of the official client).",
  STELLAR_PAY_TO_ADDRESS: "Stellar account receiving native XLM payments with a memo; XLM is offered only when set.",
  STELLAR_NETWORK_PASSPHRASE: "Stellar network passphrase signed payments must use.",
  STELLAR_HORIZON_SUBMIT_URL: "Horizon used to submit XLM payments (default HORIZON_BASE_URL).",
  XLM_QUOTE_TTL_SECONDS: "How long an XLM quote (amount at the current rate, memo) can be paid; a payment's maxTime may exceed it by at most 60 s.",
  PAYMENT_TIMEOUT_MS: "Timeout of verify/settle calls (facilitator, RPC, Horizon); also how long an unanswered XLM submission is looked up on Horizon before its outcome is reported as unknown.",
  X402_GAS_TOKEN_USD: "USD value of the settlement chain's native token (ETH on Base) used to value the gas of an EVM settlement against its price (X402_MAX_GAS_SHARE). Default 5 000: above ETH's price, so the bound errs on the side of sending.",
  X402_MAX_GAS_SHARE: "Highest share of a payment's price the gas of its EVM settlement may cost (gas limit × max fee per gas, valued at X402_GAS_TOKEN_USD); a settlement that would cost more is not sent and the payment is refused (402 payment_invalid, reason `gas_too_expensive`, Retry-After) before any nonce is taken. Default 2: a settlement on Base costs about a third to a whole of a $0.005 price at ordinary fees (gas limit with its margin, max fee per gas), so only a fee spike or a costly transfer is refused. Contract-wallet payments (ERC-1271, ERC-6492) are judged at the gas estimated for that payment, an ERC-6492 wallet's deployment included.",
  X402_PAYER_FEE_BUDGET_WEI: "Gas (wei) a payer's failed EVM settlements may cost the facilitator key before its payments are refused (402 payment_invalid, reason `fee_budget_spent`) until one of its payments settles; counted across instances (PostgreSQL). Default 10^14 wei (0.0001 ETH).",
  X402_OPTIMISTIC_MAX_USD: "Highest price (USD) of a call paid in optimistic mode (EVM, in-process facilitator): delivered once the payment is verified, simulated and broadcast, confirmed after the response. 0 (default) settles every call in confirmed mode. See \"Settlement modes\".",
  X402_OPTIMISTIC_PAYER_CAP_USD: "Most unconfirmed optimistic value (USD) one payer may have in flight, across instances; beyond it calls settle in confirmed mode.",
  X402_OPTIMISTIC_SERVICE_CAP_USD: "Most optimistic value (USD) the whole service may have at risk, across every payer and instance: delivered and not yet confirmed, reserved by calls under way, plus what optimistic payments lost in the last X402_OPTIMISTIC_LOSS_WINDOW_SECONDS; beyond it calls settle in confirmed mode. Bounds what payers moving the same funds through fresh addresses can take.",
  X402_OPTIMISTIC_LOSS_WINDOW_SECONDS: "How long the value of an optimistic payment that failed after delivery keeps counting against X402_OPTIMISTIC_SERVICE_CAP_USD (default an hour): losses are bounded per window, not only at a time.",
  PAYMENT_LEASE_SECONDS: "How long a process holds a payment in flight without renewing its lease (renewed every third of it while the call runs). A payment whose holder died is taken over by the next presentation of the same payment once its lease ran out.",
  STANDARD_BUNDLE_CREDITS: "Credits in a standard bundle (spec: 10).",
  ENTERPRISE_BUNDLE_CREDITS: "Credits in an enterprise bundle (spec conflict 10,000 vs 2,500; default 10,000, the HTTP declaration).",
  FREE_KEY_DAILY_QUOTA: "Calls per UTC day for a free-tier key (spec: 50).",
  SAMPLE_LIMIT_PER_HOUR: "Keyless /v1/sample calls per client IP per fixed hour (spec: 10).",
  FREE_KEY_MINTS_PER_HOUR: "Free keys one client IP may mint per hour.",
  ATTESTATION_PRIVATE_KEY: "Ed25519 signing key (64 hex chars seed); generated once and stored in the database when unset.",
  ADMIN_TOKEN: "Admin credential for /v1/bundles/debug and /metrics (sent as `Authorization: Bearer`); both answer 404 without it.",
  OTEL_EXPORTER_OTLP_ENDPOINT: "OTLP/HTTP collector base URL (e.g. `http://otel-collector:4318`): traces are exported there (`/v1/traces`); unset, no tracing code is loaded. The other standard `OTEL_*` settings (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`, ...) are read by the OpenTelemetry SDK.",
  TRUST_PROXY_HOPS: "Number of reverse proxies in front of the service whose X-Forwarded-For entries are trusted (0: use the socket address); when > 0, X-Forwarded-Host and X-Forwarded-Proto are also trusted for the base URL (when PUBLIC_BASE_URL is unset).",
  LOG_LEVEL: "Log level.",
  CACHE_DISABLED: "Disable response and upstream caches (single-flight stays on).",
};

/** Parsed configuration; throws with every invalid setting named. */
export function env(): Env {
  return processState("env", () => {
    const parsed = schema.safeParse(process.env);
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      throw new Error(`invalid configuration:\n  ${lines.join("\n  ")}`);
    }
    return parsed.data;
  });
}

/** Forget the parsed configuration (tests change process.env between cases). */
export function resetEnvForTests(): void {
  resetProcessState("env");
}
