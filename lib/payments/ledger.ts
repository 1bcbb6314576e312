/**
 * The payments table is the replay guard: a payment's reference (EIP-3009 nonce per
 * payer, Solana signature, Stellar transaction hash) is inserted as "pending" BEFORE the
 * handler runs; the unique (network, reference) constraint lets exactly one of any
 * number of concurrent copies through. A call that fails before settlement deletes its
 * pending row (nothing was settled, the payer may present the same authorization again);
 * a settled or failed-to-settle row stays forever.
 */
import { db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors";

export interface PaymentLock {
  id: string;
  network: string;
  reference: string;
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

function isUniqueViolation(err: unknown): boolean {
  // Duck-typed: the Prisma client may come from another module graph (custom server vs
  // route bundle), so `instanceof Prisma.PrismaClientKnownRequestError` is unreliable.
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  return e?.code === "P2002" || e?.cause?.code === "23505" || /unique constraint|duplicate key/i.test(e?.message ?? "");
}

/** Records the payment as pending; throws payment_replayed if it was seen before. */
export async function lockPayment(p: LockInput): Promise<PaymentLock> {
  const prisma = await db();
  try {
    const row = await prisma.payment.create({
      data: { ...p, status: "pending" },
      select: { id: true },
    });
    return { id: row.id, network: p.network, reference: p.reference };
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError("payment_replayed", "This payment authorization has already been used (or is being used by a concurrent request). Sign a new one.");
    }
    throw err;
  }
}

/** Forgets a pending payment whose call failed before settlement. */
export async function unlockPayment(lock: PaymentLock): Promise<void> {
  const prisma = await db();
  await prisma.payment.deleteMany({ where: { id: lock.id, status: "pending" } });
}

export async function markSettled(lock: PaymentLock, txHash: string, payer: string | null): Promise<void> {
  const prisma = await db();
  await prisma.payment.update({ where: { id: lock.id }, data: { status: "settled", txHash, ...(payer ? { payer } : {}) } });
}

export async function markFailed(lock: PaymentLock, error: string): Promise<void> {
  const prisma = await db();
  await prisma.payment.update({ where: { id: lock.id }, data: { status: "failed", error: error.slice(0, 500) } }).catch(() => undefined);
}
