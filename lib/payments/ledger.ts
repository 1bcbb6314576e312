/**
 * The payments table is the replay guard and the payment's state machine. A payment's
 * reference (EIP-3009 nonce per payer, Solana signature, Stellar transaction hash) is
 * inserted as "pending" BEFORE the handler runs; the unique (network, reference)
 * constraint lets exactly one of any number of concurrent copies through. Then, each step
 * written before the next can be seen from outside: "sent" (its transaction's hash, before
 * the transaction goes out; optimistic calls write "broadcast" while it goes out),
 * "settled" with the receipt and the answer that is sent (one statement), or "unknown"
 * (a transfer that may have happened), "failed" (the payment itself failed), "landed"
 * (found transferred by reconciliation, not answered yet), "expired" (never used).
 *
 * Whoever holds a payment in flight holds it by a lease it renews (lib/payments/leases.ts):
 * the same payment presented again, on any instance, gets the answer it got the first time
 * (served), a pending answer while a live holder works on it, or takes the row over when
 * its holder is gone or left the outcome to the chain, and finishes it from the store and
 * the chain. A call that fails before settlement deletes its row: nothing was settled and
 * the payer may present the same authorization again.
 */
import { randomUUID } from "node:crypto";
import { db, getDbHandle } from "@/lib/db/client";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ReceiptInput } from "@/lib/access/receipts";
import { accessLogInsert } from "@/lib/access/receipts";
import { env } from "@/lib/config/env";
import { brand } from "@/lib/errors/brand";
import { holdLease, leaseHolder, leaseSeconds, releaseLease } from "@/lib/payments/leases";
import type { TakeRow, TakeStatement } from "@/lib/payments/x402/take-statement";

export interface PaymentLock {
  id: string;
  network: string;
  reference: string;
  /**
   * Set when this lock took over a row from an earlier attempt: one that left the outcome
   * "unknown", found transferred by reconciliation ("landed"), or whose holder is gone.
   * `txHash`: the transaction that attempt sent, if it got that far.
   */
  reclaimed?: { txHash: string | null; status: string };
  /** When the lock asked for a share of the payer's optimistic cap (see lockPayment): what it got. */
  optimistic?: OptimisticReservation;
  /**
   * The value (base units) of the payer's other payments in flight when this one was
   * locked (held by live calls, sent, or delivered unconfirmed): 0 for a payer's
   * sequential calls. When not 0, the payer's balance must cover them and this one.
   */
  payerInFlight?: bigint;
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
  /** What the payment is (lib/payments/answers.ts, paymentIdentity); null when it could not be read. */
  identity?: string | null;
  /** SHA-256 of its x402 payment-identifier id, when it carries one. */
  idempotencyKey?: string | null;
  /** When it can no longer be used (seconds since the epoch), if known. */
  expiresAt?: number | null;
}

/**
 * The payment was answered before: the answer kept with it (JSON, secrets sealed; see
 * lib/payments/answers.ts) and the product it was for. Thrown by lockPayment; the gate
 * sends that answer again instead of running the call.
 */
export class AnsweredBefore extends Error {
  constructor(
    readonly paymentId: string,
    readonly response: string,
    readonly product: string,
  ) {
    super(`payment ${paymentId} was answered before`);
    this.name = "AnsweredBefore";
  }
}
brand(AnsweredBefore, "AnsweredBefore");

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
const LOCK_COLUMNS = "l.outcome, l.reserved, l.failed_id, l.failed_tx, l.row_id, l.row_status, l.row_product, l.row_tx, l.row_error, l.row_created, l.response, l.lease_ms, l.payer_in_flight";
/** prisma/migrations/20261126210000_payer_funds_in_flight: the insert (or what the row of a payment seen before says), and the optimistic reservation when asked, in one round trip. */
export const LOCK = `SELECT ${LOCK_COLUMNS}
  FROM x402_lock_payment($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9, $10, $11::bigint, $12, $13, $14, $15, $16, $17, $18::bigint, $19, $20) l ${ASYNC_IF_RESERVED}`;
