/**
 * The payments table is the replay guard: a payment's reference (EIP-3009 nonce per
 * payer, Solana signature, Stellar transaction hash) is inserted as "pending" BEFORE the
 * handler runs; the unique (network, reference) constraint lets exactly one of any
 * number of concurrent copies through. A call that fails before settlement deletes its
 * pending row (nothing was settled, the payer may present the same authorization again);
 * a settled or failed-to-settle row stays forever.
 *
 * A settlement whose outcome could not be learned (a timeout after the transaction may
 * have been broadcast) leaves the row "unknown": it is never settled twice, and the same
 * payment presented again claims the row so the outcome can be read from the chain.
 */
import { randomUUID } from "node:crypto";
import { db, getDbHandle } from "@/lib/db/client";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ReceiptInput } from "@/lib/access/receipts";
import { accessLogInsert } from "@/lib/access/receipts";

export interface PaymentLock {
  id: string;
  network: string;
  reference: string;
  /** Set when this lock took over a row left "unknown" by an earlier attempt. */
  reclaimed?: { txHash: string | null };
  /** When the lock asked for a share of the payer's optimistic cap (see lockPayment): what it got. */
  optimistic?: OptimisticReservation;
}

export interface LockInput {
  scheme: string;
  network: string;
  reference: string;
  payer: string | null;
  amountAtomic: bigint;
  asset: string;
  payTo: string;
  product: string;
  surface: string;
}

/** A share of the payer's optimistic cap asked for with the lock: the cap, and the signed payment the row keeps until its transfer is confirmed. */
export interface OptimisticAsk {
  capAtomic: bigint;
  settlementPayload: string;
}

/** What the lock's reservation decided: reserved, no room (confirmed mode), or a payer refused for an earlier failure. */
export type OptimisticReservation = { reserved: true } | { reserved: false; failed: { paymentId: string; txHash: string | null } | null };

/**
 * How long a reservation of the optimistic cap counts without its call finishing: a live
 * call holds one for its handler and settlement (bounded by their timeouts, well under
 * this); one older belongs to a process that died mid-call and must not block the payer.
 */
const RESERVATION_SECONDS = 120;

/**
 * A lock that reserved a share of the optimistic cap commits without waiting for its log
 * record to reach the disk (`synchronous_commit` off, for its own transaction only). The
 * call's next write comes milliseconds later and before its answer: the payment's record
 * and receipt (recordSettlement, written while the transfer is broadcast), or the release
 * or failure mark of a call that did not go through. That write commits synchronously, and
 * PostgreSQL flushes its log in order, so the lock is on disk before anything leaves the
 * service. The lock is visible to every other session at once, so the replay guard is
 * unchanged while the database is up; a PostgreSQL crash in those milliseconds can lose
 * the row of a call that has not answered (the record then fails, as it would anyway).
 * Every other lock commits synchronously, as before: a confirmed-mode call's next write
 * comes a block later. Measured on this machine (2026-11-25): the flush is ~1.1 ms of the
 * lock's round trip after an idle stretch, the longest step of an optimistic call.
 */
const ASYNC_IF_RESERVED = `CROSS JOIN LATERAL set_config('synchronous_commit', CASE WHEN l.reserved THEN 'off' ELSE current_setting('synchronous_commit') END, true) AS c`;
/** prisma/migrations/20261124200000_payment_lock_function: the insert, and the optimistic reservation when asked, in one round trip. */
export const LOCK = `SELECT l.locked, l.reserved, l.failed_id, l.failed_tx
  FROM x402_lock_payment($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9, $10, $11::bigint, $12, $13) l ${ASYNC_IF_RESERVED}`;
/** prisma/migrations/20261125000000_nonce_take_in_lock: the same, and the broadcast's nonce when it reserved. */
export const LOCK_TAKING_NONCE = `SELECT l.locked, l.reserved, l.failed_id, l.failed_tx, l.nonce, l.need_fresh, l.wait_ms
  FROM x402_lock_payment_taking_nonce($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9, $10, $11::bigint, $12, $13, $14, $15::bigint, $16::bigint, $17, $18, $19) l ${ASYNC_IF_RESERVED}`;

