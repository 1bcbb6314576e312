/**
 * The service's Prometheus metrics (prom-client), served by GET /metrics
 * (app/metrics/route.ts, admin credential only).
 *
 * Counters and histograms count what happened in this process, so each instance's
 * series add up across instances (`sum by (...)`): calls by product, surface, credential
 * and outcome (lib/access/call.ts, the one call path), per-call payments by method,
 * settlement mode and outcome and their settlement time, upstream requests, failures and
 * latency by provider (lib/market/upstream.ts, the one client base), rate-limit refusals
 * (lib/limits/ratelimit.ts). Gauges read at scrape time: this instance's PostgreSQL pool,
 * and, from the shared database (the same figure from every instance: aggregate them with
 * `max`, never `sum`), unfinished payments and the optimistic value in flight. Node's
 * process metrics (prom-client defaults) come along.
 *
 * Scrape-time reads and the text exposition: ./render.ts. The registry is process-wide state (lib/process-state.ts): Next bundles this module per
 * route and the custom server loads its own copy, but there is one set of series per
 * process. Nothing here is created at import time (`next build` imports every module).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { processState } from "@/lib/process-state";
import { feeUnit } from "@/lib/metrics/fee-unit";

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function create() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    calls: new Counter({ name: "echo_calls_total", help: "Gated product calls by product, surface (http, mcp, a2a), credential kind (none, x402, bundle, api_key) and outcome (ok, refused, invalid, error). HEAD checks are not counted.", labelNames: ["product", "surface", "credential", "outcome"], registers }),
    callSeconds: new Histogram({ name: "echo_call_duration_seconds", help: "Time of a gated call from validation to its answer (verify, handler, settle).", labelNames: ["product", "surface"], buckets: SECONDS, registers }),
    payments: new Counter({
      name: "echo_payments_total",
      help: "Per-call payments presented, by method, settlement mode (confirmed, optimistic; none when not settled) and outcome (settled, refused, released: the call failed and nothing was charged, failed: settlement failed, pending: outcome not known yet, error).",
      labelNames: ["method", "mode", "outcome"],
      registers,
    }),
    settleSeconds: new Histogram({ name: "echo_settlement_duration_seconds", help: "Time to settle a per-call payment (the Server-Timing settle phase), by method and settlement mode.", labelNames: ["method", "mode"], buckets: SECONDS, registers }),
    fees: new Counter({
      name: "echo_settlement_fees_total",
      help: "Network fees the service paid for settlement transactions it sent, in the network's native base unit (unit: wei, lamports), by method, network and outcome (settled; failed: the transaction failed on chain or earned nothing, nonce-gap fillers included). Fees not learned (a remote facilitator's) are not counted.",
      labelNames: ["method", "network", "unit", "outcome"],
      registers,
    }),
    upstreamRequests: new Counter({ name: "echo_upstream_requests_total", help: "HTTP requests to upstream data providers, by provider and outcome (ok, error).", labelNames: ["provider", "outcome"], registers }),
    upstreamErrors: new Counter({ name: "echo_upstream_errors_total", help: "Upstream failures by provider and kind (timeout, network, http, rate_limited, parse, upstream_error).", labelNames: ["provider", "kind"], registers }),
    upstreamSeconds: new Histogram({ name: "echo_upstream_request_duration_seconds", help: "Upstream request time by provider.", labelNames: ["provider"], buckets: SECONDS, registers }),
    rateLimited: new Counter({ name: "echo_rate_limit_refusals_total", help: "Requests refused by a per-client rate limit, by policy.", labelNames: ["policy"], registers }),
    unfinished: new Gauge({ name: "echo_payments_unfinished", help: "Payments not finished in the shared database, by status (pending, pending_optimistic, sent, unknown, broadcast, landed). The same on every instance: aggregate with max.", labelNames: ["status"], registers }),
    optimisticUsd: new Gauge({ name: "echo_optimistic_in_flight_usd", help: "USDC delivered optimistically whose transfer is not confirmed yet (shared database; aggregate with max).", registers }),
    ledgerUp: new Gauge({ name: "echo_ledger_read_ok", help: "1 when the scrape read the payments table, 0 when it could not (the two gauges above are then absent).", registers }),
    pool: new Gauge({ name: "echo_db_pool_connections", help: "This instance's PostgreSQL pool: connections open (total), idle, clients waiting for one, and the pool's size (max).", labelNames: ["state"], registers }),
  };
}

export type Metrics = ReturnType<typeof create>;

/** The process's metrics, created on first use. */
export function metrics(): Metrics {
  return processState("metrics", create);
}

/** Counts one upstream request (seconds: its duration) and, when it failed, its failure kind. */
export function countUpstream(provider: string, seconds: number, failure?: string): void {
  const m = metrics();
  m.upstreamRequests.inc({ provider, outcome: failure ? "error" : "ok" });
  m.upstreamSeconds.observe({ provider }, seconds);
  if (failure) m.upstreamErrors.inc({ provider, kind: failure });
}

/** Counts a failure a provider reported without a failed request (an error field in a 200 answer). */
export function countUpstreamFailure(provider: string, kind: string): void {
  metrics().upstreamErrors.inc({ provider, kind });
}

/** Counts one refusal by a rate-limit policy. */
export function countRateLimited(policy: string): void {
  metrics().rateLimited.inc({ policy });
}

/** Counts the network fee (native base units) one settlement transaction cost the service. */
export function countFee(network: string, outcome: "settled" | "failed", fee: bigint): void {
  const { unit, method } = feeUnit(network);
  metrics().fees.inc({ method, network, unit, outcome }, Number(fee));
}