/**
 * The same, and the broadcast's nonce when it reserved and the payer has nothing else in
 * flight or its balance ($27, read during verification; NULL: not read; $28 when that read
 * was sent, epoch seconds) covers that and this payment; with a balance given, the payer's
 * payments settled since the read count as in flight (in `payer_in_flight` too)
 * (prisma/migrations/20261127064500_lock_nonce_with_balance).
 */
export const LOCK_TAKING_NONCE = `SELECT ${LOCK_COLUMNS}, l.nonce, l.need_fresh, l.wait_ms
  FROM x402_lock_payment_taking_nonce($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9, $10, $11::bigint, $12, $13, $14, $15, $16, $17, $18::bigint, $19, $20, $21, $22::bigint, $23::bigint, $24, $25, $26, $27::bigint, $28) l ${ASYNC_IF_RESERVED}`;

/** The payer's balance being read from the chain, and when that read was sent (ms since the epoch). */
export interface BalanceRead {
  value: Promise<bigint | null>;
  sentAt: number;
}

/** Whether the lock statement takes the broadcast's nonce (x402_lock_payment_taking_nonce's condition). */
export const takesNonce = (reserved: boolean, inFlight: bigint, amount: bigint, balance: bigint | null): boolean =>
  reserved && (inFlight === 0n || (balance !== null && inFlight + amount <= balance));

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
 * Records the payment as pending, held by this process's lease (one statement on the raw
 * driver: this is on every paid call's path). A payment seen before is answered from its
 * row in the same round trip:
 * - answered before → AnsweredBefore (its kept answer, sent again by the gate);
 * - held by a live process → 503 settlement_pending with Retry-After (the lease left);
 * - its holder gone (lease run out), its outcome left "unknown", or found transferred
 *   ("landed") → this call takes it over (`reclaimed`) and finishes it from the chain;
 * - the same reference or payment identifier with another payload → 409 payment_conflict;
 * - settled, failed or expired for good → 402, saying which.
 *
 * `optimistic`: the same statement also takes the price from the payer's optimistic cap
 * when the payer is in good standing (no optimistic payment failed since its last one
 * settled in confirmed mode) and its value in flight (delivered unconfirmed, or reserved
 * by concurrent calls on any instance) leaves room, and the service-wide cap
 * (X402_OPTIMISTIC_SERVICE_CAP_USD: every payer's value in flight plus recent losses)
 * does too; the row is then `pending_optimistic` and keeps the signed payment until its
 * transfer is confirmed (see reconcile.ts). Concurrent calls never pass a cap together (an
 * advisory lock per network, see the migration). The answer is on the lock
 * (`optimistic`); a taken-over row never reserves (it settles in confirmed mode). EVM
 * payers are stored and compared in lower case (index payments_network_payer_status_updated_at_idx).
 *
 * `nonce` (with `optimistic`): the same statement also takes the nonce of the payment's
 * broadcast when it reserved a share, so that optimistic call makes one round trip to the
 * database before its handler, not two; `took` is told the answer (null when nothing was
 * taken: not locked, or no share), `failed` when the statement failed. With other payments
 * of the payer in flight it takes one only when `balance` (the payer's balance, being read
 * from the chain; the statement waits for it) covers them and this one; the payer's
 * payments settled since that read was sent then count as in flight (`payerInFlight`).
 */
export async function lockPayment(p: LockInput, optimistic?: OptimisticAsk, nonce?: LockNonceTake | null, balance?: BalanceRead | null): Promise<PaymentLock> {
  const taking = optimistic && nonce ? nonce : null;
  const funds = taking && balance ? { value: await balance.value, sentAt: balance.sentAt } : null;
  for (let attempt = 0; ; attempt++) {
    let rows: LockRow[];
    const id = randomUUID();
    try {
      rows = await lockRows(id, p, optimistic, taking, funds);
    } catch (err) {
      taking?.failed(err);
      throw err;
    }
    const r = rows[0]!;
    const locked = r.outcome === "locked";
    taking?.took(locked && takesNonce(!!r.reserved, BigInt(r.payer_in_flight ?? 0), p.amountAtomic, funds?.value ?? null) ? { nonce: r.nonce ?? null, need_fresh: r.need_fresh ?? null, wait_ms: r.wait_ms ?? null } : null);
    if (locked || r.outcome === "reclaimed") {
      const lock: PaymentLock = { id: r.row_id!, network: p.network, reference: p.reference, payerInFlight: BigInt(r.payer_in_flight ?? 0) };
      if (r.outcome === "reclaimed") lock.reclaimed = { txHash: r.row_tx, status: r.row_status ?? "unknown" };
      else if (optimistic) lock.optimistic = r.reserved ? { reserved: true } : { reserved: false, failed: r.failed_id ? { paymentId: r.failed_id, txHash: r.failed_tx } : null };
      holdLease(lock.id);
      return lock;
    }
    if (r.outcome === "retry" && attempt < 3) continue;
    throw seenBefore(r);
  }
}

type LockRow = {
  outcome: "locked" | "reclaimed" | "served" | "in_progress" | "conflict" | "done" | "retry";
  reserved: boolean;
  failed_id: string | null;
  failed_tx: string | null;
  row_id: string | null;
  row_status: string | null;
  row_product: string | null;
  row_tx: string | null;
  row_error: string | null;
  row_created: number | null;
  response: string | null;
  lease_ms: number | null;
  payer_in_flight?: string | number | null;
  nonce?: string | null;
  need_fresh?: boolean | null;
  wait_ms?: number | null;
};

/** What a payment seen before is told (see lockPayment). */
function seenBefore(r: LockRow): Error {
  const id = r.row_id ?? "unknown";
  switch (r.outcome) {
    case "served":
      return new AnsweredBefore(id, r.response!, r.row_product!);
    case "in_progress": {
      const seconds = Math.max(1, Math.ceil((r.lease_ms ?? 0) / 1000));
      return new ApiError(
        "settlement_pending",
        `This payment is being processed by another request (payment id ${id}); nothing is settled twice. Send the same request with the same payment again in ${seconds} s: you will get its answer, or the payment taken over if that request stopped.`,
        { retryAfterSeconds: seconds, extra: { payment_id: id, reason: "in_progress", fault: "unknown" } },
      );
    }
    case "conflict":
      return new ApiError(
        "payment_conflict",
        `Another payment with this reference or payment identifier was presented before (payment id ${id}): the same authorization, transaction or payment-identifier id cannot carry another payload. Nothing was charged for this request.`,
        { extra: { payment_id: id } },
      );
    default:
      return finalRefusal(id, r);
  }
}

/** A payment that reached a final state without an answer to send again. */
function finalRefusal(id: string, r: LockRow): ApiError {
  const why = r.row_error ? ` (${r.row_error.split("\n")[0]})` : "";
  switch (r.row_status) {
    case "failed":
      return new ApiError("settlement_failed", `This payment was refused before${why}: its transfer cannot be settled. Nothing was charged. Payment id ${id}.`, { extra: { payment_id: id, fault: "payer" } });
    case "expired":
      return new ApiError("payment_invalid", `This payment expired before it was settled; nothing was charged. Sign a new one. Payment id ${id}.`, { extra: { payment_id: id } });
    case "optimistic_failed":
      return new ApiError("payment_replayed", `This payment was delivered before and its transfer then failed on chain${why}. Sign a new one. Payment id ${id}.`, { extra: { payment_id: id } });
    default:
      return new ApiError("payment_replayed", `This payment authorization has already been used and settled (payment id ${id}). Sign a new one.`, { extra: { payment_id: id } });
  }
}

/**
 * A payment refused before its lock (its authorization expired, say) that was seen before:
 * null when it was not (or when it may be taken over: `takeOver` gives when it was first
 * accepted, to judge it as of then); otherwise what lockPayment would say (its answer
 * again, in progress, conflict, or its final refusal), thrown. One read.
 */
export async function paymentSeen(network: string, reference: string, identity: string | null): Promise<{ takeOver: number } | null> {
  const h = await getDbHandle();
  const rows = await h.query<LockRow>(
    `SELECT x402_seen_outcome(p, $1, $2, $3) AS outcome, false AS reserved, p.id AS row_id, p.status AS row_status, p.product AS row_product,
            p.tx_hash AS row_tx, p.error AS row_error, extract(epoch FROM p.created_at)::float8 AS row_created, p.response,
            greatest(0, ceil(extract(epoch FROM COALESCE(p.lease_until, p.updated_at + interval '10 minutes') - now()) * 1000))::int AS lease_ms
       FROM payments p WHERE p.network = $1 AND p.reference = $2`,
    [network, reference, identity],
    { name: "payment_seen" },
  );
  const r = rows[0];
  if (!r) return null;
  if ((r.outcome as string) === "reclaimable") return { takeOver: Math.floor(Number(r.row_created)) };
  throw seenBefore(r);
}

async function lockRows(id: string, p: LockInput, optimistic: OptimisticAsk | undefined, nonce: LockNonceTake | null, balance: { value: bigint | null; sentAt: number } | null): Promise<LockRow[]> {
  const h = await getDbHandle();
  const cfg = env();
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
    leaseHolder(),
    leaseSeconds(),
    p.identity ?? null,
    p.idempotencyKey ?? null,
    optimistic ? usdAtomic(cfg.X402_OPTIMISTIC_SERVICE_CAP_USD) : null,
    cfg.X402_OPTIMISTIC_LOSS_WINDOW_SECONDS,
    p.expiresAt ?? null,
  ];
  if (!nonce) return h.query<LockRow>(LOCK, params, { name: "payment_lock" });
  return h.query<LockRow>(LOCK_TAKING_NONCE, [...params, ...nonce.args, balance?.value?.toString() ?? null, balance?.value != null ? balance.sentAt / 1000 : null], { name: "payment_lock_nonce_balance" });
}