/**
 * A nonce of the facilitator key taken in the lock's statement, for the broadcast of an
 * optimistic payment (lib/payments/x402/nonces.ts, TakeInStatement: evm_take_nonce's
 * arguments and what to do with its answer).
 */
export interface LockNonceTake {
  args: readonly [address: string, pending: number, latest: number, token: string, expirySeconds: number, graceSeconds: number];
  took(row: { nonce: string | null; need_fresh: boolean | null; wait_ms: number | null } | null): void;
  failed(err: unknown): void;
}

/**
 * Records the payment as pending (one statement on the raw driver: this is on every paid
 * call's path). A payment seen before is refused with payment_replayed, unless an earlier
 * attempt left its outcome unknown: then this call takes the row over (`reclaimed`).
 *
 * `optimistic`: the same statement also takes the price from the payer's optimistic cap
 * when the payer is in good standing (no optimistic payment failed since its last one
 * settled in confirmed mode) and its value in flight (delivered unconfirmed, or reserved
 * by concurrent calls on any instance) leaves room; the row is then
 * `pending_optimistic` and keeps the signed payment until its transfer is confirmed (see
 * reconcile.ts). Concurrent calls of one payer never pass the cap together (an advisory
 * lock on the payer, see the migration). The answer is on the lock (`optimistic`); a
 * taken-over row never reserves (it settles in confirmed mode). EVM payers are stored and
 * compared in lower case (index payments_network_payer_status_idx).
 *
 * `nonce` (with `optimistic`): the same statement also takes the nonce of the payment's
 * broadcast when it reserved a share, so that optimistic call makes one round trip to the
 * database before its handler, not two; `took` is told the answer (null when nothing was
 * taken: not locked, or no share), `failed` when the statement failed.
 */
export async function lockPayment(p: LockInput, optimistic?: OptimisticAsk, nonce?: LockNonceTake | null): Promise<PaymentLock> {
  const taking = optimistic && nonce ? nonce : null;
  let rows: LockRow[];
  const id = randomUUID();
  try {
    rows = await lockRows(id, p, optimistic, taking);
  } catch (err) {
    taking?.failed(err);
    throw err;
  }
  const r = rows[0];
  taking?.took(r?.locked && r.reserved ? { nonce: r.nonce ?? null, need_fresh: r.need_fresh ?? null, wait_ms: r.wait_ms ?? null } : null);
  if (r?.locked) {
    const lock: PaymentLock = { id, network: p.network, reference: p.reference };
    if (optimistic) lock.optimistic = r.reserved ? { reserved: true } : { reserved: false, failed: r.failed_id ? { paymentId: r.failed_id, txHash: r.failed_tx } : null };
    return lock;
  }
  const claimed = await claimUnknownPayment(p.network, p.reference);
  if (claimed) return claimed;
  throw new ApiError("payment_replayed", "This payment authorization has already been used (or is being used by a concurrent request). Sign a new one.");
}

type LockRow = { locked: boolean; reserved: boolean; failed_id: string | null; failed_tx: string | null; nonce?: string | null; need_fresh?: boolean | null; wait_ms?: number | null };

async function lockRows(id: string, p: LockInput, optimistic: OptimisticAsk | undefined, nonce: LockNonceTake | null): Promise<LockRow[]> {
  const h = await getDbHandle();
  const payer = optimistic ? (p.payer?.toLowerCase() ?? null) : p.payer;
  const params = [
    id,
    p.scheme,
    p.network,
    p.reference,
    payer,
    p.amountAtomic.toString(),
    p.asset,
    p.payTo,
    p.product,
    p.surface,
    optimistic ? optimistic.capAtomic.toString() : null,
    optimistic?.settlementPayload ?? null,
    RESERVATION_SECONDS,
  ];
  if (!nonce) return h.query<LockRow>(LOCK, params, { name: "payment_lock" });
  return h.query<LockRow>(LOCK_TAKING_NONCE, [...params, ...nonce.args], { name: "payment_lock_nonce" });
}

/**
 * A locked payment that holds a share of its payer's optimistic cap (reserveOptimistic):
 * pending in every other respect (released, reclaimed and counted stale like "pending").
 */
const PENDING_OPTIMISTIC = "pending_optimistic";

