/**
 * Prepaid bundles. The token is shown once; only its hash is stored. Credits are
 * consumed after the handler succeeded, in ONE conditional UPDATE (`credits_remaining
 * >= cost`), so any number of concurrent calls can never spend more than the bundle
 * holds, and a failed call never spends anything.
 */
import { db } from "@/lib/db/client";
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

/** Consumes `cost` credits; null when fewer than `cost` remain (nothing is consumed). */
export async function consumeCredits(bundleId: string, cost: number): Promise<number | null> {
  const prisma = await db();
  const rows = await prisma.$queryRaw<Array<{ credits_remaining: number }>>`
    UPDATE bundles SET credits_remaining = credits_remaining - ${cost}
     WHERE id = ${bundleId} AND credits_remaining >= ${cost}
    RETURNING credits_remaining`;
  return rows[0]?.credits_remaining ?? null;
}