/** A USD amount in USDC base units (6 decimals), as the caps are compared in. */
const usdAtomic = (usd: number) => BigInt(Math.round(usd * 1_000_000)).toString();

/**
 * A locked payment that holds a share of its payer's optimistic cap (reserveOptimistic):
 * pending in every other respect (released, reclaimed and counted stale like "pending").
 */
const PENDING_OPTIMISTIC = "pending_optimistic";

/** The value of the payer's payments in flight other than `except`, now (see the lock's payer_in_flight). */
export async function payerInFlight(network: string, payer: string, except: string): Promise<bigint> {
  const h = await getDbHandle();
  const rows = await h.query<{ v: string }>(
    `SELECT COALESCE(sum(amount_atomic), 0)::text AS v FROM payments
      WHERE network = $1 AND payer = $2 AND id <> $3 AND status IN ('pending', 'pending_optimistic', 'sent', 'broadcast')
        AND (status IN ('sent', 'broadcast') OR lease_until > now())`,
    [network, payer, except],
  );
  return BigInt(rows[0]?.v ?? "0");
}

/** Forgets a pending payment whose call failed before settlement. */
async function unlockPayment(lock: PaymentLock): Promise<void> {
  const prisma = await db();
  await prisma.payment.deleteMany({ where: { id: lock.id, status: { in: ["pending", PENDING_OPTIMISTIC, "sent"] } } });
}

