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
import { feeTotals, isServiceFee, recordServiceFee } from "@/lib/payments/fees";
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
});
