// `npm run reconcile`: resolves, from the chain, every payment nobody is finishing (its
// holder's lease ran out, or its settlement's outcome was left unknown) and prints what it
// did, one line per payment and a summary (lib/payments/recovery.ts). Uses the service's
// configuration (DATABASE_URL or DATA_DIR, SETTLEMENT_RPC_URL, SOLANA_RPC_URL, Horizon):
// run it with the same environment as the service. Every instance also does this every
// 10 s on its own; this is for operators who want it now, or when no instance runs.
import { closeDb } from "@/lib/db/client";
import { resolveAbandoned, type Resolution } from "@/lib/payments/recovery";

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
} catch (err) {
  console.error(`reconcile failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeDb().catch(() => undefined);
}
