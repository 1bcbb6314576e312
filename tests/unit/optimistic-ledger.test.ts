/**
 * The optimistic ledger's payer rules on the embedded database and on PostgreSQL:
 * - a payer's failure is cleared only by a payment settled in confirmed mode afterwards,
 *   not by an earlier optimistic payment whose transfer happens to be confirmed later;
 * - a cap reservation left by a process that died mid-call stops counting after its age
 *   bound (it would otherwise hold the payer's cap forever);
 * - the payer queries run on indexes (PostgreSQL: payments_network_payer_status_updated_at_idx and,
 *   for the value in flight, payments_payer_in_flight_idx, on a table with many other payers),
 *   and the value in flight reads only the payer's rows in flight, not its history;
 * - x402's pending-settlement store in the shared database: one instance's entry is seen
 *   by another, until it is deleted or expires;
 * - a lock that reserved a share of the cap commits without waiting for the disk, every
 *   other lock waits (see LOCK in lib/payments/ledger.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { confirmBroadcast, LOCK, LOCK_TAKING_NONCE, lockPayment, recordSettlement, releaseLock, type OptimisticReservation, type PaymentLock } from "@/lib/payments/ledger";
import { DbPendingSettlements } from "@/lib/payments/x402/pending-store";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const pgUp = await hasPostgres();
const saved = { ...process.env };
afterAll(async () => {
  await closeDb();
  process.env = saved;
  resetEnvForTests();
});

const PRICE = 5_000n;
const NETWORK = "eip155:8453";
const KEPT = JSON.stringify({ payload: {}, requirements: {} });
const RECEIPT = { product: "sentiment", surface: "http" as const, credentialKind: "x402" as const, amountUsd: "0.005" };
const tick = () => new Promise((r) => setTimeout(r, 5));
/** How long a PostgreSQL backend may hold its statistics before it reports them (idle interval, with margin). */
const IDLE_FLUSH_MS = 10_500;
const newPayer = () => `0x${randomBytes(20).toString("hex")}`;
const tx = () => `0x${randomBytes(32).toString("hex")}`;

/** A payment of `payer` locked; with `cap`, asking for a share of its optimistic cap. */
const lock = (payer: string, cap?: bigint): Promise<PaymentLock> =>
  lockPayment(
    {
      scheme: "exact",
      network: NETWORK,
      reference: `${payer.toLowerCase()}:0x${randomBytes(32).toString("hex")}`,
      payer,
      amountAtomic: PRICE,
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      payTo: "0x00000000000000000000000000000000000A11CE",
      product: "sentiment",
      surface: "http",
    },
    cap === undefined ? undefined : { capAtomic: cap, settlementPayload: KEPT },
  );

/** An optimistic payment delivered (reserved with its lock, then recorded as broadcast). */
async function delivered(payer: string): Promise<PaymentLock> {
  const l = await lock(payer, 100n * PRICE);
  expect(l.optimistic).toEqual({ reserved: true });
  await recordSettlement(l, tx(), payer, RECEIPT, "broadcast");
  return l;
}

/** What a new optimistic call of `payer` would get (its lock released again). */
async function standing(payer: string): Promise<OptimisticReservation | undefined> {
  const l = await lock(payer, 100n * PRICE);
  await releaseLock(l);
  return l.optimistic;
}

const failedOf = (r: OptimisticReservation | undefined) => (r && !r.reserved ? r.failed?.paymentId : undefined);

const modes = [
  { name: "embedded (PGlite)", pg: false, env: { DATA_DIR: "memory", DATABASE_URL: "" } },
  ...(pgUp ? [{ name: "PostgreSQL", pg: true, env: { DATABASE_URL: `${POSTGRES_URL}?schema=optledger_${randomBytes(5).toString("hex")}` } }] : []),
];