/**
 * Records the transaction a settlement is about to send (confirmed mode: written before it
 * goes out, so whoever takes the payment over after a crash waits for that transaction
 * instead of sending a second one).
 */
export async function markSent(lock: PaymentLock, txHash: string): Promise<void> {
  const h = await getDbHandle();
  await h.query(`UPDATE payments SET status = 'sent', tx_hash = $2, updated_at = now() WHERE id = $1 AND status IN ('pending', 'sent')`, [lock.id, txHash], { name: "payment_mark_sent" });
}

/**
 * The facilitator key's nonce take (lib/payments/x402/nonces.ts, TAKE: evm_take_nonce, $1 to
 * $8) and markSent's write of transaction $10 on payment $9, applied only when the take
 * gives nonce $11: the transaction signed on that nonce is the one recorded. A data-changing
 * WITH runs whether or not the query reads it, and the take runs once (MATERIALIZED).
 */
const TAKE_MARKING_SENT = `WITH t AS MATERIALIZED (
    SELECT nonce, need_fresh, wait_ms FROM evm_take_nonce($1, $2::bigint, $3::bigint, $4, $5, $6, $7, $8)
  ), s AS (
    UPDATE payments SET status = 'sent', tx_hash = $10, updated_at = now()
     WHERE id = $9 AND status IN ('pending', 'sent') AND (SELECT nonce FROM t) = $11::text
  )
  SELECT nonce, need_fresh, wait_ms FROM t`;

