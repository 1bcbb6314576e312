/**
 * GET /metrics's answer: the gauges read at scrape time (this instance's PostgreSQL
 * pool; unfinished payments and the optimistic value in flight from the shared
 * database, lib/payments/in-flight.ts), then every metric in Prometheus text format.
 */
import { getDbHandle } from "@/lib/db/client";
import { paymentsInFlight, UNFINISHED_STATUSES } from "@/lib/payments/in-flight";
import { log } from "@/lib/log";
import { metrics, type Metrics } from "@/lib/metrics";

/** Reads the scrape-time gauges: the pool of this instance, the payments in flight of the shared database. */
async function readGauges(m: Metrics): Promise<void> {
  m.pool.reset();
  m.unfinished.reset();
  m.optimisticUsd.reset();
  try {
    const use = (await getDbHandle()).pool?.();
    if (use) for (const state of ["total", "idle", "waiting", "max"] as const) m.pool.set({ state }, use[state]);
    const now = await paymentsInFlight();
    for (const status of UNFINISHED_STATUSES) m.unfinished.set({ status }, now.unfinished.filter((r) => r.status === status).reduce((n, r) => n + r.count, 0));
    // USDC has 6 decimals on every network optimistic payments use.
    m.optimisticUsd.set(Number(now.optimisticAtomic.reduce((n, r) => n + r.atomic, 0n)) / 1e6);
    m.ledgerUp.set(1);
  } catch (err) {
    m.ledgerUp.set(0);
    log.warn("metrics.ledger_unreadable", { message: (err as Error).message });
  }
}

/** The Prometheus text exposition of every metric, with the scrape-time gauges read now. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const m = metrics();
  await readGauges(m);
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}
