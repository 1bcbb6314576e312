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

export interface PaymentLock {
  id: string;
  network: string;
  reference: string;
  /** Set when this lock took over a row left "unknown" by an earlier attempt. */
  reclaimed?: { txHash: string | null };
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

const LOCK = `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6::bigint, $7, $8, $9, $10, 'pending', now())
  ON CONFLICT (network, reference) DO NOTHING
  RETURNING id`;

/**
 * Records the payment as pending (one statement on the raw driver: this is on every paid
 * call's path). A payment seen before is refused with payment_replayed, unless an earlier
 * attempt left its outcome unknown: then this call takes the row over (`reclaimed`).
 */
export async function lockPayment(p: LockInput): Promise<PaymentLock> {
  const h = await getDbHandle();
  const id = randomUUID();
  const rows = await h.query<{ id: string }>(LOCK, [id, p.scheme, p.network, p.reference, p.payer, p.amountAtomic.toString(), p.asset, p.payTo, p.product, p.surface]);
  if (rows.length === 1) return { id, network: p.network, reference: p.reference };
  const claimed = await claimUnknownPayment(p.network, p.reference);
  if (claimed) return claimed;
  throw new ApiError("payment_replayed", "This payment authorization has already been used (or is being used by a concurrent request). Sign a new one.");
}

/** Forgets a pending payment whose call failed before settlement. */
async function unlockPayment(lock: PaymentLock): Promise<void> {
  const prisma = await db();
  await prisma.payment.deleteMany({ where: { id: lock.id, status: "pending" } });
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
        AND (status = 'unknown' OR (status = 'pending' AND updated_at < now() - interval '10 minutes'))
      RETURNING id, tx_hash`,
    [network, reference],
  );
  const row = rows[0];
  return row ? { id: row.id, network, reference, reclaimed: { txHash: row.tx_hash } } : null;
}

const SETTLE_WITH_RECEIPT = `WITH u AS (
    UPDATE payments SET status = 'settled', tx_hash = $2, payer = COALESCE($3, payer), error = NULL, updated_at = now()
     WHERE id = $1
    RETURNING id
  )
  INSERT INTO access_log (id, product, surface, credential_kind, amount_usd, payer, tx_hash, payment_id, status)
  SELECT $4, $5, $6, $7, $8, $3, $2, u.id, 'charged' FROM u
  RETURNING id`;

/**
 * Records a settled payment and writes its receipt in one statement; returns the receipt
 * id. The money has moved by now: callers deliver the result even if this fails.
 */
export async function recordSettlement(lock: PaymentLock, txHash: string, payer: string | null, receipt: Pick<ReceiptInput, "product" | "surface" | "credentialKind" | "amountUsd">): Promise<string> {
  const h = await getDbHandle();
  const id = randomUUID();
  const rows = await h.query<{ id: string }>(SETTLE_WITH_RECEIPT, [lock.id, txHash, payer, id, receipt.product, receipt.surface, receipt.credentialKind, receipt.amountUsd ?? null]);
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
