/**
 * What the payments table holds in flight right now, for /metrics (read at scrape time):
 * payments not finished (by status and network) and the optimistic value delivered but
 * not yet confirmed. One grouped query over the statuses the ledger (./ledger.ts) keeps
 * for unfinished payments, served by the (status, updated_at) index. These are figures
 * of the shared database, the same from every instance.
 */
import { getDbHandle } from "@/lib/db/client";

/**
 * The statuses of a payment that is not finished (./ledger.ts): held by a call (pending,
 * pending_optimistic), its transaction sent (sent), delivered unconfirmed (broadcast), its
 * outcome unknown (unknown), or transferred and not answered yet (landed).
 */
export const UNFINISHED_STATUSES = ["pending", "pending_optimistic", "sent", "unknown", "broadcast", "landed"] as const;
/** The statuses whose amount counts against a payer's optimistic cap (x402_lock_payment). */
const OPTIMISTIC_IN_FLIGHT = ["pending_optimistic", "broadcast"];

export interface PaymentsInFlight {
  /** Unfinished payments by status and network. */
  unfinished: Array<{ status: string; network: string; count: number }>;
  /** Optimistic value in flight by network, in the asset's base units. */
  optimisticAtomic: Array<{ network: string; atomic: bigint }>;
}

/** The unfinished payments and the optimistic value in flight, in one query. */
export async function paymentsInFlight(): Promise<PaymentsInFlight> {
  const h = await getDbHandle();
  const rows = await h.query<{ status: string; network: string; n: number | string; atomic: string | null }>(
    `SELECT status, network, count(*)::int AS n, sum(amount_atomic)::text AS atomic
       FROM payments WHERE status IN (${UNFINISHED_STATUSES.map((s) => `'${s}'`).join(", ")}) GROUP BY status, network`,
    [],
    { name: "metrics_payments_in_flight" },
  );
  const optimistic = new Map<string, bigint>();
  for (const r of rows) {
    if (OPTIMISTIC_IN_FLIGHT.includes(r.status)) optimistic.set(r.network, (optimistic.get(r.network) ?? 0n) + BigInt(r.atomic ?? "0"));
  }
  return {
    unfinished: rows.map((r) => ({ status: r.status, network: r.network, count: Number(r.n) })),
    optimisticAtomic: [...optimistic].map(([network, atomic]) => ({ network, atomic })),
  };
}
