/**
 * The optimistic caps as one step (lockPayment asking for a share), on the embedded
 * database and on PostgreSQL:
 * - per payer: concurrent reservations of one payer never exceed its cap together; a
 *   released reservation frees its share; another payer has its own cap;
 * - for the whole service (X402_OPTIMISTIC_SERVICE_CAP_USD): concurrent reservations of
 *   many fresh payers never exceed it together, and the value of optimistic payments that
 *   failed after delivery counts against it for the loss window, so payers moving the same
 *   funds through fresh addresses get at most the cap per window delivered unpaid.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb } from "@/lib/db/client";
import { getDbHandle } from "@/lib/db/client";
import { confirmBroadcast, lockPayment, recordSettlement, releaseLock, type PaymentLock } from "@/lib/payments/ledger";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const pgUp = await hasPostgres();
const saved = { ...process.env };
afterAll(async () => {
  await closeDb();
  process.env = saved;
  resetEnvForTests();
});

const PRICE = 5_000n;
const CAP = 2n * PRICE;
const NETWORK = "eip155:8453";
/** What a reservation keeps to send the payment again (its content is not read here). */
const KEPT = JSON.stringify({ payload: {}, requirements: {} });

/** A payment of `payer` locked, asking for a share of its optimistic cap: whether it got one. */
const reserve = (payer: string, cap = CAP): Promise<PaymentLock> =>
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
    { capAtomic: cap, settlementPayload: KEPT },
  );
const reserved = (l: PaymentLock) => l.optimistic?.reserved === true;

const modes = [
  { name: "embedded (PGlite)", env: { DATA_DIR: "memory", DATABASE_URL: "" } },
  ...(pgUp ? [{ name: "PostgreSQL", env: { DATABASE_URL: `${POSTGRES_URL}?schema=optcap_${randomBytes(5).toString("hex")}` } }] : []),
];

for (const mode of modes) {
  describe(`optimistic cap — ${mode.name}`, () => {
    it("lets exactly cap/price of 12 concurrent reservations of one payer through; a release frees a share; another payer is apart", async () => {
      await closeDb();
      Object.assign(process.env, { LOG_LEVEL: "silent" }, mode.env);
      if (!mode.env.DATABASE_URL) delete process.env.DATABASE_URL;
      resetEnvForTests();
      const payer = `0x${randomBytes(20).toString("hex")}`;
      // Mixed case as a settlement would record it: compared case-blind.
      const locks = await Promise.all(Array.from({ length: 12 }, (_, i) => reserve(i % 2 ? payer.toUpperCase().replace("0X", "0x") : payer)));
      expect(locks.filter(reserved)).toHaveLength(2);
      // The others are locked all the same, for confirmed mode (no room; no failure to name).
      expect(locks.filter((l) => !reserved(l)).map((l) => l.optimistic)).toEqual(Array(10).fill({ reserved: false, failed: null }));

      await releaseLock(locks.find(reserved)!);
      expect(reserved(await reserve(payer))).toBe(true);
      expect(reserved(await reserve(payer))).toBe(false);

      const other = `0x${randomBytes(20).toString("hex")}`;
      expect(reserved(await reserve(other))).toBe(true);
    });

    it("the service-wide cap: 12 fresh payers at once get exactly cap/price shares; losses count against it for the window, then no longer", async () => {
      // Earlier cases' reservations are in flight: a schema of its own for this one.
      await closeDb();
      Object.assign(process.env, { LOG_LEVEL: "silent", X402_OPTIMISTIC_SERVICE_CAP_USD: "0.02", X402_OPTIMISTIC_LOSS_WINDOW_SECONDS: "3600" }, mode.env);
      if (mode.env.DATABASE_URL) process.env.DATABASE_URL = `${POSTGRES_URL}?schema=optsvc_${randomBytes(5).toString("hex")}`;
      else delete process.env.DATABASE_URL;
      resetEnvForTests();
      try {
        const fresh = () => `0x${randomBytes(20).toString("hex")}`;
        // Each payer is far below its own cap ($0.01 each, 2 shares); the service has room for 4.
        const locks = await Promise.all(Array.from({ length: 12 }, () => reserve(fresh())));
        expect(locks.filter(reserved)).toHaveLength(4);
        // Delivered, then each transfer fails on chain (the payers moved their funds away).
        for (const l of locks.filter(reserved)) {
          await recordSettlement(l, `0x${randomBytes(32).toString("hex")}`, null, { product: "sentiment", surface: "http", credentialKind: "x402", amountUsd: "0.005" }, "broadcast");
          await confirmBroadcast(l.id, { settled: false, error: "the transfer fails on chain" });
        }
        for (const l of locks.filter((x) => !reserved(x))) await releaseLock(l);
        // Nothing is in flight any more, but the $0.02 lost fills the cap for the window:
        // the next fresh addresses settle in confirmed mode.
        expect(reserved(await reserve(fresh()))).toBe(false);
        expect(reserved(await reserve(fresh()))).toBe(false);
        // Once the losses are older than the window, the cap is free again.
        const h = await getDbHandle();
        await h.query(`UPDATE payments SET updated_at = now() - interval '2 hours' WHERE status = 'optimistic_failed'`, []);
        expect(reserved(await reserve(fresh()))).toBe(true);
      } finally {
        delete process.env.X402_OPTIMISTIC_SERVICE_CAP_USD;
        delete process.env.X402_OPTIMISTIC_LOSS_WINDOW_SECONDS;
        resetEnvForTests();
      }
    });
  });
}
