// `npm run reconcile`: resolves, from the chain, every payment nobody is finishing (its
// holder's lease ran out, or its settlement's outcome was left unknown) and prints what it
// did, one line per payment and a summary (lib/payments/recovery.ts); then prices the
// service's own transactions (nonce-gap fillers) whose sender died before their receipt.
// Uses the service's configuration (DATABASE_URL or DATA_DIR, SETTLEMENT_RPC_URL, SOLANA_RPC_URL, Horizon):
// run it with the same environment as the service. Every instance also does this every
// 10 s on its own; this is for operators who want it now, or when no instance runs.
import { closeDb } from "@/lib/db/client";
import { priceServiceTransactions, resolveAbandoned, type Resolution } from "@/lib/payments/recovery";

const all: Resolution[] = [];
try {
  for (;;) {
    const batch = await resolveAbandoned({ all: true, limit: 100 });
    all.push(...batch);
    for (const r of batch) console.log(`${r.paymentId}  ${r.network}  ${r.was} -> ${r.now}  ${r.detail}`);
    // Rows left unchanged are free again at once; stop when a pass decided nothing new.
    if (batch.length < 100 || batch.every((r) => r.now === "unchanged")) break;
  }
  const count = (k: Resolution["now"]) => all.filter((r) => r.now === k).length;
  console.log(`reconciled ${all.length} payment(s): ${count("landed")} landed (charged, answered when presented again), ${count("failed")} failed, ${count("expired")} expired (nothing charged), ${count("unchanged")} unchanged`);
  // The service's own transactions whose sender died before it learned their fee.
  const priced = await priceServiceTransactions({ all: true, limit: 1000 });
  for (const p of priced) console.log(`${p.transaction}  ${p.network}  ${p.reason} -> ${p.now}  ${p.detail}`);
  const of = (k: (typeof priced)[number]["now"]) => priced.filter((p) => p.now === k).length;
  console.log(`own transactions: ${of("priced")} priced, ${of("forgotten")} forgotten (never mined), ${of("unchanged")} unchanged`);
} catch (err) {
  console.error(`reconcile failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeDb().catch(() => undefined);
}
