/**
 * The service's own fees (issue 30, lib/payments/fees.ts): a settlement transaction that is
 * mined and reverts for a reason of ours (the transfer still goes through afterwards, so
 * the payment is released to be presented again) cost the facilitator key its gas. That fee
 * is the service's, never the payer's, and the ledger report counts it once:
 * - confirmed settlement, its transaction mined reverted while the payment is still good →
 *   503 settlement_pending (fault service); one service_fees row under that transaction
 *   with its receipt's fee, the payment row gone (released, no fee on it), the report's
 *   `ours` and `failed` up by that fee once; the same payment then settles;
 * - the same for a payment taken over from a holder that died (its row left claimable with
 *   that transaction), whose payer's funds then leave: presented again, the taken-over
 *   payment ends released (402, row gone), not failed with that transaction's fee: the fee
 *   is counted once and never against the payer's fee budget;
 * - the same taken-over payment presented again while still good: it settles, and the fee
 *   the first attempt recorded is counted once, in the report and in /metrics;
 * - the instance dies (SIGKILL, failpoint before_service_fee) after such a transaction was
 *   mined, before the fee was recorded: the payment presented again (another instance,
 *   once the lease ran out) is taken over and settles, and the dead attempt's transaction
 *   is recorded as the service's own fee then, once; never presented again, the payment
 *   expires and a recovery pass records it (reason expired_unpaid), once; voided by its
 *   payer instead (the nonce spent elsewhere), the pass records it as ours too (reason
 *   void_unpaid: why it failed died with the instance), never against the payer's budget.
 *
 * How the transaction reverts for a reason of ours: the JSON-RPC proxy holds the
 * settlement's send, the test swaps the token's code for one that reverts, lets the send
 * go (the node mines it, reverted) and puts the token back before the node's answer
 * reaches the service, which then finds the transfer still simulates: our failure.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createWalletClient, http, parseAbi, publicActions, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { BASE_USDC, localBase, startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { startService } from "../helpers/service";
import { requirementFrom, signAuthorization, useAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";
import { rpcProxy } from "../helpers/rpc-proxy";

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const LEASE_SECONDS = 3;
const usePg = await hasPostgres();
if (!usePg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");
/** PUSH1 0 PUSH1 0 REVERT: every call reverts. */
const REVERTS = "0x60006000fd";

type FeeEntry = { failed: string; failed_transactions: number; ours: { fee: string; transactions: number } };