/** Forgets a pending payment whose call failed before settlement. */
async function unlockPayment(lock: PaymentLock): Promise<void> {
  const prisma = await db();
  await prisma.payment.deleteMany({ where: { id: lock.id, status: { in: ["pending", PENDING_OPTIMISTIC] } } });
}

/**
 * Takes over the row of this payment when an earlier attempt left its outcome unknown, or
 * left it pending for over 10 minutes (its process died mid-call: no live call holds a
 * payment that long, timeouts end them within a minute); null when the payment is
 * settled, failed or in use by a concurrent call.
 */
async function claimUnknownPayment(network: string, reference: string): Promise<PaymentLock | null> {
  const h = await getDbHandle();
  const rows = await h.query<{ id: string; tx_hash: string | null }>(
    `UPDATE payments SET status = 'pending', updated_at = now()
      WHERE network = $1 AND reference = $2
        AND (status = 'unknown' OR (status IN ('pending', '${PENDING_OPTIMISTIC}') AND updated_at < now() - interval '10 minutes'))
      RETURNING id, tx_hash`,
    [network, reference],
  );
  const row = rows[0];
  return row ? { id: row.id, network, reference, reclaimed: { txHash: row.tx_hash } } : null;
}

const SETTLE_WITH_RECEIPT = `WITH u AS (
    UPDATE payments SET status = $9, tx_hash = $2, payer = COALESCE(payer, $3), error = NULL, updated_at = now()
     WHERE id = $1
    RETURNING id
  )
  ${accessLogInsert({ id: "$4", product: "$5", surface: "$6", credential_kind: "$7", amount_usd: "$8", payer: "$3", tx_hash: "$2", payment_id: "u.id" }, "u")}`;

/**
 * Records a settled payment and writes its receipt in one statement; returns the receipt
 * id. The money has moved by now: callers deliver the result even if this fails.
 */
export async function recordSettlement(
  lock: PaymentLock,
  txHash: string,
  payer: string | null,
  receipt: Pick<ReceiptInput, "product" | "surface" | "credentialKind" | "amountUsd">,
  /** "broadcast": delivered in optimistic mode, its transfer not confirmed yet (see confirmBroadcast). */
  status: "settled" | "broadcast" = "settled",
): Promise<string> {
  const h = await getDbHandle();
  const id = randomUUID();
  const rows = await h.query<{ id: string }>(SETTLE_WITH_RECEIPT, [lock.id, txHash, payer, id, receipt.product, receipt.surface, receipt.credentialKind, receipt.amountUsd ?? null, status], { name: "payment_settle_with_receipt" });
  if (rows.length !== 1) throw new Error(`payment row ${lock.id} not found`);
  return id;
}

/** Marks a payment whose settlement may or may not have happened (see claimUnknownPayment). */
export async function markUnknown(lock: PaymentLock, error: string, txHash: string | null): Promise<void> {
  const prisma = await db();
  await prisma.payment
    .update({ where: { id: lock.id }, data: { status: "unknown", error: error.slice(0, 500), ...(txHash ? { txHash } : {}) } })
    .catch((err: unknown) => log.error("payment.mark_failed", { paymentId: lock.id, status: "unknown", message: (err as Error).message }));
}

/**
 * When a payment whose settlement outcome is still unknown was first accepted (seconds
 * since the epoch), or null when there is no such row. A retry of that payment is judged
 * as of then: its quote or time bounds may have run out while the outcome was unknown,
 * and the transfer may have been applied meanwhile.
 */
export async function unknownSince(network: string, reference: string): Promise<number | null> {
  const h = await getDbHandle();
  const rows = await h.query<{ since: string | number }>(`SELECT extract(epoch FROM created_at) AS since FROM payments WHERE network = $1 AND reference = $2 AND status = 'unknown'`, [network, reference]);
  return rows[0] ? Math.floor(Number(rows[0].since)) : null;
}

/** Puts a reclaimed row back to "unknown" when the retry itself could not decide. */
export async function releaseLock(lock: PaymentLock): Promise<void> {
  if (!lock.reclaimed) return unlockPayment(lock);
  const prisma = await db();
  await prisma.payment.updateMany({ where: { id: lock.id, status: "pending" }, data: { status: "unknown" } });
}