for (const mode of modes) {
  describe(`optimistic ledger — ${mode.name}`, () => {
    it("opens the database", async () => {
      await closeDb();
      Object.assign(process.env, { LOG_LEVEL: "silent" }, mode.env);
      if (!mode.env.DATABASE_URL) delete process.env.DATABASE_URL;
      resetEnvForTests();
      await getDbHandle();
    });

    it("an earlier optimistic payment confirmed after a later one failed does not clear the failure; a payment settled in confirmed mode does", async () => {
      const payer = newPayer();
      const earlier = await delivered(payer);
      const failed = await delivered(payer);
      await tick();
      await confirmBroadcast(failed.id, { settled: false, error: "the transfer fails on chain" });
      const refused = await standing(payer);
      expect(refused).toEqual({ reserved: false, failed: { paymentId: failed.id, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
      await tick();
      await confirmBroadcast(earlier.id, { settled: true, txHash: tx() });
      expect(failedOf(await standing(payer))).toBe(failed.id);
      // Refused although the cap has room, and in any case of the address.
      expect(failedOf(await standing(payer.toUpperCase().replace("0X", "0x")))).toBe(failed.id);
      await tick();
      // Confirmed mode; the settlement answers with the checksummed address.
      const confirmed = await lock(payer);
      await recordSettlement(confirmed, tx(), payer.toUpperCase().replace("0X", "0x"), RECEIPT);
      expect(await standing(payer)).toEqual({ reserved: true });
    });

    it("an authorization that expired before the service settled it is its loss: the payer is not flagged", async () => {
      const payer = newPayer();
      const lost = await delivered(payer);
      await confirmBroadcast(lost.id, { settled: false, error: "expired before settlement", lost: true });
      expect(await standing(payer)).toEqual({ reserved: true });
      const h = await getDbHandle();
      const [row] = await h.query<{ status: string }>(`SELECT status FROM payments WHERE id = $1`, [lost.id]);
      expect(row?.status).toBe("optimistic_expired");
    });

    it("a reservation left by a process that died mid-call stops counting against the cap after its age bound", async () => {
      const payer = newPayer();
      const cap = 2n * PRICE;
      const stale = await lock(payer, cap);
      expect(stale.optimistic).toEqual({ reserved: true });
      const h = await getDbHandle();
      await h.query(`UPDATE payments SET updated_at = now() - interval '3 minutes' WHERE id = $1`, [stale.id]);
      const got = [];
      for (let i = 0; i < 3; i++) got.push((await lock(payer, cap)).optimistic?.reserved);
      expect(got).toEqual([true, true, false]);
    });

    it.runIf(mode.pg)("the payer queries use indexes on a table full of other payers; the value in flight reads only the payer's rows in flight, whatever its history", async () => {
      const started = Date.now();
      const h = await getDbHandle();
      await h.query(
        `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, updated_at)
         SELECT gen_random_uuid()::text, 'exact', $1, 'bulk:' || g, '0x' || lpad(to_hex(g), 40, '0'), 5000, 'a', 'b', 'sentiment', 'http',
                (ARRAY['settled', 'broadcast', 'optimistic_failed', 'pending_optimistic'])[1 + g % 4], now()
           FROM generate_series(1, 20000) g`,
        [NETWORK],
      );
      // The payer's own history: 500 payments settled, 2 in flight.
      const payer = newPayer();
      await h.query(
        `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, updated_at)
         SELECT gen_random_uuid()::text, 'exact', $1, 'own:' || $2 || ':' || g, $2, 5000, 'a', 'b', 'sentiment', 'http',
                CASE WHEN g <= 2 THEN 'broadcast' ELSE 'settled' END, now()
           FROM generate_series(1, 502) g`,
        [NETWORK, payer],
      );
      await h.query(`ANALYZE payments`, []);
      const stats = async () => {
        const rows = await h.query<{ name: string; scans: string; read: string }>(
          `SELECT indexrelname AS name, idx_scan::text AS scans, idx_tup_read::text AS read FROM pg_stat_user_indexes
            WHERE schemaname = current_schema() AND indexrelname IN ('payments_network_payer_status_updated_at_idx', 'payments_payer_in_flight_idx')`,
          [],
        );
        const of = (n: string) => rows.find((r) => r.name === n);
        return { failedScans: Number(of("payments_network_payer_status_updated_at_idx")?.scans ?? -1), flightScans: Number(of("payments_payer_in_flight_idx")?.scans ?? -1), flightRead: Number(of("payments_payer_in_flight_idx")?.read ?? -1) };
      };
      // A backend reports its counters when a transaction ends at least 1 s after its last
      // report, or else when its idle timer fires, 10 s later (PostgreSQL 15+,
      // PGSTAT_IDLE_INTERVAL): the earlier tests' statements, all ended before this test
      // started, are counted 10 s after it started and once the counters stay put for 1.5 s.
      let before = await stats();
      for (let still = 0, i = 0; (still < 5 || Date.now() - started < IDLE_FLUSH_MS) && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 300));
        const now = await stats();
        still = JSON.stringify(now) === JSON.stringify(before) ? still + 1 : 0;
        before = now;
      }
      expect(before.failedScans).toBeGreaterThanOrEqual(0);
      expect(before.flightScans).toBeGreaterThanOrEqual(0);
      // Room for the 2 in flight and this one, not for a fourth (the service-wide cap set
      // above the bulk rows' value: this test is about the per-payer reads).
      process.env.X402_OPTIMISTIC_SERVICE_CAP_USD = "1000000";
      resetEnvForTests();
      expect((await lock(payer, 3n * PRICE)).optimistic).toEqual({ reserved: true });
      let after = before;
      // The lock's counters, up to the same idle interval later.
      for (let i = 0; i < 75 && (after.failedScans < before.failedScans + 1 || after.flightScans < before.flightScans + 2); i++) {
        await new Promise((r) => setTimeout(r, 200));
        after = await stats();
      }
      // The payer's failures on the payer index, the value in flight on the in-flight index,
      // twice (all its payments in flight against its funds, its optimistic ones against
      // its cap): the payer's 2 rows in flight each time and none of its 500 settled ones;
      // then (service-wide cap) every row in flight on the network, 10 002 here, and no
      // settled one. (The service-wide sum covers half the table here: the planner may
      // scan the table for it instead of that index.)
      expect(after.failedScans).toBeGreaterThanOrEqual(before.failedScans + 1);
      expect([before.flightScans + 2, before.flightScans + 3]).toContain(after.flightScans);
      expect([4, 4 + 10_002]).toContain(after.flightRead - before.flightRead);
      expect((await lock(payer, 3n * PRICE)).optimistic).toEqual({ reserved: false, failed: null });
    }, 90_000);

    it("a lock that reserved a share commits without waiting for the disk; a lock that did not, or asked for none, waits", async () => {
      const prisma = (await getDbHandle()).prisma;
      const payer = newPayer();
      const args = (cap: bigint | null) => [
        randomBytes(8).toString("hex"), "exact", NETWORK, `${payer}:0x${randomBytes(32).toString("hex")}`, payer, PRICE.toString(), "a", "b", "sentiment", "http",
        cap?.toString() ?? null, cap ? KEPT : null, 120, "holder", 10, "identity", null, cap ? (10n ** 15n).toString() : null, 3600, null,
      ];
      // The nonce take's arguments, the payer's balance and when it was read (null: not read).
      const nonceArgs = [`0x${randomBytes(20).toString("hex")}`, 7, 7, "token", 60, 5, null, null];
      /** The statement in a transaction rolled back afterwards: its answer, and the commit mode it left for its transaction. */
      const commitMode = async (sql: string, params: unknown[]) => {
        let seen: { row: Record<string, unknown>; mode: string } | null = null;
        await prisma
          .$transaction(async (t) => {
            const [row] = await t.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);
            const [m] = await t.$queryRawUnsafe<{ v: string }[]>(`SELECT current_setting('synchronous_commit') AS v`);
            seen = { row: row!, mode: m!.v };
            throw new Error("roll back");
          })
          .catch((err: Error) => {
            if (err.message !== "roll back") throw err;
          });
        return seen!;
      };
      const reserved = await commitMode(LOCK, args(100n * PRICE));
      expect(reserved.row).toMatchObject({ outcome: "locked", reserved: true });
      expect(reserved.mode).toBe("off");
      const taking = await commitMode(LOCK_TAKING_NONCE, [...args(100n * PRICE), ...nonceArgs]);
      expect(taking.row).toMatchObject({ outcome: "locked", reserved: true, nonce: "7" });
      expect(taking.mode).toBe("off");
      // No room under the cap: settled in confirmed mode, a block before its next write.
      const full = await commitMode(LOCK_TAKING_NONCE, [...args(PRICE - 1n), ...nonceArgs]);
      expect(full.row).toMatchObject({ outcome: "locked", reserved: false, nonce: null });
      expect(full.mode).toBe("on");
      const plain = await commitMode(LOCK, args(null));
      expect(plain.row).toMatchObject({ outcome: "locked" });
      expect(plain.mode).toBe("on");
      // The setting was the transaction's own: the connection is back to the default.
      const [after] = await prisma.$queryRawUnsafe<{ v: string }[]>(`SELECT current_setting('synchronous_commit') AS v`);
      expect(after!.v).toBe("on");
    });

    it("x402's pending-settlement store: one instance's entry is seen by another, until deleted or expired", async () => {
      const [one, other] = [new DbPendingSettlements(), new DbPendingSettlements()];
      const key = `0x${randomBytes(65).toString("hex")}`;
      expect(await other.get(key)).toBeUndefined();
      const hash = tx();
      await one.set(key, hash);
      expect(await other.get(key)).toBe(hash);
      await other.delete(key);
      expect(await one.get(key)).toBeUndefined();
      await one.set(key, hash);
      const h = await getDbHandle();
      await h.query(`UPDATE x402_pending_settlements SET created_at = now() - interval '6 minutes' WHERE key = $1`, [key]);
      expect(await other.get(key)).toBeUndefined();
    });
  });
}