/**
 * markSent in the statement that takes the nonce of the settlement's transaction (confirmed
 * mode, lib/payments/x402/sender.ts): `txHash`, signed on nonce `nonce` before the take, is
 * recorded exactly when the take gives that nonce, in the same transaction, so the row names
 * the transaction before it goes out as with markSent, one round trip to the database
 * earlier. Any other answer wrote nothing here (the sender then signs on the nonce it got
 * and calls markSent).
 */
export function takeMarkingSent(lock: PaymentLock, txHash: string, nonce: number): TakeStatement {
  return async (args) => {
    const h = await getDbHandle();
    return h.query<TakeRow>(TAKE_MARKING_SENT, [...args, lock.id, txHash, String(nonce)], { name: "evm_nonce_take_marking_sent" });
  };
}

const SETTLE_WITH_RECEIPT = `WITH u AS (
    UPDATE payments SET status = $9, tx_hash = $2, payer = COALESCE(payer, $3), error = NULL, updated_at = now(),
                        response = $10, served_at = CASE WHEN $10::text IS NULL THEN NULL ELSE now() END,
                        fee_native = COALESCE($11::bigint, fee_native)
     WHERE id = $1 AND status IN ('pending', '${PENDING_OPTIMISTIC}', 'sent')
    RETURNING id
  ), r AS (
    ${accessLogInsert({ id: "$4", product: "$5", surface: "$6", credential_kind: "$7", amount_usd: "$8", payer: "$3", tx_hash: "$2", payment_id: "u.id" }, "u")}
  )
  SELECT (SELECT id FROM u) AS recorded, p.response AS kept
    FROM payments p WHERE p.id = $1`;

/**
 * Records a settled payment, writes its receipt `receiptId` and keeps its answer
 * (`answer`, see lib/payments/answers.ts) in one statement. The money has moved by now:
 * callers deliver the result even if this fails. When another process recorded the
 * payment first (it took the row over while this one's lease had run out), nothing is
 * written twice and that record's answer is returned to be sent instead.
 */
export async function recordSettlement(
  lock: PaymentLock,
  txHash: string,
  payer: string | null,
  receipt: Pick<ReceiptInput, "product" | "surface" | "credentialKind" | "amountUsd">,
  /** "broadcast": delivered in optimistic mode, its transfer not confirmed yet (see confirmBroadcast). */
  status: "settled" | "broadcast" = "settled",
  answer: { receiptId: string; json: string | null } = { receiptId: randomUUID(), json: null },
  /** The network fee the service paid for its transaction (native base units), when known (lib/payments/fees.ts). */
  fee: bigint | null = null,
): Promise<{ receiptId: string | null; recordedBefore: string | null }> {
  const h = await getDbHandle();
  const rows = await h.query<{ recorded: string | null; kept: string | null }>(
    SETTLE_WITH_RECEIPT,
    [lock.id, txHash, payer, answer.receiptId, receipt.product, receipt.surface, receipt.credentialKind, receipt.amountUsd ?? null, status, answer.json, fee === null ? null : fee.toString()],
    { name: "payment_settle_with_receipt" },
  );
  releaseLease(lock.id);
  const r = rows[0];
  if (!r) throw new Error(`payment row ${lock.id} not found`);
  // Not written: another process recorded it first (its answer, if it kept one, stands).
  return r.recorded ? { receiptId: answer.receiptId, recordedBefore: null } : { receiptId: null, recordedBefore: r.kept };
}

