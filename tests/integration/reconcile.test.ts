/**
 * Payments nobody is finishing, resolved from the chain (lib/payments/recovery.ts) by
 * `npm run reconcile`, the operator's command, and what the ledger report says before and
 * after. Rows are written as a holder that died would leave them (pending, its lease run
 * out; or an outcome left unknown), for authorizations that are, on the local chain:
 * - used by a transfer to us (a settlement the dead holder sent) → "landed"; presented
 *   again, the payment is served, charged once;
 * - used by the payer elsewhere (a transfer to itself with the same nonce) → "failed";
 * - unused and past their validity → "expired", nothing charged;
 * - unused and still valid → unchanged, free for its payer at once.
 */
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createWalletClient, http, type Address, type Hex } from "viem";
import { localBase, startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { requirementFrom, signAuthorization, useAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const root = fileURLToPath(new URL("../..", import.meta.url));
const usePg = await hasPostgres();
if (!usePg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");
const ADMIN = `admin-${randomBytes(12).toString("hex")}`;

describe.skipIf(!usePg)("npm run reconcile: payments nobody is finishing, resolved from the chain", () => {
  let chain: Chain;
  let fx: Fixture;
  let db: pg.Client;
  let req: Requirement;
  const schema = `reconcile_${randomBytes(5).toString("hex")}`;
  const dbUrl = `${POSTGRES_URL}?schema=${schema}`;
  const payer = () => chain.accounts[1]!;
  const env = () => ({ DATABASE_URL: dbUrl, PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: chain.rpcUrl, ADMIN_TOKEN: ADMIN, CACHE_DISABLED: "1" });

  beforeAll(async () => {
    chain = await startChain();
    await chain.mintUsdc(payer().address, 10_000_000n);
    fx = await startFixture({ env: env() });
    req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
    db = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path="${schema}"` });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await fx?.close();
    await chain?.stop();
  });

  /** An authorization of the payer for /v1/fng, and the row a dead holder left for it. */
  async function leftBehind(o: { status: "pending" | "unknown"; validBefore?: bigint; to?: Address; value?: bigint }) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const validBefore = o.validBefore ?? now + 600n;
    const signed = await signAuthorization(payer(), { to: o.to ?? (req.payTo as Address), value: o.value ?? BigInt(req.amount), validBefore });
    const id = randomBytes(16).toString("hex");
    const reference = `${payer().address.toLowerCase()}:${signed.authorization.nonce.toLowerCase()}`;
    await db.query(
      `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, updated_at, holder, lease_until, expires_at)
       VALUES ($1, 'exact', $2, $3, $4, $5, $6, $7, 'fng', 'http', $8, now() - interval '1 minute', 'dead-holder', now() - interval '5 seconds', to_timestamp($9))`,
      [id, req.network, reference, payer().address.toLowerCase(), req.amount, req.asset, req.payTo, o.status, Number(validBefore)],
    );
    return { id, signed, header: v2Header(req, signed) };
  }

  /** Sends `signed`'s transfer on chain from another account (what a dead holder's settlement, or the payer itself, did). */
  async function transfer(signed: Awaited<ReturnType<typeof signAuthorization>>) {
    expect((await useAuthorization(chain.rpcUrl, chain.accounts[7]!, signed)).status).toBe("success");
  }

  const report = async () => (await fx.json("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } })).body;
  const status = async (id: string) => ((await db.query(`SELECT status FROM payments WHERE id = $1`, [id])).rows[0] as { status: string }).status;

  it("resolves each row from the chain, prints what it did, and the report is ok once nothing is left unfinished", async () => {
    const landed = await leftBehind({ status: "pending" });
    await transfer(landed.signed);
    // The payer spent the nonce it signed for us on a transfer to itself: void.
    const voided = await leftBehind({ status: "unknown" });
    const own = await signAuthorization(payer(), { to: payer().address, value: 0n, nonce: voided.signed.authorization.nonce as Hex });
    await transfer(own);
    const expired = await leftBehind({ status: "pending", validBefore: BigInt(Math.floor(Date.now() / 1000)) - 120n });
    const open = await leftBehind({ status: "pending" });

    const before = await report();
    expect(before.health.ok).toBe(false);
    expect(before.health.payments_pending_past_lease).toBe(3);
    expect(before.health.payments_outcome_unknown).toBe(1);

    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/reconcile.ts"], { cwd: root, encoding: "utf8", env: { ...process.env, ...env(), LOG_LEVEL: "silent" }, timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${landed.id}.*pending -> landed`));
    expect(r.stdout).toMatch(new RegExp(`${voided.id}.*unknown -> failed`));
    expect(r.stdout).toMatch(new RegExp(`${expired.id}.*pending -> expired`));
    expect(r.stdout).toMatch(new RegExp(`${open.id}.*pending -> unchanged.*still usable`));
    expect(r.stdout).toMatch(/reconciled 4 payment\(s\): 1 landed .* 1 failed, 1 expired .* 1 unchanged/);
    expect(await status(landed.id)).toBe("landed");
    expect(await status(voided.id)).toBe("failed");
    expect(await status(expired.id)).toBe("expired");
    expect(await status(open.id)).toBe("pending");

    const after = await report();
    expect(after.health.payments_outcome_unknown).toBe(0);
    expect(after.health.payments_paid_not_answered).toBe(1);
    // The one still usable is left to its payer (pending, its lease free): not finished yet.
    expect(after.health.payments_pending_past_lease).toBe(1);
    expect(after.health.ok).toBe(false);

    // The landed payment presented again: served now, charged once (its transfer happened).
    const balance = await chain.usdcBalance(payer().address);
    const served = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": landed.header } });
    expect(served.status, await served.clone().text()).toBe(200);
    expect(await chain.usdcBalance(payer().address)).toBe(balance);
    // The open one presented by its payer: settled now, once.
    const paid = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": open.header } });
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await chain.usdcBalance(payer().address)).toBe(balance - BigInt(req.amount));
    // The expired one: refused, saying nothing was charged.
    const late = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": expired.header } });
    expect(late.status).toBe(402);
    expect(JSON.stringify(await late.json())).toMatch(/expired/i);

    const done = await report();
    expect(done.health).toMatchObject({ ok: true, payments_pending_past_lease: 0, payments_outcome_unknown: 0, payments_paid_not_answered: 0 });
  }, 180_000);

  it("prices the service's own transactions whose sender died before their receipt, once; forgets one never mined after an hour", async () => {
    // A nonce-gap filler is noted (fee unknown) before it goes out, and priced once its
    // receipt is read (lib/payments/x402/sender.ts). Three notes as a sender that died
    // left them: one whose transaction was mined (a zero-value transaction to itself, as a
    // filler is; sent from another account than the service's key, whose nonces the
    // service keeps), one never mined for over an hour, one never mined, recent.
    const wallet = createWalletClient({ account: chain.accounts[7]!, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const mined = await wallet.sendTransaction({ to: chain.accounts[7]!.address, value: 0n, gas: 21_000n });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: mined });
    const cost = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(cost).toBeGreaterThan(0n);
    const lost = `0x${randomBytes(32).toString("hex")}`;
    const pending = `0x${randomBytes(32).toString("hex")}`;
    for (const [tx, age] of [[mined, "1 minute"], [lost, "2 hours"], [pending, "1 minute"]] as const) {
      await db.query(`INSERT INTO service_fees (id, network, reason, "transaction", fee_native, created_at) VALUES ($1, $2, 'nonce_gap_filler', $3, NULL, now() - $4::interval)`, [randomBytes(8).toString("hex"), req.network, tx, age]);
    }
    const ours = async () => ((await report()) as { fees: Record<string, { ours: { fee: string; transactions: number } }> }).fees[req.network]?.ours ?? { fee: "0", transactions: 0 };
    // Unpriced, a note counts for nothing yet.
    const before = await ours();
    const reconcile = () => spawnSync(process.execPath, ["--import", "tsx", "scripts/reconcile.ts"], { cwd: root, encoding: "utf8", env: { ...process.env, ...env(), LOG_LEVEL: "silent" }, timeout: 120_000 });
    const r = reconcile();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${mined}  ${req.network}  nonce_gap_filler -> priced  mined, fee ${cost}`);
    expect(r.stdout).toContain(`${pending}  ${req.network}  nonce_gap_filler -> unchanged  not priced: pending, or not readable here`);
    // The two-hour-old note is past the grace of the fixture's own recovery pass (every
    // 10 s since its first payment), which may forget it first: whoever does, it is gone.
    const forgotten = r.stdout.includes(lost) ? 1 : 0;
    if (forgotten) expect(r.stdout).toMatch(new RegExp(`${lost}  ${req.network}  nonce_gap_filler -> forgotten  unknown to the node 120 min after it was sent`));
    expect(r.stdout).toContain(`own transactions: 1 priced, ${forgotten} forgotten (never mined), 1 unchanged`);
    const fees = (await db.query(`SELECT "transaction" AS tx, fee_native::text AS fee FROM service_fees WHERE "transaction" = ANY($1) ORDER BY created_at`, [[mined, lost, pending]])).rows;
    expect(fees).toEqual(expect.arrayContaining([{ tx: mined, fee: cost.toString() }, { tx: pending, fee: null }]));
    expect(fees).toHaveLength(2);
    const after = await ours();
    expect(after.transactions - before.transactions).toBe(1);
    expect(BigInt(after.fee) - BigInt(before.fee)).toBe(cost);
    // Again: nothing is priced or counted twice.
    const again = reconcile();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("own transactions: 0 priced, 0 forgotten (never mined), 1 unchanged");
    expect(await ours()).toEqual(after);
  }, 180_000);

  it("never forgets a noted transaction the node still holds, however old the note: it is priced once mined", async () => {
    const wallet = createWalletClient({ account: chain.accounts[7]!, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl) });
    await chain.rpc("evm_setAutomine", [false]);
    let held: Hex;
    try {
      held = await wallet.sendTransaction({ to: chain.accounts[7]!.address, value: 0n, gas: 21_000n });
      await db.query(`INSERT INTO service_fees (id, network, reason, "transaction", fee_native, created_at) VALUES ($1, $2, 'nonce_gap_filler', $3, NULL, now() - interval '2 hours')`, [randomBytes(8).toString("hex"), req.network, held]);
      const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/reconcile.ts"], { cwd: root, encoding: "utf8", env: { ...process.env, ...env(), LOG_LEVEL: "silent" }, timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${held}  ${req.network}  nonce_gap_filler -> unchanged  not priced: pending, or not readable here`);
      // Neither this pass nor the fixture's own forgot it: the node knows it.
      expect((await db.query(`SELECT fee_native FROM service_fees WHERE "transaction" = $1`, [held])).rows).toEqual([{ fee_native: null }]);
      await chain.rpc("evm_mine", []);
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: held });
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/reconcile.ts"], { cwd: root, encoding: "utf8", env: { ...process.env, ...env(), LOG_LEVEL: "silent" }, timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    // Priced by this run or by the fixture's own pass meanwhile: once, with the receipt's fee.
    expect((await db.query(`SELECT fee_native::text AS fee FROM service_fees WHERE "transaction" = $1`, [held])).rows).toEqual([{ fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString() }]);
  }, 180_000);
});
