/**
 * Audit rows for charged calls; the row id is the receipt id returned in the
 * `X-Receipt-Id` header. Each charge path writes its row in the same statement that
 * charges (credit consumption, key count, payment settlement), so a row means money or
 * credit moved.
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

/** Columns of an access-log row besides its status. */
export type AccessLogColumn = "id" | "product" | "surface" | "credential_kind" | "credits" | "amount_usd" | "payer" | "tx_hash" | "bundle_id" | "api_key_id" | "payment_id";

/**
 * The one statement that writes access-log rows, as SQL to embed in the statement that
 * charges (a CTE, or its final statement): each column's value is an SQL expression over
 * `from` (the rows the charge changed). Every row it writes is a charged call.
 */
export function accessLogInsert(values: Partial<Record<AccessLogColumn, string>>, from: string): string {
  const columns = Object.keys(values);
  return `INSERT INTO access_log (${columns.join(", ")}, status)
    SELECT ${Object.values(values).join(", ")}, 'charged' FROM ${from}
    RETURNING id`;
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