/** Marks a payment whose settlement may or may not have happened: the next presentation of it takes it over (lockPayment). */
export async function markUnknown(lock: PaymentLock, error: string, txHash: string | null): Promise<void> {
  releaseLease(lock.id);
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
  releaseLease(lock.id);
  if (!lock.reclaimed) return unlockPayment(lock);
  const prisma = await db();
  await prisma.payment.updateMany({ where: { id: lock.id, status: { in: ["pending", "sent"] } }, data: { status: "unknown" } });
}

/** Deletes the row of a payment taken over and found never transferred and refused now: it may be presented again. */
export async function forgetLock(lock: PaymentLock): Promise<void> {
  releaseLease(lock.id);
  return unlockPayment(lock);
}

/** A payment never transferred whose authorization can no longer be used: nothing was charged, for good. */
export async function markExpired(lock: PaymentLock): Promise<void> {
  releaseLease(lock.id);
  const prisma = await db();
  await prisma.payment
    .updateMany({ where: { id: lock.id, status: { in: ["pending", "sent", "unknown"] } }, data: { status: "expired", error: "the authorization expired unused" } })
    .catch((err: unknown) => log.error("payment.mark_failed", { paymentId: lock.id, status: "expired", message: (err as Error).message }));
}

/** `fee`: what its failed transaction cost the service (native base units), when one was sent: it counts against the payer's fee budget (lib/payments/fees.ts). */
export async function markFailed(lock: PaymentLock, error: string, fee: bigint | null = null): Promise<void> {
  releaseLease(lock.id);
  const prisma = await db();
  await prisma.payment
    .update({ where: { id: lock.id }, data: { status: "failed", error: error.slice(0, 500), ...(fee !== null ? { feeNative: fee } : {}) } })
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
export async function confirmBroadcast(paymentId: string, outcome: { settled: true; txHash: string; fee?: bigint | null } | { settled: false; error: string; lost?: boolean; fee?: bigint | null }): Promise<void> {
  const h = await getDbHandle();
  if (outcome.settled) {
    await h.query(`UPDATE payments SET status = 'settled', tx_hash = $2, fee_native = COALESCE($3::bigint, fee_native), updated_at = now() WHERE id = $1 AND status = 'broadcast'`, [
      paymentId,
      outcome.txHash,
      outcome.fee == null ? null : outcome.fee.toString(),
    ]);
    return;
  }
  await h.query(
    `WITH u AS (UPDATE payments SET status = $3, error = $2, fee_native = COALESCE($4::bigint, fee_native), updated_at = now() WHERE id = $1 AND status = 'broadcast' RETURNING id)
     UPDATE access_log SET status = 'settlement_failed' WHERE payment_id IN (SELECT id FROM u)`,
    [paymentId, outcome.error.slice(0, 500), outcome.lost ? "optimistic_expired" : "optimistic_failed", outcome.fee == null ? null : outcome.fee.toString()],
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
    `WITH u AS (UPDATE payments SET tx_hash = $2, updated_at = now(),
                       response = CASE WHEN response IS NULL THEN NULL ELSE jsonb_set(response::jsonb, '{payment,transaction}', to_jsonb($2::text))::text END
                 WHERE id = $1 AND status = 'broadcast' RETURNING id)
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
     UPDATE payments SET status = '${PENDING_OPTIMISTIC}', tx_hash = NULL, response = NULL, served_at = NULL, updated_at = now() WHERE id = $1 AND status = 'broadcast'`,
    [lock.id, receiptId],
  );
}