describe.skipIf(!usePg)("the service's own fees: a settlement mined reverted for a reason of ours", () => {
  let chain: Chain;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  let fx: Fixture;
  let db: pg.Client;
  const schema = `fees_${randomBytes(6).toString("hex")}`;
  const key = () => chain.accounts[0]!.address;

  const env = () => ({
    PAY_TO_ADDRESS: chain.accounts[2]!.address,
    FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
    SETTLEMENT_RPC_URL: proxy.url,
    PAYMENT_TIMEOUT_MS: "3000",
    PAYMENT_LEASE_SECONDS: String(LEASE_SECONDS),
    ADMIN_TOKEN: ADMIN,
    DATABASE_URL: `${POSTGRES_URL}?schema=${schema}`,
  });

  beforeAll(async () => {
    chain = await startChain();
    proxy = await rpcProxy(chain.rpcUrl);
    fx = await startFixture({ env: env() });
    db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await fx?.close();
    await proxy?.close();
    await chain?.stop();
  });

  const requirement = async (): Promise<Requirement> => requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
  const fees = async (network: string): Promise<FeeEntry> => {
    const r = await fx.json("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } });
    return r.body.fees?.[network] ?? { failed: "0", failed_transactions: 0, ours: { fee: "0", transactions: 0 } };
  };
  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.query(sql.replaceAll("$S", `"${schema}"`), params)).rows as T[];

  /** A fresh payer holding 1 USDC and some ether (to move its USDC away), its payment for /v1/fng and that payment's reference. */
  async function payer() {
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.rpc("hardhat_setBalance", [account.address, "0x16345785D8A0000"]); // 0.1 ether
    await chain.mintUsdc(account.address, 1_000_000n);
    const req = await requirement();
    const signed = await signAuthorization(account, { to: req.payTo as Address, value: BigInt(req.amount) });
    const reference = `${account.address.toLowerCase()}:${signed.authorization.nonce.toLowerCase()}`;
    const wallet = createWalletClient({ account, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
    const moveFundsAway = async () => {
      const away = await wallet.writeContract({ address: BASE_USDC, abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]), functionName: "transfer", args: [chain.accounts[2]!.address, 1_000_000n] });
      expect((await wallet.waitForTransactionReceipt({ hash: away })).status).toBe("success");
    };
    return { account, req, signed, header: v2Header(req, signed), reference, moveFundsAway };
  }

  /**
   * The payment presented while its settlement transaction is made to revert for a reason
   * of ours (see the file's comment): the answer, the transaction and what it cost the key.
   */
  async function presentRevertingOurs(header: string, base = fx.svc.url) {
    const token = (await chain.publicClient.getCode({ address: BASE_USDC }))!;
    const held = proxy.hold();
    // A network failure (the instance died) is null.
    const answer = fetch(`${base}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": header } }).catch(() => null);
    const nonce = await held;
    await chain.rpc("hardhat_setCode", [BASE_USDC, REVERTS]);
    proxy.release(() => chain.rpc("hardhat_setCode", [BASE_USDC, token]).then(() => undefined));
    const res = (await answer) as Response;
    expect((await chain.publicClient.getCode({ address: BASE_USDC }))!.toLowerCase()).toBe(token.toLowerCase());
    const block = await chain.publicClient.getBlock({ includeTransactions: true });
    const tx = block.transactions.find((t) => t.from.toLowerCase() === key().toLowerCase() && t.nonce === nonce);
    expect(tx, "the settlement transaction was mined").toBeDefined();
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx!.hash });
    expect(receipt.status).toBe("reverted");
    return { res, tx: tx!.hash as Hex, fee: receipt.gasUsed * receipt.effectiveGasPrice };
  }

  /** What /metrics counts of the failed settlements' fees on `network` (this instance). */
  const failedFeesMetric = async (network: string) => {
    const text = await fx.get("/metrics", { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
    const line = text.split("\n").find((l) => l.startsWith("echo_settlement_fees_total{") && l.includes(`network="${network}"`) && l.includes(`outcome="failed"`));
    return line ? Number(line.split(" ").at(-1)) : 0;
  };

  /** What a holder that died after locking `p`'s payment leaves: a pending row, its lease run out. */
  const leftByDeadHolder = (p: Awaited<ReturnType<typeof payer>>) =>
    q(
      `INSERT INTO $S.payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, created_at, updated_at, holder, lease_until)
       VALUES (gen_random_uuid()::text, 'exact', $1, $2, $3, $4, $5, $6, 'fng', 'http', 'pending', now(), now(), 'dead-holder', now() - interval '1 second')`,
      [p.req.network, p.reference, p.account.address.toLowerCase(), p.req.amount, p.req.asset, p.req.payTo],
    );

  /** `p`'s payment presented again: served, charged once, its one row settled by a transaction other than `tx`. */
  async function settlesAnew(p: Awaited<ReturnType<typeof payer>>, tx: Hex) {
    const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": p.header } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await chain.usdcBalance(p.account.address)).toBe(1_000_000n - BigInt(p.req.amount));
    expect(await q(`SELECT status, tx_hash <> $2 AS anew FROM $S.payments WHERE reference = $1`, [p.reference, tx])).toEqual([{ status: "settled", anew: true }]);
  }

  /**
   * `p`'s payment presented to an instance that dies (SIGKILL, failpoint before_service_fee)
   * once its settlement transaction was mined reverted for a reason of ours, before that
   * fee was recorded: the row it leaves names the transaction, and no fee is recorded.
   */
  async function diesBeforeRecording(p: Awaited<ReturnType<typeof payer>>) {
    const dying = await startService({ env: { ...fx.sim.env, UPSTREAM_MODE: "live", ...env(), ECHO_FAILPOINTS: "before_service_fee" } });
    let mined: { tx: Hex; fee: bigint };
    try {
      mined = await presentRevertingOurs(p.header, dying.url);
      await new Promise<void>((r) => (dying.child.exitCode !== null || dying.child.signalCode !== null ? r() : dying.child.once("exit", () => r())));
      expect(dying.child.signalCode).toBe("SIGKILL");
    } finally {
      await dying.stop();
    }
    expect(await q(`SELECT status, tx_hash FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([{ status: "sent", tx_hash: mined.tx }]);
    expect(await q(`SELECT 1 FROM $S.service_fees WHERE "transaction" = $1`, [mined.tx])).toEqual([]);
    return mined;
  }

  /** Makes the surviving instance start its recovery passes: it does once it has been presented a payment (any: this one's payer holds nothing). */
  async function startPasses(req: Requirement) {
    const unfunded = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { to: req.payTo as Address, value: BigInt(req.amount) });
    expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, unfunded) } })).status).toBe(402);
  }

  /**
   * The set-up of the recovery cases: the surviving instance's passes started, then a payment
   * whose instance died after its transaction was mined, before recording its fee
   * (diesBeforeRecording); the ledger report's fees before that death.
   */
  async function diedUnrecordedWithPasses() {
    const p = await payer();
    await startPasses(p.req);
    const before = await fees(p.req.network);
    return { p, before, ...(await diesBeforeRecording(p)) };
  }

  /** `reference`'s row once it is `status`: the surviving instance's next pass (every 10 s) claims it once the dead holder's lease ran out. */
  async function rowOnceItIs(reference: string, status: string) {
    let rows: Array<{ status: string; fee_native: string | null }> = [];
    for (let i = 0; i < 60 && rows[0]?.status !== status; i++) {
      await new Promise((r) => setTimeout(r, 500));
      rows = await q<{ status: string; fee_native: string | null }>(`SELECT status, fee_native FROM $S.payments WHERE reference = $1`, [reference]);
    }
    return rows;
  }

  /** Since `before`: one more transaction of ours, of `fee`, counted with the failed ones; the payer's fee budget and funds untouched. */
  async function expectOursOnce(p: Awaited<ReturnType<typeof payer>>, before: FeeEntry, fee: bigint) {
    const network = p.req.network;
    expect(await payerSpent(network, p.account.address)).toBe(0n);
    const after = await fees(network);
    expect(after.ours.transactions - before.ours.transactions).toBe(1);
    expect(BigInt(after.ours.fee) - BigInt(before.ours.fee)).toBe(fee);
    expect(after.failed_transactions - before.failed_transactions).toBe(1);
    expect(await chain.usdcBalance(p.account.address)).toBe(1_000_000n);
  }

  /** What the payer's failed payments count against its fee budget (the query payerFailedFees makes, without its window's clean cache). */
  const payerSpent = async (network: string, address: string) =>
    BigInt(
      (
        await q<{ spent: string }>(
          `SELECT COALESCE(sum(fee_native), 0)::text AS spent FROM $S.payments WHERE network = $1 AND lower(payer) = lower($2) AND fee_native > 0 AND status IN ('failed', 'optimistic_failed')`,
          [network, address],
        )
      )[0]!.spent,
    );

  it("confirmed settlement mined reverted for a reason of ours: 503 fault service, one service_fees row under its transaction with the receipt's fee, the payment released with no fee on it, `ours` counted once; the same payment then settles", async () => {
    const p = await payer();
    const network = p.req.network;
    const before = await fees(network);
    const { res, tx, fee } = await presentRevertingOurs(p.header);
    expect(res.status, await res.clone().text()).toBe(503);
    const err = (await res.json()).error;
    expect(err).toMatchObject({ code: "settlement_pending", fault: "service", reason: "transaction_reverted" });
    expect(await chain.usdcBalance(p.account.address)).toBe(1_000_000n);

    // Exactly one row, under that very transaction, with its receipt's fee.
    const own = await q<{ transaction: string | null; fee: string; reason: string; network: string }>(`SELECT "transaction", fee_native::text AS fee, reason, network FROM $S.service_fees WHERE payment_id = $1`, [err.payment_id]);
    expect(own).toEqual([{ transaction: tx, fee: fee.toString(), reason: "transaction_reverted", network }]);
    // Released: no payment row is left, so nothing is charged to the payer's budget.
    expect(await q(`SELECT status, fee_native FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([]);
    expect(await payerSpent(network, p.account.address)).toBe(0n);
    const after = await fees(network);
    expect(after.ours.transactions - before.ours.transactions).toBe(1);
    expect(BigInt(after.ours.fee) - BigInt(before.ours.fee)).toBe(fee);
    expect(after.failed_transactions - before.failed_transactions).toBe(1);
    expect(BigInt(after.failed) - BigInt(before.failed)).toBe(fee);

    // The payment is still good: presented again it settles, once, and the fee stays ours.
    await settlesAnew(p, tx);
    expect(await payerSpent(network, p.account.address)).toBe(0n);
    const last = await fees(network);
    expect(last.ours).toEqual(after.ours);
    expect(last.failed_transactions).toBe(after.failed_transactions);
  });

  it("a payment taken over from a dead holder, its transaction mined reverted for a reason of ours, then its payer's funds leave: presented again it ends released (402, no row), not failed with that fee; the fee counted once, never against the payer's budget", async () => {
    const p = await payer();
    const network = p.req.network;
    await leftByDeadHolder(p);
    const before = await fees(network);
    const { res, tx, fee } = await presentRevertingOurs(p.header);
    expect(res.status, await res.clone().text()).toBe(503);
    expect((await res.json()).error).toMatchObject({ code: "settlement_pending", fault: "service", reason: "transaction_reverted" });
    // Taken over, so released as claimable: the row names the transaction that reverted.
    expect(await q(`SELECT status, tx_hash, fee_native FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([{ status: "unknown", tx_hash: tx, fee_native: null }]);

    // The payer's funds leave: presented again, the payment no longer verifies, its earlier
    // transaction is mined (not held) and never transferred: the payment is taken over and ends unpaid.
    await p.moveFundsAway();
    const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": p.header } });
    expect(again.status).toBe(402);
    // Released, not failed with the transaction's fee: counted once, never against the payer.
    expect(await payerSpent(network, p.account.address), "the payer's fee budget").toBe(0n);
    expect(await q(`SELECT status, fee_native FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([]);
    const after = await fees(network);
    expect(after.failed_transactions - before.failed_transactions, "the transaction counted once").toBe(1);
    expect(BigInt(after.failed) - BigInt(before.failed)).toBe(fee);
    expect(after.ours.transactions - before.ours.transactions).toBe(1);
    expect(BigInt(after.ours.fee) - BigInt(before.ours.fee)).toBe(fee);
    expect(await q(`SELECT "transaction", fee_native::text AS fee FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString() }]);
    // Refused now (its funds left), not "refused before": the payment may be presented again once funded.
    const refused = (await again.json()) as { code?: string; error?: unknown };
    expect(refused.code, String(refused.error)).toBe("payment_invalid");
  });

  it("the same taken-over payment presented again while still good: it settles, and the fee the first attempt recorded is counted once, in the ledger report and in /metrics", async () => {
    const p = await payer();
    const network = p.req.network;
    await leftByDeadHolder(p);
    const before = { report: await fees(network), metric: await failedFeesMetric(network) };
    const { res, tx, fee } = await presentRevertingOurs(p.header);
    expect(res.status, await res.clone().text()).toBe(503);
    expect(await q(`SELECT status, tx_hash FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([{ status: "unknown", tx_hash: tx }]);

    // Taken over again: the earlier transaction is found mined, without a transfer, and the payment is settled anew.
    await settlesAnew(p, tx);
    expect(await q(`SELECT "transaction", fee_native::text AS fee FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString() }]);
    const after = await fees(network);
    expect(after.ours.transactions - before.report.ours.transactions).toBe(1);
    expect(BigInt(after.ours.fee) - BigInt(before.report.ours.fee)).toBe(fee);
    expect(after.failed_transactions - before.report.failed_transactions).toBe(1);
    expect((await failedFeesMetric(network)) - before.metric, "the failed fees /metrics counted").toBe(Number(fee));
    expect(await payerSpent(network, p.account.address)).toBe(0n);
  });

  it("the instance dies after such a transaction was mined, before its fee was recorded (SIGKILL): presented again on another instance once the lease ran out, the payment is taken over and settles, and that transaction is recorded as the service's own fee, once", async () => {
    const p = await payer();
    const network = p.req.network;
    const before = await fees(network);
    const { tx, fee } = await diesBeforeRecording(p);
    await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 500));
    await settlesAnew(p, tx);
    expect(await q(`SELECT "transaction", fee_native::text AS fee FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString() }]);
    expect(await payerSpent(network, p.account.address)).toBe(0n);
    const after = await fees(network);
    expect(after.ours.transactions - before.ours.transactions).toBe(1);
    expect(BigInt(after.ours.fee) - BigInt(before.ours.fee)).toBe(fee);
    expect(after.failed_transactions - before.failed_transactions).toBe(1);

    // Presented once more: its answer again, nothing recorded twice.
    expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": p.header } })).status).toBe(200);
    expect((await fees(network)).ours).toEqual(after.ours);
  });

  it("the same death, and the payment is never presented again: once it has expired, a recovery pass marks it expired and records that transaction as the service's own fee, once", async () => {
    const { p, before, tx, fee } = await diedUnrecordedWithPasses();
    // Its authorization's time runs out (the row's copy of validBefore, moved back: the
    // recovery pass judges expiry from the row, with a minute's margin for block times).
    await q(`UPDATE $S.payments SET expires_at = now() - interval '5 minutes' WHERE reference = $1`, [p.reference]);
    expect(await rowOnceItIs(p.reference, "expired")).toEqual([{ status: "expired", fee_native: null }]);
    expect(await q(`SELECT "transaction", fee_native::text AS fee, reason FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString(), reason: "expired_unpaid" }]);
    await expectOursOnce(p, before, fee);
  });

  it("the same death, then the payer spends the authorization's nonce elsewhere: a recovery pass marks the payment failed and records that transaction as the service's own fee (void_unpaid), once, never against the payer's budget", async () => {
    const { p, before, tx, fee } = await diedUnrecordedWithPasses();
    // The payer spends the nonce it signed for us on a transfer of nothing to itself: the payment is void.
    const own = await signAuthorization(p.account, { to: p.account.address, value: 0n, nonce: p.signed.authorization.nonce as Hex });
    expect((await useAuthorization(chain.rpcUrl, p.account, own)).status).toBe("success");
    // Failed, without the fee on the payment (it is not the payer's), the fee recorded as ours.
    expect(await rowOnceItIs(p.reference, "failed")).toEqual([{ status: "failed", fee_native: null }]);
    expect(await q(`SELECT "transaction", fee_native::text AS fee, reason FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString(), reason: "void_unpaid" }]);
    await expectOursOnce(p, before, fee);
  });

  it("the same death and expiry while the node answers no receipt: a recovery pass that cannot read the transaction's fee leaves the row as it was (no verdict without the fee); once the node answers, a pass records the fee and marks it expired, once", async () => {
    const { p, before, tx, fee } = await diedUnrecordedWithPasses();
    proxy.state.failMethods = ["eth_getTransactionReceipt"];
    try {
      const failed = proxy.state.failedRequests;
      await q(`UPDATE $S.payments SET expires_at = now() - interval '5 minutes' WHERE reference = $1`, [p.reference]);
      // A pass found it expired and asked for its transaction's receipt, in vain.
      for (let i = 0; i < 60 && proxy.state.failedRequests === failed; i++) await new Promise((r) => setTimeout(r, 500));
      expect(proxy.state.failedRequests).toBeGreaterThan(failed);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await q(`SELECT status, tx_hash FROM $S.payments WHERE reference = $1`, [p.reference])).toEqual([{ status: "sent", tx_hash: tx }]);
      expect(await q(`SELECT 1 FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([]);
    } finally {
      proxy.state.failMethods = [];
    }
    expect(await rowOnceItIs(p.reference, "expired")).toEqual([{ status: "expired", fee_native: null }]);
    expect(await q(`SELECT "transaction", fee_native::text AS fee, reason FROM $S.service_fees WHERE "transaction" = $1`, [tx])).toEqual([{ transaction: tx, fee: fee.toString(), reason: "expired_unpaid" }]);
    await expectOursOnce(p, before, fee);
  });
});
