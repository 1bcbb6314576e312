/**
 * The service's own fees on the embedded database (lib/payments/fees.ts; the integration
 * suite tests/integration/service-fees.test.ts runs the paths that record them against
 * PostgreSQL): a transaction is recorded and counted in /metrics once, whoever learns its
 * fee again; the ledger report counts it in `failed` and apart as `ours`; isServiceFee
 * finds it by its hash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { feeTotals, forgetUnminedServiceTransaction, isServiceFee, noteServiceTransaction, recordServiceFee, unpricedServiceTransactions } from "@/lib/payments/fees";
import { metrics } from "@/lib/metrics";

const saved = { ...process.env };
const NETWORK = "eip155:8453";
const TX = `0x${"ab".repeat(32)}`;

beforeAll(async () => {
  await closeDb();
  Object.assign(process.env, { LOG_LEVEL: "silent", DATA_DIR: "memory" });
  delete process.env.DATABASE_URL;
  resetEnvForTests();
});
afterAll(async () => {
  await closeDb();
  process.env = saved;
  resetEnvForTests();
});

const failedCounted = async () => (await metrics().fees.get()).values.find((v) => v.labels.network === NETWORK && v.labels.outcome === "failed")?.value ?? 0;

describe("service fees (embedded database)", () => {
  it("a transaction learned twice is recorded and counted once; one without a hash each time", async () => {
    const counted = await failedCounted();
    await recordServiceFee({ network: NETWORK, reason: "transaction_reverted", fee: 1000n, transaction: TX, paymentId: "p1" });
    await recordServiceFee({ network: NETWORK, reason: "taken_over_unpaid", fee: 1000n, transaction: TX, paymentId: "p1" });
    await recordServiceFee({ network: NETWORK, reason: "transaction_refused", fee: 7n, transaction: null });
    await recordServiceFee({ network: NETWORK, reason: "transaction_refused", fee: 7n, transaction: null });
    const h = await getDbHandle();
    const rows = await h.query<{ reason: string; fee: string }>(`SELECT reason, fee_native::text AS fee FROM service_fees WHERE "transaction" = $1`, [TX]);
    expect(rows).toEqual([{ reason: "transaction_reverted", fee: "1000" }]);
    expect((await failedCounted()) - counted).toBe(1014);
    expect(await isServiceFee(TX)).toBe(true);
    expect(await isServiceFee(`0x${"cd".repeat(32)}`)).toBe(false);
    const totals = (await feeTotals()).find((t) => t.network === NETWORK)!;
    expect(totals).toMatchObject({ method: "evm-exact", unit: "wei", settled: "0", failed: "1014", failed_transactions: 3, ours: { fee: "1014", transactions: 3 } });
  });

  it("a transaction noted before it went out counts for nothing until priced, then once, whoever prices it", async () => {
    const filler = `0x${"ef".repeat(32)}`;
    const counted = await failedCounted();
    const ours = async () => (await feeTotals()).find((t) => t.network === NETWORK)!.ours;
    const before = await ours();
    await noteServiceTransaction({ network: NETWORK, reason: "nonce_gap_filler", transaction: filler });
    await noteServiceTransaction({ network: NETWORK, reason: "nonce_gap_filler", transaction: filler });
    expect(await ours()).toEqual(before);
    expect(await isServiceFee(filler)).toBe(true);
    expect((await unpricedServiceTransactions([NETWORK], 0)).map((t) => t.transaction)).toEqual([filler]);
    // Not old enough for a pass yet, and a pass reads only the networks it can price.
    expect(await unpricedServiceTransactions([NETWORK], 3600)).toEqual([]);
    expect(await unpricedServiceTransactions(["eip155:84532"], 0)).toEqual([]);
    // Its sender reads the receipt, and so does a recovery pass: counted once.
    await recordServiceFee({ network: NETWORK, reason: "nonce_gap_filler", fee: 21_000n, transaction: filler });
    await recordServiceFee({ network: NETWORK, reason: "nonce_gap_filler", fee: 21_000n, transaction: filler });
    expect(await ours()).toEqual({ fee: (BigInt(before.fee) + 21_000n).toString(), transactions: before.transactions + 1 });
    expect((await failedCounted()) - counted).toBe(21_000);
    expect(await unpricedServiceTransactions([NETWORK], 0)).toEqual([]);
    // A priced transaction is never forgotten.
    expect(await forgetUnminedServiceTransaction(filler)).toBe(false);
    expect(await isServiceFee(filler)).toBe(true);
  });
});
