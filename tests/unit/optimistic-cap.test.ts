/**
 * The per-payer optimistic cap as one step (lockPayment asking for a share): concurrent
 * reservations of one payer never exceed the cap together, on the embedded database and
 * on PostgreSQL; a released reservation frees its share; another payer has its own cap.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb } from "@/lib/db/client";
import { lockPayment, releaseLock, type PaymentLock } from "@/lib/payments/ledger";
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
  });
}
