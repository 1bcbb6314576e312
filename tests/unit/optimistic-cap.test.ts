/**
 * The per-payer optimistic cap as one step (reserveOptimistic): concurrent reservations of
 * one payer never exceed the cap together, on the embedded database and on PostgreSQL;
 * a released reservation frees its share; another payer has its own cap.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb } from "@/lib/db/client";
import { lockPayment, releaseLock, reserveOptimistic, type PaymentLock } from "@/lib/payments/ledger";
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

const lock = (payer: string): Promise<PaymentLock> =>
  lockPayment({
    scheme: "exact",
    network: NETWORK,
    reference: `${payer}:0x${randomBytes(32).toString("hex")}`,
    payer,
    amountAtomic: PRICE,
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    payTo: "0x00000000000000000000000000000000000A11CE",
    product: "sentiment",
    surface: "http",
  });

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
      const locks = await Promise.all(Array.from({ length: 12 }, () => lock(payer)));
      // Mixed case as a settlement would record it: compared case-blind.
      const got = await Promise.all(locks.map((l, i) => reserveOptimistic(l, i % 2 ? payer.toUpperCase().replace("0X", "0x") : payer, PRICE, CAP, KEPT)));
      expect(got.filter(Boolean)).toHaveLength(2);

      const held = locks[got.indexOf(true)]!;
      await releaseLock(held);
      const waiting = locks.filter((_, i) => !got[i]);
      expect(await reserveOptimistic(waiting[0]!, payer, PRICE, CAP, KEPT)).toBe(true);
      expect(await reserveOptimistic(waiting[1]!, payer, PRICE, CAP, KEPT)).toBe(false);

      const other = `0x${randomBytes(20).toString("hex")}`;
      expect(await reserveOptimistic(await lock(other), other, PRICE, CAP, KEPT)).toBe(true);
    });
  });
}
