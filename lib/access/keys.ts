/**
 * Free-tier API keys: minted on request (optional validated email), stored hashed,
 * FREE_KEY_DAILY_QUOTA calls per UTC day. A call is counted only when it succeeded:
 * `checkKey` (before the handler) reads the usage, `consumeKeyCall` (after it) counts the
 * call in ONE conditional UPDATE, so concurrent calls can never exceed the quota: the
 * statement re-checks the count on the row it updates.
 */
import { db } from "@/lib/db/client";
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

/**
 * Counts one successful call. Returns the usage after counting, or null when the quota
 * was used up by concurrent calls in the meantime.
 */
export async function consumeKeyCall(keyId: string, now = new Date()): Promise<KeyUsage | null> {
  const prisma = await db();
  const today = utcDay(now);
  const rows = await prisma.$queryRaw<Array<{ usage_count: number; daily_quota: number }>>`
    UPDATE api_keys
       SET usage_count = CASE WHEN usage_day = ${today}::date THEN usage_count + 1 ELSE 1 END,
           usage_day = ${today}::date
     WHERE id = ${keyId}
       AND (usage_day IS DISTINCT FROM ${today}::date OR usage_count < daily_quota)
    RETURNING usage_count, daily_quota`;
  const r = rows[0];
  if (!r) return null;
  return { id: keyId, used: r.usage_count, quota: r.daily_quota, remaining: Math.max(0, r.daily_quota - r.usage_count), resetAt: nextUtcMidnight(now) };
}
