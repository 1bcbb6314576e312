/**
 * Audit rows for charged calls; the row id is the receipt id returned in the
 * `X-Receipt-Id` header. Written after the charge happened (settlement or credit
 * consumption), so a row means money or credit moved.
 */
import { db } from "@/lib/db/client";
import type { Surface } from "@/lib/access/credentials";

export interface ReceiptInput {
  product: string;
  surface: Surface;
  credentialKind: "x402" | "xlm" | "bundle" | "api_key";
  amountUsd?: string | null;
  credits?: number | null;
  payer?: string | null;
  txHash?: string | null;
  bundleId?: string | null;
  apiKeyId?: string | null;
  paymentId?: string | null;
}

export async function writeReceipt(r: ReceiptInput): Promise<string> {
  const prisma = await db();
  const row = await prisma.accessLog.create({
    data: {
      product: r.product,
      surface: r.surface,
      credentialKind: r.credentialKind,
      amountUsd: r.amountUsd ?? null,
      credits: r.credits ?? null,
      payer: r.payer ?? null,
      txHash: r.txHash ?? null,
      bundleId: r.bundleId ?? null,
      apiKeyId: r.apiKeyId ?? null,
      paymentId: r.paymentId ?? null,
      status: "charged",
    },
    select: { id: true },
  });
  return row.id;
}

/** Recent charged calls of one bundle or key (usage page); never other credentials' rows. */
export async function recentReceipts(filter: { bundleId?: string; apiKeyId?: string }, limit = 20) {
  const prisma = await db();
  if (!filter.bundleId && !filter.apiKeyId) return [];
  return prisma.accessLog.findMany({
    where: filter.bundleId ? { bundleId: filter.bundleId } : { apiKeyId: filter.apiKeyId },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, product: true, surface: true, credentialKind: true, amountUsd: true, credits: true, txHash: true, createdAt: true },
  });
}
