/**
 * Optimistic payments whose confirmation did not finish: delivered, recorded as
 * "broadcast", and then the transaction was dropped or replaced by the node, reverted
 * for a reason of ours, or the process that was confirming it died (Next's `after()` is
 * not a guarantee). Each such row keeps the signed payment (`settlement_payload`), so any
 * instance can finish it:
 *
 * - the authorization was used on chain → "settled" with the transaction that used it;
 * - it was cancelled by the payer → "optimistic_failed" (the payer's failure);
 * - it is unused and the node still holds our transaction → left for a later look;
 * - it is unused and our transaction is gone (dropped, replaced, reverted) → while the
 *   transfer still simulates, the same authorization is sent again (it can only ever pay
 *   once); when it no longer does, the payer moved its funds ("optimistic_failed") or the
 *   authorization expired before we managed to settle it ("optimistic_expired": our loss,
 *   the payer is not flagged).
 *
 * Rows are claimed by moving their `updated_at` (FOR UPDATE SKIP LOCKED), so instances
 * sweeping at once never work on the same row; every outcome is written only while the
 * row is still "broadcast", so a late confirmation and the sweep cannot undo each other.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { claimBroadcasts, confirmBroadcast, replaceBroadcastTx, type BroadcastRow } from "@/lib/payments/ledger";
import type { AuthorizationOutcome } from "@/lib/payments/x402/evm-local";
import type { CheckedSettle } from "@/lib/payments/x402/facilitator-call";
import { log } from "@/lib/log";
import { countFee } from "@/lib/metrics";

/** What reconciliation needs from the chain (the in-process facilitator's). */
export interface ReconcileChain {
  outcome(payload: PaymentPayload, req: PaymentRequirements): Promise<AuthorizationOutcome>;
  /** Whether the transfer would still succeed now (null: the node did not answer). */
  simulate(payload: PaymentPayload, req: PaymentRequirements): Promise<boolean | null>;
  /** Whether the node still holds a transaction: waiting, included, or not known (dropped or replaced). */
  txState(tx: string): Promise<"pending" | "included" | "unknown">;
  /** Sends the authorization again; resolves once the node accepted it. */
  resend(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle>;
  /** Waits for a sent transfer and checks it. */
  confirm(payload: PaymentPayload, req: PaymentRequirements, tx: string): Promise<CheckedSettle>;
  /** What an included transaction cost the key (wei); null when the node does not say. */
  fee?(tx: string): Promise<bigint | null>;
}

/** How long a "broadcast" row may wait for its own confirmation before the sweep looks at it. */
export const STALE_BROADCAST_SECONDS = 10;

const expired = (payload: PaymentPayload) => {
  const a = (payload.payload as { authorization?: { validBefore?: string } }).authorization;
  return BigInt(a?.validBefore ?? 0) < BigInt(Math.floor(Date.now() / 1000) + 6);
};

/**
 * What the row's own transaction cost the key when it failed on chain (its receipt), so the
 * payer's failure counts against its fee budget (lib/payments/fees.ts); null when unknown.
 */
async function failedFee(chain: ReconcileChain, row: BroadcastRow): Promise<bigint | null> {
  if (!row.txHash || !chain.fee) return null;
  const fee = await chain.fee(row.txHash).catch(() => null);
  if (fee !== null) countFee(row.network, "failed", fee);
  return fee;
}

/** Finishes one claimed row (see the module comment). */
async function reconcileRow(chain: ReconcileChain, row: BroadcastRow): Promise<void> {
  const fields = { paymentId: row.id, network: row.network, transaction: row.txHash };
  if (!row.settlementPayload) {
    log.error("payment.optimistic_unreconcilable", { ...fields, reason: "no signed payment kept with the row" });
    return;
  }
  const { payload, requirements: req } = JSON.parse(row.settlementPayload) as { payload: PaymentPayload; requirements: PaymentRequirements };
  const settled = async (tx: string) => {
    await confirmBroadcast(row.id, { settled: true, txHash: tx });
    log.info("payment.optimistic_reconciled", { ...fields, outcome: "settled", transaction: tx });
  };
  const out = await chain.outcome(payload, req);
  if (out.kind === "transferred") return settled(out.transaction ?? row.txHash ?? "");
  if (out.kind === "void") {
    await confirmBroadcast(row.id, { settled: false, error: "authorization used or cancelled without paying us (front-run or cancelled by the payer)", fee: await failedFee(chain, row) });
    log.warn("payment.optimistic_failed", { ...fields, reason: "authorization_void", fault: "payer" });
    return;
  }
  if (row.txHash && (await chain.txState(row.txHash)) === "pending") return; // still on its way
  const pays = await chain.simulate(payload, req);
  if (pays === null) return; // the chain did not answer: a later sweep
  if (!pays) {
    // Used meanwhile by the transaction we thought gone? Then it is paid.
    const again = await chain.outcome(payload, req);
    if (again.kind === "transferred") return settled(again.transaction ?? row.txHash ?? "");
    if (expired(payload)) {
      await confirmBroadcast(row.id, { settled: false, error: "authorization expired before the service could settle it", lost: true });
      log.error("payment.optimistic_lost", { ...fields, reason: "authorization_expired", fault: "service" });
    } else {
      await confirmBroadcast(row.id, { settled: false, error: "the transfer fails on chain (funds moved or authorization used elsewhere)", fee: await failedFee(chain, row) });
      log.warn("payment.optimistic_failed", { ...fields, reason: "transfer_fails", fault: "payer" });
    }
    return;
  }
  const sent = await chain.resend(payload, req);
  if (!sent.success || !sent.transaction) {
    log.warn("payment.optimistic_resend_refused", { ...fields, reason: sent.errorReason ?? "refused" });
    return;
  }
  await replaceBroadcastTx(row.id, sent.transaction);
  log.warn("payment.optimistic_resent", { ...fields, replaced: row.txHash, transaction: sent.transaction });
  const done = await chain.confirm(payload, req, sent.transaction);
  if (done.success) await settled(done.transaction);
  // Anything else: the row stays "broadcast" with the new transaction, for the next sweep.
}

/**
 * Reconciles stale "broadcast" rows (or the one row `paymentId`, right after its own
 * confirmation failed). Failures are logged; the row is looked at again later.
 */
export async function reconcileBroadcasts(chain: ReconcileChain, opts: { paymentId?: string; limit?: number } = {}): Promise<number> {
  const rows = await claimBroadcasts({ staleSeconds: opts.paymentId ? 0 : STALE_BROADCAST_SECONDS, paymentId: opts.paymentId ?? null, limit: opts.limit ?? 20 });
  for (const row of rows) {
    await reconcileRow(chain, row).catch((err: unknown) =>
      log.warn("payment.optimistic_reconcile_failed", { paymentId: row.id, network: row.network, transaction: row.txHash, message: String((err as Error)?.message ?? err).split("\n")[0] }),
    );
  }
  return rows.length;
}
