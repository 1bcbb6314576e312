/**
 * Prepaid bundles. The token is shown once; only its hash is stored. Credits are
 * consumed after the handler succeeded, in ONE conditional UPDATE (`credits_remaining
 * >= cost`), so any number of concurrent calls can never spend more than the bundle
 * holds, and a failed call never spends anything.
 */
import { randomUUID } from "node:crypto";
import { db, getDbHandle } from "@/lib/db/client";
import { groupCommit } from "@/lib/db/group-commit";
import { sharedLru } from "@/lib/access/credential-cache";
import { hashSecret, newSecret, wellFormed } from "@/lib/access/secrets";
import { processState } from "@/lib/process-state";
import { accessLogInsert } from "@/lib/access/receipts";

export type BundleTier = "standard" | "enterprise";

export interface BundleState {
  id: string;
  tier: string;
  total: number;
  remaining: number;
}

/**
 * Creates the bundle a payment bought and returns its token (shown once). One bundle per
 * payment: when the payment's purchase runs again (its answer was lost together with its
 * record, and the payment was presented again and found paid), the same bundle gets a new
 * token, the old one stops working, and its credits are what is left of them.
 */
export async function mintBundle(tier: BundleTier, credits: number, paymentId: string | null): Promise<{ token: string; id: string; credits: number; remaining: number; tier: BundleTier }> {
  const h = await getDbHandle();
  const s = newSecret("bundle");
  const rows = await h.query<{ id: string; credits_total: number; credits_remaining: number; old_hash: string | null }>(
    `WITH old AS (SELECT token_hash FROM bundles WHERE payment_id = $6::text)
     INSERT INTO bundles (id, token_hash, token_prefix, tier, credits_total, credits_remaining, payment_id)
     VALUES ($1, $2, $3, $4, $5, $5, $6)
     ON CONFLICT (payment_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, token_prefix = EXCLUDED.token_prefix
     RETURNING id, credits_total, credits_remaining, (SELECT token_hash FROM old) AS old_hash`,
    [randomUUID(), s.hash, s.prefix, tier, credits, paymentId],
  );
  const row = rows[0]!;
  if (row.old_hash) known().delete(row.old_hash);
  return { token: s.value, id: row.id, credits: row.credits_total, remaining: row.credits_remaining, tier };
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

interface CreditUse {
  bundleId: string;
  cost: number;
  receiptId: string;
  product: string;
  surface: string;
}

/**
 * Consumes credits for a batch of successful calls and writes their receipts in ONE
 * statement: the bundles' rows are locked (FOR UPDATE), the calls' costs are summed in
 * arrival order per bundle, and only the calls that still fit the remaining credits
 * are charged, so concurrent calls can never overspend a bundle.
 */
async function spendCredits(uses: CreditUse[]): Promise<Array<number | null>> {
  const h = await getDbHandle();
  const one = uses.length === 1 ? uses[0]! : null;
  const rows = await h.query<{ receipt_id: string; left_after: number }>(
    one ? ONE_USE : MANY_USES,
    one
      ? [one.bundleId, one.cost, one.receiptId, one.product, one.surface]
      : [uses.map((u) => u.bundleId), uses.map((u) => u.cost), uses.map((u) => u.receiptId), uses.map((u) => u.product), uses.map((u) => u.surface)],
  );
  const byReceipt = new Map(rows.map((r) => [r.receipt_id, Number(r.left_after)]));
  return uses.map((u) => byReceipt.get(u.receiptId) ?? null);
}

// A lone call: one conditional UPDATE, the credits re-checked on the row it changes.
const ONE_USE = `WITH b AS (
    UPDATE bundles SET credits_remaining = credits_remaining - $2::int
     WHERE id = $1 AND credits_remaining >= $2::int
    RETURNING credits_remaining
  ), ins AS (
    ${accessLogInsert({ id: "$3", product: "$4", surface: "$5", credential_kind: "'bundle'", credits: "$2::int", bundle_id: "$1" }, "b")}
  )
  SELECT $3::text AS receipt_id, credits_remaining AS left_after FROM b`;

// A batch: the bundles' rows locked, costs summed in arrival order, only those that fit charged.
const MANY_USES = `WITH req AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS r(bundle_id, cost, receipt_id, product, surface, ord)
     ), cur AS (
       SELECT b.id, b.credits_remaining FROM bundles b WHERE b.id IN (SELECT bundle_id FROM req) FOR UPDATE
     ), spent AS (
       SELECT req.*, (cur.credits_remaining - sum(req.cost) OVER (PARTITION BY req.bundle_id ORDER BY req.ord))::int AS left_after
         FROM req JOIN cur ON cur.id = req.bundle_id
     ), ok AS (
       SELECT * FROM spent WHERE left_after >= 0
     ), upd AS (
       UPDATE bundles b SET credits_remaining = t.left_after
         FROM (SELECT bundle_id, min(left_after) AS left_after FROM ok GROUP BY bundle_id) t
        WHERE b.id = t.bundle_id
       RETURNING b.id
     ), ins AS (
       ${accessLogInsert({ id: "receipt_id", product: "product", surface: "surface", credential_kind: "'bundle'", credits: "cost", bundle_id: "bundle_id" }, "ok")}
     )
     SELECT receipt_id, left_after FROM ok`;

function commitCredits(use: CreditUse): Promise<number | null> {
  return processState("commit.bundles", () => groupCommit(spendCredits))(use);
}

/**
 * Consumes `cost` credits and writes the receipt (group-committed with concurrent
 * calls). Returns null, with nothing consumed or written, when fewer than `cost`
 * credits remain.
 */
export async function consumeCredits(token: string, bundleId: string, cost: number, receipt: { product: string; surface: string }): Promise<{ remaining: number; receiptId: string } | null> {
  const receiptId = randomUUID();
  const left = await commitCredits({ bundleId, cost, receiptId, product: receipt.product, surface: receipt.surface });
  const hash = hashSecret(token);
  const k = known().get(hash);
  if (k) known().set(hash, { ...k, remaining: Math.min(k.remaining, left ?? cost - 1) });
  return left === null ? null : { remaining: left, receiptId };
}
