/**
 * Free-tier API keys: minted on request (optional validated email), stored hashed,
 * FREE_KEY_DAILY_QUOTA calls per UTC day. A call is counted only when it succeeded:
 * `checkKey` (before the handler) reads the usage, `consumeKeyCall` (after it) counts the
 * call in ONE conditional UPDATE, so concurrent calls can never exceed the quota: the
 * statement re-checks the count on the row it updates.
 */
import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { sharedLru } from "@/lib/access/credential-cache";
import { env } from "@/lib/config/env";
import { hashSecret, newSecret, wellFormed } from "@/lib/access/secrets";

export interface KeyUsage {
  id: string;
  used: number;
  quota: number;
  remaining: number;
  /** Start of the next UTC day (ms). */
  resetAt: number;
}

export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

function nextUtcMidnight(now = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

/** Mints a key; returns the value (shown once) and its record id. */
export async function mintApiKey(email: string | null): Promise<{ key: string; id: string; quota: number; prefix: string }> {
  const prisma = await db();
  const s = newSecret("api_key");
  const quota = env().FREE_KEY_DAILY_QUOTA;
  const row = await prisma.apiKey.create({ data: { keyHash: s.hash, keyPrefix: s.prefix, email, dailyQuota: quota } });
  return { key: s.value, id: row.id, quota, prefix: s.prefix };
}

/** Today's usage of a key, or null when the key is unknown. */
export async function keyUsage(key: string, now = new Date()): Promise<KeyUsage | null> {
  if (!wellFormed(key, "api_key")) return null;
  const prisma = await db();
  const row = await prisma.apiKey.findUnique({ where: { keyHash: hashSecret(key) } });
  if (!row) return null;
  const today = utcDay(now);
  const used = row.usageDay && row.usageDay.toISOString().slice(0, 10) === today ? row.usageCount : 0;
  return { id: row.id, used, quota: row.dailyQuota, remaining: Math.max(0, row.dailyQuota - used), resetAt: nextUtcMidnight(now) };
}

interface KnownKey {
  id: string;
  quota: number;
  /** Last usage seen: day (YYYY-MM-DD) and calls counted that day. */
  day: string | null;
  used: number;
}
const known = () => sharedLru<KnownKey>("api-keys");

/**
 * The key's id and quota for the gate, from memory when seen before. `exhausted` is true
 * only when this process already saw today's quota used up.
 */
export async function lookupKey(key: string, now = new Date()): Promise<{ id: string; quota: number; used: number; exhausted: boolean } | null> {
  if (!wellFormed(key, "api_key")) return null;
  const hash = hashSecret(key);
  let k = known().get(hash);
  if (!k) {
    const u = await keyUsage(key, now);
    if (!u) return null;
    k = { id: u.id, quota: u.quota, day: utcDay(now), used: u.used };
    known().set(hash, k);
  }
  const used = k.day === utcDay(now) ? k.used : 0;
  return { id: k.id, quota: k.quota, used, exhausted: used >= k.quota };
}

/**
 * Counts one successful call and writes its receipt in ONE statement (a data-modifying
 * CTE): the UPDATE re-checks the quota on the row it changes, so concurrent calls can
 * never exceed it, and the receipt exists exactly when the call was counted. Returns
 * null (nothing counted, nothing written) when the quota is used up.
 */
export async function consumeKeyCall(key: string, keyId: string, receipt: { product: string; surface: string }, now = new Date()): Promise<{ usage: KeyUsage; receiptId: string } | null> {
  const prisma = await db();
  const today = utcDay(now);
  const receiptId = randomUUID();
  const rows = await prisma.$queryRaw<Array<{ usage_count: number; daily_quota: number }>>`
    WITH u AS (
      UPDATE api_keys
         SET usage_count = CASE WHEN usage_day = ${today}::date THEN usage_count + 1 ELSE 1 END,
             usage_day = ${today}::date
       WHERE id = ${keyId}
         AND (usage_day IS DISTINCT FROM ${today}::date OR usage_count < daily_quota)
      RETURNING usage_count, daily_quota
    ), r AS (
      INSERT INTO access_log (id, product, surface, credential_kind, credits, api_key_id, status)
      SELECT ${receiptId}, ${receipt.product}, ${receipt.surface}, 'api_key', 1, ${keyId}, 'charged' FROM u
      RETURNING id
    )
    SELECT u.usage_count, u.daily_quota FROM u, r`;
  const r = rows[0];
  const hash = hashSecret(key);
  const k = known().get(hash);
  if (!r) {
    if (k) known().set(hash, { ...k, day: today, used: k.quota });
    return null;
  }
  if (k) known().set(hash, { ...k, day: today, used: r.usage_count });
  return {
    usage: { id: keyId, used: r.usage_count, quota: r.daily_quota, remaining: Math.max(0, r.daily_quota - r.usage_count), resetAt: nextUtcMidnight(now) },
    receiptId,
  };
}

export { nextUtcMidnight };