export async function markFailed(lock: PaymentLock, error: string): Promise<void> {
  const prisma = await db();
  await prisma.payment
    .update({ where: { id: lock.id }, data: { status: "failed", error: error.slice(0, 500) } })
    .catch((err: unknown) => log.error("payment.mark_failed", { paymentId: lock.id, status: "failed", message: (err as Error).message }));
}

/**
 * The outcome of an optimistic payment, once known: its transfer was included
 * ("settled"), or it failed after the data was delivered: "optimistic_failed" when the
 * payment itself failed (the payment row and the receipt say so, and the payer is refused
 * optimistic service, see optimisticFailure), "optimistic_expired" (`lost`) when the
 * authorization expired before the service managed to settle it (its loss, not the
 * payer's). Written only while the row is still "broadcast".
 */
export async function confirmBroadcast(paymentId: string, outcome: { settled: true; txHash: string } | { settled: false; error: string; lost?: boolean }): Promise<void> {
  const h = await getDbHandle();
  if (outcome.settled) {
    await h.query(`UPDATE payments SET status = 'settled', tx_hash = $2, updated_at = now() WHERE id = $1 AND status = 'broadcast'`, [paymentId, outcome.txHash]);
    return;
  }
  await h.query(
    `WITH u AS (UPDATE payments SET status = $3, error = $2, updated_at = now() WHERE id = $1 AND status = 'broadcast' RETURNING id)
     UPDATE access_log SET status = 'settlement_failed' WHERE payment_id IN (SELECT id FROM u)`,
    [paymentId, outcome.error.slice(0, 500), outcome.lost ? "optimistic_expired" : "optimistic_failed"],
  );
}

/** A delivered optimistic payment to reconcile (lib/payments/x402/reconcile.ts). */
export interface BroadcastRow {
  id: string;
  network: string;
  txHash: string | null;
  settlementPayload: string | null;
}

/**
 * Claims "broadcast" rows whose confirmation has not finished for `staleSeconds` (or the
 * row `paymentId`): their `updated_at` moves to now, so another instance sweeping at the
 * same time skips them (SKIP LOCKED) and does not take them again before they are stale.
 */
export async function claimBroadcasts(o: { staleSeconds: number; paymentId: string | null; limit: number }): Promise<BroadcastRow[]> {
  const h = await getDbHandle();
  const rows = await h.query<{ id: string; network: string; tx_hash: string | null; settlement_payload: string | null }>(
    `UPDATE payments SET updated_at = now() WHERE id IN (
       SELECT id FROM payments
        WHERE status = 'broadcast' AND updated_at <= now() - make_interval(secs => $1::double precision) AND ($2::text IS NULL OR id = $2)
        ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING id, network, tx_hash, settlement_payload`,
    [o.staleSeconds, o.paymentId, o.limit],
  );
  return rows.map((r) => ({ id: r.id, network: r.network, txHash: r.tx_hash, settlementPayload: r.settlement_payload }));
}

/** Records the transaction that sends a delivered optimistic payment's authorization again (on the payment and its receipt). */
export async function replaceBroadcastTx(paymentId: string, txHash: string): Promise<void> {
  const h = await getDbHandle();
  await h.query(
    `WITH u AS (UPDATE payments SET tx_hash = $2, updated_at = now() WHERE id = $1 AND status = 'broadcast' RETURNING id)
     UPDATE access_log SET tx_hash = $2 WHERE payment_id IN (SELECT id FROM u)`,
    [paymentId, txHash],
  );
}

/**
 * Takes back a "broadcast" record written while its transaction was being sent (see
 * hold.ts, optimistic mode) when the node did not take the transaction: the receipt goes
 * and the row is pending again, for the settlement's failure handling to end as usual.
 */
export async function unrecordBroadcast(lock: PaymentLock, receiptId: string): Promise<void> {
  const h = await getDbHandle();
  await h.query(
    `WITH r AS (DELETE FROM access_log WHERE id = $2 AND payment_id = $1)
     UPDATE payments SET status = '${PENDING_OPTIMISTIC}', tx_hash = NULL, updated_at = now() WHERE id = $1 AND status = 'broadcast'`,
    [lock.id, receiptId],
  );
}
