/**
 * /v1/bundles/debug (internal): ledger counts and health for operators. It answers only
 * to `Authorization: Bearer <ADMIN_TOKEN>`; anyone else (and every request when no
 * ADMIN_TOKEN is configured) gets the same 404 as an unknown path. It never returns a
 * token, a key, a hash or an e-mail: only counts and invariant checks.
 */
import { env } from "@/lib/config/env";
import { getDbHandle } from "@/lib/db/client";
import { feeTotals } from "@/lib/payments/fees";

export async function ledgerReport(): Promise<Record<string, unknown>> {
  const h = await getDbHandle();
  const p = h.prisma;
  const [bundles, credits, tiers, keys, keysUsedToday, payments, receipts, anomalies, stalePending, fees] = await Promise.all([
    p.bundle.count(),
    p.bundle.aggregate({ _sum: { creditsTotal: true, creditsRemaining: true } }),
    p.bundle.groupBy({ by: ["tier"], _count: { _all: true }, _sum: { creditsRemaining: true } }),
    p.apiKey.count(),
    p.apiKey.count({ where: { usageDay: new Date(new Date().toISOString().slice(0, 10)) } }),
    p.payment.groupBy({ by: ["status"], _count: { _all: true } }),
    p.accessLog.groupBy({ by: ["credentialKind"], _count: { _all: true } }),
    p.$queryRaw<Array<{ n: bigint }>>`SELECT count(*)::bigint AS n FROM bundles WHERE credits_remaining < 0 OR credits_remaining > credits_total`,
    p.$queryRaw<Array<{ past_lease: bigint; unknown: bigint; landed: bigint }>>`SELECT
        count(*) FILTER (WHERE status IN ('pending', 'pending_optimistic', 'sent') AND COALESCE(lease_until, updated_at + interval '10 minutes') < now()) AS past_lease,
        count(*) FILTER (WHERE status = 'unknown') AS unknown,
        count(*) FILTER (WHERE status = 'landed') AS landed
      FROM payments WHERE status IN ('pending', 'pending_optimistic', 'sent', 'unknown', 'landed')`,
    feeTotals(),
  ]);
  const bad = Number(anomalies[0]?.n ?? 0n);
  const pastLease = Number(stalePending[0]?.past_lease ?? 0n);
  const unknown = Number(stalePending[0]?.unknown ?? 0n);
  return {
    storage: { mode: h.mode, schema: h.schema, data_dir: h.mode === "pglite" ? env().DATA_DIR : null },
    bundles: {
      count: bundles,
      credits_sold: credits._sum.creditsTotal ?? 0,
      credits_outstanding: credits._sum.creditsRemaining ?? 0,
      by_tier: Object.fromEntries(tiers.map((t) => [t.tier, { count: t._count._all, credits_outstanding: t._sum.creditsRemaining ?? 0 }])),
    },
    api_keys: { count: keys, used_today: keysUsedToday },
    payments: Object.fromEntries(payments.map((r) => [r.status, r._count._all])),
    charged_calls: Object.fromEntries(receipts.map((r) => [r.credentialKind, r._count._all])),
    // Network fees the service paid per network (native base units, as strings: wei
    // exceed JSON's safe integers), for settled payments and for transactions that failed
    // on chain or earned nothing; `ours` is the part of those of our own making that is no
    // payment's (nonce-gap fillers, settlements failed for a reason on our side).
    fees: Object.fromEntries(fees.map((f) => [f.network, { method: f.method, unit: f.unit, settled: f.settled, failed: f.failed, failed_transactions: f.failed_transactions, ours: f.ours }])),
    health: {
      // A payment pending past its holder's lease, or with an outcome still unknown, is one
      // nobody is finishing: every instance resolves them from the chain within seconds
      // (lib/payments/recovery.ts), `npm run reconcile` at once.
      ok: bad === 0 && pastLease === 0 && unknown === 0,
      bundles_out_of_range: bad,
      payments_pending_past_lease: pastLease,
      payments_outcome_unknown: unknown,
      /** Transferred on chain and not answered yet (the payer's next presentation is answered). */
      payments_paid_not_answered: Number(stalePending[0]?.landed ?? 0n),
    },
    ts: new Date().toISOString(),
  };
}
