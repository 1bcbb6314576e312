/**
 * Prepaid bundles. The token is shown once; only its hash is stored. Credits are
 * consumed after the handler succeeded, in ONE conditional UPDATE (`credits_remaining
 * >= cost`), so any number of concurrent calls can never spend more than the bundle
 * holds, and a failed call never spends anything.
 */
import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { sharedLru } from "@/lib/access/credential-cache";
import { hashSecret, newSecret, wellFormed } from "@/lib/access/secrets";

export type BundleTier = "standard" | "enterprise";

export interface BundleState {
  id: string;
  tier: string;
  total: number;
  remaining: number;
}

/** Creates a bundle and returns its token (shown once). */
export async function mintBundle(tier: BundleTier, credits: number, paymentId: string | null): Promise<{ token: string; id: string; credits: number; tier: BundleTier }> {
  const prisma = await db();
  const s = newSecret("bundle");
  const row = await prisma.bundle.create({
    data: { tokenHash: s.hash, tokenPrefix: s.prefix, tier, creditsTotal: credits, creditsRemaining: credits, paymentId },
  });
  return { token: s.value, id: row.id, credits, tier };
}

/** Removes a bundle whose payment could not be settled (it was never shown to anyone). */
export async function revokeUnpaidBundle(id: string): Promise<void> {
  const prisma = await db();
  await prisma.bundle.delete({ where: { id } }).catch(() => undefined);
}

export async function bundleState(token: string): Promise<BundleState | null> {
  if (!wellFormed(token, "bundle")) return null;
  const prisma = await db();
  const row = await prisma.bundle.findUnique({ where: { tokenHash: hashSecret(token) } });
  return row ? { id: row.id, tier: row.tier, total: row.creditsTotal, remaining: row.creditsRemaining } : null;
}

interface KnownBundle {
  id: string;
  tier: string;
  total: number;
  /** Last balance seen (only ever goes down). */
  remaining: number;
}
const known = () => sharedLru<KnownBundle>("bundles");

/** The bundle for the gate, from memory when seen before (balance may be stale-high). */
export async function lookupBundle(token: string): Promise<BundleState | null> {
  if (!wellFormed(token, "bundle")) return null;
  const hash = hashSecret(token);
  const k = known().get(hash);
  if (k) return { ...k };
  const s = await bundleState(token);
  if (s) known().set(hash, { ...s });
  return s;
}

/**
 * Consumes `cost` credits and writes the receipt in ONE statement: the UPDATE only
 * applies while `credits_remaining >= cost` on the row it changes, so concurrent calls
 * can never overspend, and the receipt exists exactly when credit was taken. Returns
 * null when fewer than `cost` credits remain (nothing consumed, nothing written).
 */
export async function consumeCredits(token: string, bundleId: string, cost: number, receipt: { product: string; surface: string }): Promise<{ remaining: number; receiptId: string } | null> {
  const prisma = await db();
  const receiptId = randomUUID();
  const rows = await prisma.$queryRaw<Array<{ credits_remaining: number }>>`
    WITH b AS (
      UPDATE bundles SET credits_remaining = credits_remaining - ${cost}
       WHERE id = ${bundleId} AND credits_remaining >= ${cost}
      RETURNING credits_remaining
    ), r AS (
      INSERT INTO access_log (id, product, surface, credential_kind, credits, bundle_id, status)
      SELECT ${receiptId}, ${receipt.product}, ${receipt.surface}, 'bundle', ${cost}, ${bundleId}, 'charged' FROM b
      RETURNING id
    )
    SELECT b.credits_remaining FROM b, r`;
  const hash = hashSecret(token);
  const k = known().get(hash);
  const left = rows[0]?.credits_remaining ?? null;
  if (k) known().set(hash, { ...k, remaining: left ?? Math.min(k.remaining, cost - 1) });
  return left === null ? null : { remaining: left, receiptId };
}
