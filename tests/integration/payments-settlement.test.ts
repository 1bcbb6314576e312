/**
 * What the payer gets when settlement does not go cleanly, on a real local chain reached
 * through a JSON-RPC proxy that can lose the facilitator's transaction submission:
 * - the submission hangs after the transfer was mined → 503 settlement_pending; the same
 *   payment presented again is served (data or bundle) without paying twice, and once
 *   more gets that same answer again (status, body, receipt, settlement response);
 * - the submission never reaches the chain → 503 settlement_pending; presented again, the
 *   payment is settled normally, once;
 * - the bookkeeping after a settled transfer fails (PostgreSQL; a constraint added by the
 *   test makes the receipt insert fail) → the payer, who has paid, still gets the data;
 *   presented again it is in progress until the lease of that call ran out, then found
 *   paid on chain and answered again, charged once;
 * - a payment left pending by a process that died mid-call (a row the test writes) is
 *   taken over once its lease ran out (an earlier version's row without a lease: after
 *   10 minutes), and answered in progress with Retry-After before that;
 * - an RPC node that refuses JSON-RPC batches still gets the settlement, sent alone;
 * - an RPC node that does not answer while a payment is verified → 503 with Retry-After,
 *   never a 402: the payment was not judged, and the same payment is served later;
 * - a settlement behind a transaction of the key stuck on the wire (this node does not
 *   queue nonces) → 503 settlement_pending (`nonce_gap`), its nonce recorded unused and
 *   used by the next settlement: no nonce is burnt, nothing waits behind a gap;
 * - a settlement the node mines reverted and answers with an error (Hardhat automining;
 *   the payer's funds left while it was on the wire) → 402 naming the transaction, whose
 *   fee is recorded (ledger report, the payer's fee budget); the same with the node's
 *   answer lost → 503, then presented again → 402, the fee recorded all the same;
 * - a contract-wallet payer (ERC-1271, settled by the official x402 scheme) whose
 *   settlement fails on our side → 503 settlement_pending, never 402: the same payment is
 *   served once our side works again.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createWalletClient, http, parseAbi, publicActions, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { BASE_USDC, localBase, startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, paymentId, requirementFrom, signAuthorization, signWalletAuthorization, useAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";
import { expectSameAnswer, presented } from "../helpers/answers";
import { rpcProxy } from "../helpers/rpc-proxy";

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
/** Payment leases in these tests: short, so a lease that ran out is seen in seconds. */
const LEASE_SECONDS = 3;
const usePg = await hasPostgres();
if (!usePg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");

let chain: Chain;
let proxy: Awaited<ReturnType<typeof rpcProxy>>;
beforeAll(async () => {
  chain = await startChain();
  proxy = await rpcProxy(chain.rpcUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

const MODES = [{ name: "embedded", pgSchema: null as string | null }, ...(usePg ? [{ name: "PostgreSQL", pgSchema: `settle_${randomBytes(6).toString("hex")}` }] : [])];

for (const [i, mode] of MODES.entries()) {
  describe(`settlement outcomes — ${mode.name}`, () => {
    let fx: Fixture;
    const payer = () => chain.accounts[1 + i * 2]!;
    const payTo = () => chain.accounts[2 + i * 2]!;
    const requirement = async (path: string): Promise<Requirement> => requirementFrom(await fx.get(path)).accepts[0]!;
    const pay = async (path: string) => {
      const req = await requirement(path);
      return v2Header(req, await signAuthorization(payer(), { to: req.payTo as `0x${string}`, value: BigInt(req.amount) }));
    };
    const debug = async () => (await fx.json("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } })).body;
    /**
     * A fresh payer holding 1 USDC and some ether, its payment for /v1/fng, and how to move
     * its USDC away: the tests that make a payer's settlement fail on chain spend that
     * payer's fee budget, so they do not use the shared payer.
     */
    const failingPayer = async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      await chain.rpc("hardhat_setBalance", [account.address, "0x16345785D8A0000"]); // 0.1 ether
      await chain.mintUsdc(account.address, 1_000_000n);
      const req = await requirement("/v1/fng");
      const header = v2Header(req, await signAuthorization(account, { to: req.payTo as `0x${string}`, value: BigInt(req.amount) }));
      const wallet = createWalletClient({ account, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
      /** The payment presented; its funds leave while its settlement is held on the wire (the node's answer then lost when asked): the answer and the settlement's nonce. */
      const presentWhileFundsLeave = async (loseAnswer = false) => {
        const held = proxy.hold();
        proxy.state.loseNextAnswer = loseAnswer;
        const answer = fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        const nonce = await held;
        try {
          const away = await wallet.writeContract({ address: BASE_USDC, abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]), functionName: "transfer", args: [payTo().address, 1_000_000n] });
          await wallet.waitForTransactionReceipt({ hash: away });
        } finally {
          proxy.release();
        }
        return { res: await answer, nonce };
      };
      const fees = async () => (await debug()).fees?.[req.network] ?? { failed: "0", failed_transactions: 0 };
      return { header, fees, presentWhileFundsLeave };
    };

    beforeAll(async () => {
      await chain.mintUsdc(payer().address, 10_000_000n);
      fx = await startFixture({
        env: {
          PAY_TO_ADDRESS: payTo().address,
          FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
          SETTLEMENT_RPC_URL: proxy.url,
          PAYMENT_TIMEOUT_MS: "1500",
          PAYMENT_LEASE_SECONDS: String(LEASE_SECONDS),
          ADMIN_TOKEN: ADMIN,
          ...(mode.pgSchema ? { DATABASE_URL: `${POSTGRES_URL}?schema=${mode.pgSchema}` } : {}),
        },
      });
    }, 180_000);
    afterAll(async () => fx?.close());

    it("a submission lost after the transfer was mined: 503 settlement_pending, then the same payment is served once", async () => {
      const header = await pay("/v1/fng");
      const before = await chain.usdcBalance(payer().address);
      proxy.state.fault = "hang-after-send";
      const first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(first.status).toBe(503);
      expect(first.headers.get("retry-after")).toBe("5");
      const err = (await first.json()).error;
      expect(err.code).toBe("settlement_pending");
      expect(err.message).toContain(err.payment_id);
      expect(err.message).not.toMatch(/nothing was charged/i);
      // The transfer did happen on chain, exactly once.
      const price = before - (await chain.usdcBalance(payer().address));
      expect(price).toBe(10_000n);

      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status).toBe(200);
      expect((await again.clone().json()).index).toBeTypeOf("number");
      const receipt = decodeB64Json<{ success: boolean; transaction: `0x${string}` }>(again.headers.get("payment-response"));
      expect(receipt.success).toBe(true);
      expect((await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status).toBe("success");
      expect(again.headers.get("x-receipt-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n); // not charged twice

      // Presented once more: the answer it got, as it was, and nothing charged again.
      expectSameAnswer(await presented(again.clone()), await presented(await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } })));
      expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
    });

    it("an RPC node that refuses batches: the settlement is sent alone and settles once", async () => {
      const header = await pay("/v1/fng");
      const before = await chain.usdcBalance(payer().address);
      proxy.state.refuseBatches = true;
      try {
        const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        expect(res.status, await res.clone().text()).toBe(200);
        expect(proxy.state.refusedBatches).toBeGreaterThan(0);
      } finally {
        proxy.state.refuseBatches = false;
      }
      expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
    });

    it("a submission that never reached the chain: 503, nothing moved; presented again it settles once", async () => {
      const header = await pay("/v1/fng");
      const before = await chain.usdcBalance(payer().address);
      const sends = proxy.state.sends;
      proxy.state.fault = "drop-send";
      const first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(first.status).toBe(503);
      expect((await first.json()).error.code).toBe("settlement_pending");
      expect(await chain.usdcBalance(payer().address)).toBe(before);

      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status).toBe(200);
      expect(proxy.state.sends).toBe(sends + 2);
      expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
    });

    it("a settlement the node mines reverted and answers with an error (automine): 402 naming the transaction, and its fee is recorded against the payer", async () => {
      const { fees, presentWhileFundsLeave } = await failingPayer();
      const before = await fees();
      // The payer's funds leave while the settlement is on the wire (verified, not yet mined):
      // the node runs the transfer as it takes it, it reverts, and the key pays its gas.
      const { res } = await presentWhileFundsLeave();
      expect(res.status, await res.clone().text()).toBe(402);
      const body = await res.json();
      expect(body.code).toBe("settlement_failed");
      const tx = /Transaction (0x[0-9a-f]{64}) was sent and reverted/.exec(String(body.error))?.[1] as Hex | undefined;
      expect(tx, JSON.stringify(body)).toBeDefined();
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx! });
      expect(receipt.status).toBe("reverted");
      const after = await fees();
      expect(after.failed_transactions).toBe(before.failed_transactions + 1);
      expect(BigInt(after.failed) - BigInt(before.failed)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    });

    it("the same, with the node's answer lost (503 settlement_pending): presented again, the payment is refused and the reverted transaction's fee is recorded against the payer", async () => {
      const { header, fees, presentWhileFundsLeave } = await failingPayer();
      const before = await fees();
      const key = chain.accounts[0]!.address;
      const { res: first, nonce } = await presentWhileFundsLeave(true);
      expect(first.status, await first.clone().text()).toBe(503);
      expect((await first.json()).error.code).toBe("settlement_pending");
      // The settlement was mined, reverted.
      const head = await chain.publicClient.getBlock({ includeTransactions: true });
      const tx = head.transactions.find((t) => t.from.toLowerCase() === key.toLowerCase() && t.nonce === nonce);
      expect(tx).toBeDefined();
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx!.hash });
      expect(receipt.status).toBe("reverted");

      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status, await again.clone().text()).toBe(402);
      const after = await fees();
      expect(after.failed_transactions).toBe(before.failed_transactions + 1);
      expect(BigInt(after.failed) - BigInt(before.failed)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    });

    it("the RPC node does not answer while the payment is verified: 503 with Retry-After (not 402), nothing charged; the same payment is served once it answers", async () => {
      const header = await pay("/v1/fng");
      const before = await chain.usdcBalance(payer().address);
      proxy.state.down = true;
      let first: Response;
      try {
        first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      } finally {
        proxy.state.down = false;
      }
      expect(first.status, await first.clone().text()).toBe(503);
      expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);
      const err = (await first.json()).error;
      expect(err.code).toBe("service_unavailable");
      expect(err.message).toMatch(/chain could not be reached to verify the payment/);
      expect(err.message).toMatch(/nothing was charged/);
      expect(await chain.usdcBalance(payer().address)).toBe(before);

      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status, await again.clone().text()).toBe(200);
      expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
    });

    it("a settlement behind a transaction of the key stuck on the wire: 503 settlement_pending (nonce_gap); its nonce goes to the next settlement, none is burnt", async () => {
      const [h1, h2, h3] = await Promise.all([pay("/v1/fng"), pay("/v1/fng"), pay("/v1/fng")]);
      const key = chain.accounts[0]!.address;
      const start = await chain.publicClient.getTransactionCount({ address: key, blockTag: "latest" });
      const before = await chain.usdcBalance(payer().address);
      const paid = (h: string) => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": h } });
      const conflicts = proxy.state.nonceRefusals;
      const held = proxy.hold();
      const first = paid(h1); // its transaction waits on the wire
      expect(await held).toBe(start);
      const second = await paid(h2);
      expect(second.status, await second.clone().text()).toBe(503);
      expect((await second.json()).error).toMatchObject({ code: "settlement_pending", fault: "service", reason: "nonce_gap" });
      proxy.release();
      // The first gave up waiting for its answer (503, outcome unknown) or got it; either
      // way the same payment is served, once.
      let r1 = await first;
      if (r1.status === 503) r1 = await paid(h1);
      expect(r1.status, await r1.clone().text()).toBe(200);
      const r2 = await paid(h2);
      expect(r2.status, await r2.clone().text()).toBe(200);
      const r3 = await paid(h3);
      expect(r3.status, await r3.clone().text()).toBe(200);
      // Three transfers on three consecutive nonces: nothing burnt, no filler needed; and
      // the held transaction, delivered late, found its nonce still its own.
      expect(await chain.publicClient.getTransactionCount({ address: key, blockTag: "latest" })).toBe(start + 3);
      expect(proxy.state.nonceRefusals).toBe(conflicts);
      expect(await chain.usdcBalance(payer().address)).toBe(before - 30_000n);
    });

    it("a contract-wallet payer (ERC-1271, the official x402 path) whose settlement fails on our side (the key cannot pay gas): 503 settlement_pending fault=service, never 402; served once funds are back", async () => {
      const owner = payer();
      const wallet = await chain.deployWallet(owner.address, `0x${randomBytes(32).toString("hex")}`);
      await chain.mintUsdc(wallet, 1_000_000n);
      const req = await requirement("/v1/fng");
      const header = v2Header(req, await signWalletAuthorization(owner, wallet, { to: req.payTo as `0x${string}`, value: BigInt(req.amount) }));
      const key = chain.accounts[0]!.address;
      const funds = await chain.publicClient.getBalance({ address: key });
      await chain.rpc("hardhat_setBalance", [key, "0x0"]);
      let first: Response;
      try {
        first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      } finally {
        await chain.rpc("hardhat_setBalance", [key, `0x${funds.toString(16)}`]);
      }
      expect(first.status, await first.clone().text()).toBe(503);
      expect((await first.json()).error).toMatchObject({ code: "settlement_pending", fault: "service" });
      expect(await chain.usdcBalance(wallet)).toBe(1_000_000n);

      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status, await again.clone().text()).toBe(200);
      expect(await chain.usdcBalance(wallet)).toBe(1_000_000n - 10_000n);
      expectSameAnswer(await presented(again.clone()), await presented(await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } })));
      expect(await chain.usdcBalance(wallet)).toBe(1_000_000n - 10_000n);
    });

    it("a payer that spends its authorization's nonce on a transfer to itself before our settlement lands is not served: 402 settlement_failed, no data, the payment refused for good", async () => {
      const req = await requirement("/v1/fng");
      const nonce = `0x${randomBytes(32).toString("hex")}` as Hex;
      const ours = await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount), nonce });
      // Same payer, same nonce, paying itself nothing: USDC keys authorizations by (payer, nonce) only.
      const own = await signAuthorization(payer(), { to: payer().address, value: 0n, nonce });
      const header = v2Header(req, ours);
      const before = { payer: await chain.usdcBalance(payer().address), payTo: await chain.usdcBalance(payTo().address) };
      const held = proxy.hold();
      const call = fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      await held; // verified and the product ran; our transfer waits on the wire
      expect((await useAuthorization(chain.rpcUrl, chain.accounts[7]!, own)).status).toBe("success");
      proxy.release();
      let res = await call;
      // Under load our send may have given up waiting for its answer (503, outcome
      // unknown): presented again, the payment is judged from the chain, as then.
      if (res.status === 503) res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(res.status, await res.clone().text()).toBe(402);
      const body = await res.json();
      expect(["settlement_failed", "payment_invalid"]).toContain(body.code);
      expect(JSON.stringify(body)).not.toContain("fear_greed");
      expect(await chain.usdcBalance(payTo().address)).toBe(before.payTo);
      expect(await chain.usdcBalance(payer().address)).toBe(before.payer);
      const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status).toBe(402);
      expect(await chain.usdcBalance(payTo().address)).toBe(before.payTo);
    });

    it("a bundle whose settlement outcome was lost is sold on the retry, exactly once", async () => {
      const header = await pay("/v1/bundle");
      const bundlesBefore = (await debug()).bundles.count as number;
      const before = await chain.usdcBalance(payer().address);
      proxy.state.fault = "hang-after-send";
      const first = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(first.status).toBe(503);
      const firstText = await first.text();
      expect(firstText).not.toContain("echo_bt_"); // the token is not shown
      expect((await debug()).bundles.count).toBe(bundlesBefore); // minted, then revoked: not delivered

      const again = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status, `${await again.clone().text()}\n${fx.svc.logs().slice(-4000)}`).toBe(200);
      const token = (await again.json()).bundle_token as string;
      expect((await debug()).bundles.count).toBe(bundlesBefore + 1);
      expect(await chain.usdcBalance(payer().address)).toBe(before - 50_000n);
      const use = await fx.get("/v1/fng", { headers: { "X-Bundle-Token": token } });
      expect(use.status).toBe(200);
    });

    it("a bundle bought with a payment identifier, presented again: the same bundle and token; without one the token is not given again (409); nothing charged again", async () => {
      const req = await requirement("/v1/bundle");
      const signed = await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount) });
      const header = v2Header(req, signed, undefined, paymentId());
      const before = await chain.usdcBalance(payer().address);
      const first = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(first.status, await first.clone().text()).toBe(200);
      const bought = await first.clone().json();
      // The answer was lost (say): the same payment again gives the same bundle and token.
      const again = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(await again.clone().json()).toEqual(bought);
      expect(again.headers.get("x-receipt-id")).toBe(first.headers.get("x-receipt-id"));
      expect((await fx.get("/v1/fng", { headers: { "X-Bundle-Token": bought.bundle_token } })).status).toBe(200);
      expect(await chain.usdcBalance(payer().address)).toBe(before - BigInt(req.amount));
      // The database keeps no usable token: the answer's token field is sealed.
      if (mode.pgSchema) {
        const db = new pg.Client({ connectionString: POSTGRES_URL });
        await db.connect();
        try {
          const { rows } = await db.query(`SELECT p.response FROM "${mode.pgSchema}".payments p JOIN "${mode.pgSchema}".bundles b ON b.payment_id = p.id WHERE b.id = $1`, [bought.bundle_id]);
          expect(rows[0].response).not.toContain(bought.bundle_token);
          expect(JSON.parse(rows[0].response).value.bundle_token).toHaveProperty("$sealed");
        } finally {
          await db.end();
        }
      }

      // Without an identifier: anyone can rebuild a settled payment from the chain, so the token is withheld.
      const bare = v2Header(req, await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount) }));
      const once = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": bare } });
      expect(once.status).toBe(200);
      const withheld = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": bare } });
      expect(withheld.status).toBe(409);
      const err = (await withheld.json()).error;
      expect(err).toMatchObject({ code: "payment_conflict", receipt_id: once.headers.get("x-receipt-id") });
      expect(JSON.stringify(err)).not.toContain("echo_bt_");
      expect(await chain.usdcBalance(payer().address)).toBe(before - 2n * BigInt(req.amount));
    });

    it("the payment-identifier rules: same id with another payment, or the same payment with another id → 409; a malformed id → 400; nothing charged", async () => {
      const req = await requirement("/v1/fng");
      const id = paymentId();
      const one = await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount) });
      const before = await chain.usdcBalance(payer().address);
      expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, one, undefined, id) } })).status).toBe(200);
      const other = await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount) });
      const sameId = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, other, undefined, id) } });
      expect(sameId.status).toBe(409);
      expect((await sameId.json()).error.code).toBe("payment_conflict");
      const otherId = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, one, undefined, paymentId()) } });
      expect(otherId.status).toBe(409);
      const malformed = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, other, undefined, "short") } });
      expect(malformed.status).toBe(400);
      expect((await malformed.json()).error.code).toBe("bad_request");
      expect(await chain.usdcBalance(payer().address)).toBe(before - BigInt(req.amount));
      // The refused payment was not used: with an id of its own it pays.
      expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, other, undefined, paymentId()) } })).status).toBe(200);
    });

    it("two payments the official client signs from one requirement carry its suggested id: both served, each presented again gets its own answer", async () => {
      const first402 = await fx.get("/v1/fng");
      const required = JSON.parse(Buffer.from(first402.headers.get("payment-required")!, "base64").toString());
      const suggestedId = required.extensions["payment-identifier"].info.id as string;
      expect(suggestedId).toMatch(/^srv_[0-9a-f]{32}$/);
      const wallet = createWalletClient({ account: payer(), chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: toClientEvmSigner(payer(), wallet as never) });
      const http402 = new x402HTTPClient(client);
      const payloads = [await client.createPaymentPayload(required), await client.createPaymentPayload(required)];
      for (const p of payloads) expect((p.extensions?.["payment-identifier"] as { info: { id: string } }).info.id).toBe(suggestedId);
      const before = await chain.usdcBalance(payer().address);
      const answers = [];
      for (const p of payloads) {
        const res = await fx.get("/v1/fng", { headers: http402.encodePaymentSignatureHeader(p) });
        expect(res.status, await res.clone().text()).toBe(200);
        answers.push(await presented(res));
      }
      expect(answers[0]!.headers.get("x-receipt-id")).not.toBe(answers[1]!.headers.get("x-receipt-id"));
      for (const [i, p] of payloads.entries()) expectSameAnswer(answers[i]!, await presented(await fx.get("/v1/fng", { headers: http402.encodePaymentSignatureHeader(p) })));
      expect(await chain.usdcBalance(payer().address)).toBe(before - 2n * BigInt(required.accepts[0].amount));
    });

    it("the recovery a client does (docs/paying.md): the same payment presented again after a 503 or a lost answer gets the data, charged once", async () => {
      // As the docs write it, with the official client's pieces.
      const wallet = createWalletClient({ account: payer(), chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: toClientEvmSigner(payer(), wallet as never) });
      const httpClient = new x402HTTPClient(client);
      const url = `${fx.svc.url}/v1/fng`;
      const before = await chain.usdcBalance(payer().address);
      proxy.state.fault = "hang-after-send"; // the first answer is 503 settlement_pending

      const first = await fetch(url); // 402
      const required = httpClient.getPaymentRequiredResponse((name) => first.headers.get(name), await first.json());
      const headers = httpClient.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
      let res = await fetch(url, { headers }).catch(() => null);
      const seen = [res?.status];
      // A lost answer (network error) or 503 settlement_pending: the same payment again.
      for (let i = 0; i < 20 && (!res || res.status === 503); i++) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res?.headers.get("Retry-After") ?? 1)));
        res = await fetch(url, { headers }).catch(() => null);
        seen.push(res?.status);
      }
      expect(seen[0]).toBe(503);
      expect(res!.status).toBe(200);
      expect((await res!.json()).index).toBeTypeOf("number");
      expect(await chain.usdcBalance(payer().address)).toBe(before - BigInt(required.accepts[0]!.amount));
    });

    it.runIf(mode.pgSchema)("a settled payment whose bookkeeping fails still delivers the data", async () => {
      const db = new pg.Client({ connectionString: POSTGRES_URL });
      await db.connect();
      try {
        await db.query(`ALTER TABLE "${mode.pgSchema}".access_log ADD CONSTRAINT test_refuse_fng CHECK (product <> 'fng') NOT VALID`);
        const header = await pay("/v1/fng");
        const before = await chain.usdcBalance(payer().address);
        const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        expect(res.status).toBe(200);
        expect((await res.json()).index).toBeTypeOf("number");
        expect(decodeB64Json<{ success: boolean }>(res.headers.get("payment-response")).success).toBe(true);
        expect(res.headers.get("x-receipt-id")).toBeNull(); // no receipt row could be written
        expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
        // No answer could be kept: presented again while the lease of the call that served
        // it runs, it is in progress; once the lease ran out, it is taken over, found paid
        // on chain and answered again, charged once.
        const replay = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        expect(replay.status).toBe(503);
        expect((await replay.json()).error).toMatchObject({ code: "settlement_pending", reason: "in_progress" });
        expect(Number(replay.headers.get("retry-after"))).toBeLessThanOrEqual(LEASE_SECONDS);
        await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 500));
        const later = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        expect(later.status, await later.clone().text()).toBe(200);
        expect((await later.json()).index).toBeTypeOf("number");
        expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
      } finally {
        await db.query(`ALTER TABLE "${mode.pgSchema}".access_log DROP CONSTRAINT IF EXISTS test_refuse_fng`).catch(() => undefined);
        await db.end();
      }
    });

    it.runIf(mode.pgSchema)("a payment left pending by a dead process is taken over once its lease ran out, answered in progress before; a row of an earlier version without a lease, after 10 minutes", async () => {
      const db = new pg.Client({ connectionString: POSTGRES_URL });
      await db.connect();
      try {
        const req = await requirement("/v1/fng");
        /** A pending row as a holder that died would leave it: its lease ending `leaseIn` seconds from now (null: an earlier version's row, no lease), last updated `minutesAgo`; `holder` the holder's id. */
        const leave = async (leaseIn: number | null, minutesAgo = 0, holder = "dead-holder") => {
          const signed = await signAuthorization(payer(), { to: req.payTo as `0x${string}`, value: BigInt(req.amount) });
          await db.query(
            `INSERT INTO "${mode.pgSchema}".payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, created_at, updated_at, holder, lease_until)
             VALUES (gen_random_uuid()::text, 'exact', $1, $2, $3, $4, $5, $6, 'fng', 'http', 'pending', now() - make_interval(mins => $7), now() - make_interval(mins => $7),
                     CASE WHEN $8::float8 IS NULL THEN NULL ELSE $9 END, now() + make_interval(secs => $8::float8))`,
            [req.network, `${payer().address.toLowerCase()}:${signed.authorization.nonce.toLowerCase()}`, payer().address.toLowerCase(), req.amount, req.asset, req.payTo, minutesAgo, leaseIn, holder],
          );
          return v2Header(req, signed);
        };
        const held = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": await leave(30) } });
        expect(held.status).toBe(503);
        expect((await held.json()).error).toMatchObject({ code: "settlement_pending", reason: "in_progress" });
        expect(Number(held.headers.get("retry-after"))).toBeGreaterThan(25);
        const legacy = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": await leave(null, 2) } });
        expect(legacy.status).toBe(503);
        expect(Number(legacy.headers.get("retry-after"))).toBeGreaterThan(7 * 60);

        // Ran out, legacy and stale, and one a recovery pass of another instance is looking up
        // on the chain right now (its lease live): the payer holding the signed payment takes
        // it over at once, never told "in progress" for the pass's sake.
        for (const header of [await leave(-1), await leave(null, 20), await leave(30, 0, "recovery:pass-elsewhere")]) {
          const before = await chain.usdcBalance(payer().address);
          const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
          expect(res.status, await res.clone().text()).toBe(200);
          expect(await chain.usdcBalance(payer().address)).toBe(before - 10_000n);
          const { rows } = await db.query(`SELECT count(*)::int AS n, min(status) AS status FROM "${mode.pgSchema}".payments WHERE reference = $1`, [
            `${payer().address.toLowerCase()}:${JSON.parse(Buffer.from(header, "base64").toString()).payload.authorization.nonce.toLowerCase()}`,
          ]);
          expect(rows[0]).toEqual({ n: 1, status: "settled" });
        }
      } finally {
        await db.end();
      }
    });
  });
}
