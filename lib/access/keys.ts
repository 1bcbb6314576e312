/**
 * Free-tier API keys: minted on request (optional validated email), stored hashed,
 * FREE_KEY_DAILY_QUOTA calls per UTC day. A call is counted only when it succeeded:
 * `checkKey` (before the handler) reads the usage, `consumeKeyCall` (after it) counts the
 * call in ONE conditional UPDATE, so concurrent calls can never exceed the quota: the
 * statement re-checks the count on the row it updates.
 */
import { randomUUID } from "node:crypto";
import { db, getDbHandle } from "@/lib/db/client";
import { groupCommit } from "@/lib/db/group-commit";
import { sharedLru } from "@/lib/access/credential-cache";
import { env } from "@/lib/config/env";
import { hashSecret, newSecret, wellFormed } from "@/lib/access/secrets";
import { processState } from "@/lib/process-state";
import { accessLogInsert } from "@/lib/access/receipts";

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

interface KeyCall {
  keyId: string;
  day: string;
  receiptId: string;
  product: string;
  surface: string;
}

/**
 * Counts a batch of successful calls and writes their receipts in ONE statement: the
 * keys' rows are locked (FOR UPDATE), each call is numbered within its key, and only the
 * calls that still fit the day's quota are counted and get a receipt, so concurrent
 * calls (in this batch, in other batches, on other instances) can never exceed it.
 */
async function countCalls(calls: KeyCall[]): Promise<Array<{ used: number; quota: number } | null>> {
  const h = await getDbHandle();
  const out: Array<{ used: number; quota: number } | null> = calls.map(() => null);
  // A batch straddling UTC midnight is settled day by day.
  for (const day of [...new Set(calls.map((c) => c.day))]) {
    const idx = calls.flatMap((c, i) => (c.day === day ? [i] : []));
    const part = idx.map((i) => calls[i]!);
    const rows = await h.query<{ receipt_id: string; used_after: number; daily_quota: number }>(part.length === 1 ? ONE_CALL : MANY_CALLS, part.length === 1 ? [day, part[0]!.keyId, part[0]!.receiptId, part[0]!.product, part[0]!.surface] : [day, part.map((c) => c.keyId), part.map((c) => c.receiptId), part.map((c) => c.product), part.map((c) => c.surface)]);
    const byReceipt = new Map(rows.map((r) => [r.receipt_id, r]));
    for (const i of idx) {
      const r = byReceipt.get(calls[i]!.receiptId);
      out[i] = r ? { used: Number(r.used_after), quota: Number(r.daily_quota) } : null;
    }
  }
  return out;
}

// A lone call: one conditional UPDATE, the quota re-checked on the row it changes.
const ONE_CALL = `WITH u AS (
    UPDATE api_keys SET usage_count = CASE WHEN usage_day = $1::date THEN usage_count + 1 ELSE 1 END, usage_day = $1::date
     WHERE id = $2 AND (usage_day IS DISTINCT FROM $1::date OR usage_count < daily_quota)
    RETURNING usage_count, daily_quota
  ), ins AS (
    ${accessLogInsert({ id: "$3", product: "$4", surface: "$5", credential_kind: "'api_key'", credits: "1", api_key_id: "$2" }, "u")}
  )
  SELECT $3::text AS receipt_id, usage_count AS used_after, daily_quota FROM u`;

// A batch: the keys' rows locked, calls numbered per key, only those within the quota counted.
const MANY_CALLS = `WITH req AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS r(key_id, receipt_id, product, surface, ord)
       ), cur AS (
         SELECT k.id, k.daily_quota, CASE WHEN k.usage_day = $1::date THEN k.usage_count ELSE 0 END AS used
           FROM api_keys k WHERE k.id IN (SELECT key_id FROM req) FOR UPDATE
       ), numbered AS (
         SELECT req.*, cur.daily_quota, (cur.used + row_number() OVER (PARTITION BY req.key_id ORDER BY req.ord))::int AS used_after
           FROM req JOIN cur ON cur.id = req.key_id
       ), ok AS (
         SELECT * FROM numbered WHERE used_after <= daily_quota
       ), upd AS (
         UPDATE api_keys k SET usage_count = t.used_after, usage_day = $1::date
           FROM (SELECT key_id, max(used_after) AS used_after FROM ok GROUP BY key_id) t
          WHERE k.id = t.key_id
         RETURNING k.id
       ), ins AS (
         ${accessLogInsert({ id: "receipt_id", product: "product", surface: "surface", credential_kind: "'api_key'", credits: "1", api_key_id: "key_id" }, "ok")}
       )
       SELECT receipt_id, used_after, daily_quota FROM ok`;

function commitKeyCall(call: KeyCall) {
  return processState("commit.keys", () => groupCommit(countCalls))(call);
}

/**
 * Counts one successful call and writes its receipt (group-committed with concurrent
 * calls). Returns null, with nothing counted or written, when the quota is used up.
 */
export async function consumeKeyCall(key: string, keyId: string, receipt: { product: string; surface: string }, now = new Date()): Promise<{ usage: KeyUsage; receiptId: string } | null> {
  const today = utcDay(now);
  const receiptId = randomUUID();
  const r = await commitKeyCall({ keyId, day: today, receiptId, product: receipt.product, surface: receipt.surface });
  const hash = hashSecret(key);
  const k = known().get(hash);
  if (!r) {
    if (k) known().set(hash, { ...k, day: today, used: k.quota });
    return null;
  }
  if (k && (k.day !== today || r.used > k.used)) known().set(hash, { ...k, day: today, used: r.used });
  return {
    usage: { id: keyId, used: r.used, quota: r.quota, remaining: Math.max(0, r.quota - r.used), resetAt: nextUtcMidnight(now) },
    receiptId,
  };
}

export { nextUtcMidnight };
