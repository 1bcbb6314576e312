/**
 * Native XLM with a memo, in both storage modes (embedded PGlite; PostgreSQL + Redis):
 * the 402 offers an XLM quote whose hash is the memo; a payment signed with
 * @stellar/stellar-sdk is verified offline, locked by its inner transaction's hash, and
 * submitted to (simulated) Horizon only after the handler succeeded. When Horizon's
 * answer to the submission is lost, the transaction is looked up by hash: applied means
 * the data is delivered with its receipt, never applied means nothing was charged, and
 * anything else is reported as unknown with the payment id.
 */
import { randomBytes } from "node:crypto";
import { expectOneAnswer, expectSameAnswer, presented } from "../helpers/answers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Account, Asset, FeeBumpTransaction, Keypair, Memo, MuxedAccount, Networks, Operation, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";
import { stellarLedger } from "@/lib/upstream-sim/providers/horizon-submit";
import { hex } from "@/lib/payments/xlm/bytes";

interface XlmOffer {
  destination: string;
  amount: string;
  amount_stroops: string;
  memo: string;
  quote: string;
  expires_at: string;
  network: string;
  network_passphrase: string;
  rate_usd_per_xlm: number;
}

const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const MODES = [
  { name: "embedded (PGlite, in-process limits)", storage: "pglite", env: () => ({}) },
  ...(pg && redis
    ? [
        {
          name: "production (PostgreSQL + Redis)",
          storage: "postgres",
          env: () => ({ DATABASE_URL: `${POSTGRES_URL}?schema=xlm_${randomBytes(6).toString("hex")}`, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}` }),
        },
      ]
    : []),
];

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
// Short enough to keep the lost-answer tests quick, long enough for a ledger (5.5 s in
// the simulator) to close past a transaction's maxTime within one polling budget.
const PAYMENT_TIMEOUT_MS = 10_000;
const PAYER_SECRET = Keypair.random().secret();
let seq = 1000n;

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface SignOpts {
  payer?: Keypair;
  amount?: string;
  destination?: string;
  memo?: string;
  passphrase?: string;
  minTime?: number;
  maxTime?: number;
  sequence?: string;
  /** Send from a muxed (M…) address of the payer. */
  muxed?: boolean;
  sign?: boolean;
}

function signTx(o: XlmOffer, opts: SignOpts = {}): Transaction {
  const payer = opts.payer ?? Keypair.fromSecret(PAYER_SECRET);
  const plain = new Account(payer.publicKey(), opts.sequence ?? String(seq++));
  const account = opts.muxed ? new MuxedAccount(plain, "7") : plain;
  const tx = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: opts.passphrase ?? o.network_passphrase,
    timebounds: { minTime: opts.minTime ?? 0, maxTime: opts.maxTime ?? Math.floor(Date.parse(o.expires_at) / 1000) },
  })
    .addOperation(Operation.payment({ destination: opts.destination ?? o.destination, asset: Asset.native(), amount: opts.amount ?? o.amount }))
    .addMemo(Memo.hash(opts.memo ?? o.memo))
    .build();
  if (opts.sign !== false) tx.sign(payer);
  return tx;
}

const signPayment = (o: XlmOffer, opts: SignOpts = {}): string => signTx(o, opts).toEnvelope().toXDR("base64");

/** The same signed payment wrapped in a new fee bump paid (and signed) by a fresh account. */
function feeBump(inner: Transaction, passphrase: string): FeeBumpTransaction {
  const sponsor = Keypair.random();
  const fb = TransactionBuilder.buildFeeBumpTransaction(sponsor, "200", inner, passphrase);
  fb.sign(sponsor);
  return fb;
}

function header(o: XlmOffer, envelope: string, quote = o.quote): string {
  return Buffer.from(JSON.stringify({ x402Version: 1, scheme: "xlm-memo", network: o.network, payload: { quote, envelope_xdr: envelope } })).toString("base64");
}

/** Runs `call` while the simulated Horizon answers with `fault`, clearing it afterwards. */
async function duringHorizonFault(fx: Fixture, fault: Parameters<Fixture["sim"]["setFault"]>[1], call: () => Promise<Response>): Promise<Response> {
  fx.sim.setFault("horizon", fault);
  try {
    return await call();
  } finally {
    fx.sim.clearFaults();
  }
}

function receiptOf(res: Response): { success: boolean; transaction: string; network: string } | null {
  const h = res.headers.get("payment-response");
  return h ? JSON.parse(Buffer.from(h, "base64").toString()) : null;
}

for (const mode of MODES) {
  describe(`native XLM payments with a memo — ${mode.name}`, () => {
    const payee = Keypair.random();
    let fx: Fixture;
    const offer = async (path = "/v1/fng"): Promise<XlmOffer> => {
      const res = await fx.json(path);
      expect(res.status).toBe(402);
      expect(res.body.xlm).toBeTruthy();
      return res.body.xlm;
    };
    const paid = () => stellarLedger(fx.sim.world).payments.filter((p) => p.to === payee.publicKey());
    /** POSTs to Horizon's submission endpoint (GET lookups have their own keys). */
    const submissions = () => fx.sim.counts()["horizon /transactions"] ?? 0;
    /** Requests of /v1/fng's handler to its upstream (caches are off): did the handler run? */
    const handlerRuns = () => fx.sim.total("alternative");
    const ledgerView = async () => (await fx.json("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } })).body;

    beforeAll(async () => {
      fx = await startFixture({
        env: { ...mode.env(), STELLAR_PAY_TO_ADDRESS: payee.publicKey(), CACHE_DISABLED: "1", PAYMENT_TIMEOUT_MS: String(PAYMENT_TIMEOUT_MS), ADMIN_TOKEN: ADMIN },
      });
    });
    afterAll(async () => fx?.close());

    it("runs on the storage of its mode", async () => {
      expect((await ledgerView()).storage.mode).toBe(mode.storage);
    });

    it("offers an XLM quote: destination, amount from the USD price at the XLM rate, memo = SHA-256(quote)", async () => {
      const o = await offer();
      expect(o.destination).toBe(payee.publicKey());
      expect(o.network_passphrase).toBe(Networks.PUBLIC);
      const { createHash } = await import("node:crypto");
      expect(o.memo).toBe(createHash("sha256").update(o.quote).digest("hex"));
      // $0.01 at the quoted rate, rounded up to the stroop.
      expect(BigInt(o.amount_stroops)).toBe(BigInt(Math.ceil((0.01 / o.rate_usd_per_xlm) * 1e7 - 1e-6)));
      expect(o.amount).toMatch(/^\d+\.\d{7}$/);
      // Default validity: 10 minutes.
      expect(Date.parse(o.expires_at) / 1000 - nowSeconds()).toBeGreaterThan(590);
      const live = await fetch(`${fx.sim.url}/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd`).then((r) => r.json());
      expect(Math.abs(o.rate_usd_per_xlm / live.stellar.usd - 1)).toBeLessThan(0.01);
    });

    it("accepts a correct payment, submits it after success; the same transaction again gets that answer again, submitted once", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const res = await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } });
      expect(res.status, await res.clone().text()).toBe(200);
      const original = await presented(res.clone());
      const receipt = receiptOf(res)!;
      expect(receipt).toMatchObject({ success: true, network: "stellar:pubnet" });
      const applied = paid();
      expect(applied).toHaveLength(1);
      expect(applied[0]).toMatchObject({ amount: o.amount, asset: "native", memo: o.memo, hash: receipt.transaction });
      expectSameAnswer(original, await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } })));
      expect(paid()).toHaveLength(1);
    });

    it("refuses mismatched payments with a clear reason, runs no handler and submits nothing", async () => {
      const o = await offer();
      const other = await offer("/v1/quote");
      const before = { paid: paid().length, submissions: submissions(), runs: handlerRuns() };
      const cases: Array<[string, string, RegExp]> = [
        ["amount", header(o, signPayment(o, { amount: (Number(o.amount) + 0.0000001).toFixed(7) })), /exactly/],
        ["destination", header(o, signPayment(o, { destination: Keypair.random().publicKey() })), /must go to/],
        ["memo", header(o, signPayment(o, { memo: "00".repeat(32) })), /MEMO_HASH/],
        ["unsigned", header(o, signPayment(o, { sign: false })), /not signed/],
        ["other network", header(o, signPayment(o, { passphrase: Networks.TESTNET })), /not signed/],
        ["time bounds outlive the quote", header(o, signPayment(o, { maxTime: Math.floor(Date.parse(o.expires_at) / 1000) + 3600 })), /outlive/],
        ["time bounds start in the future (minTime)", header(o, signPayment(o, { minTime: nowSeconds() + 120 })), /not valid yet \(minTime in the future\)/],
        ["time bounds already passed", header(o, signPayment(o, { maxTime: nowSeconds() - 1 })), /time bounds have passed/],
        ["muxed paying account", header(o, signPayment(o, { muxed: true })), /plain Stellar account/],
        ["quote for another product", header(other, signPayment(other), other.quote), /another product/],
        ["forged quote", header(o, signPayment(o), o.quote.replace(/.$/, (c) => (c === "A" ? "B" : "A"))), /not issued by this service/],
      ];
      for (const [name, h, reason] of cases) {
        const res = await fx.json("/v1/fng", { headers: { "X-PAYMENT": h } });
        expect(res.status, name).toBe(402);
        expect(res.body.code, name).toBe("payment_invalid");
        expect(res.body.error, name).toMatch(reason);
      }
      expect({ paid: paid().length, submissions: submissions(), runs: handlerRuns() }).toEqual(before);
    });

    it("submits nothing when the upstream fails, and the same payment works afterwards", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const before = paid().length;
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        expect((await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } })).status).toBe(503);
      } finally {
        fx.sim.clearFaults();
      }
      expect(paid().length).toBe(before);
      expect((await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } })).status).toBe(200);
      expect(paid().length).toBe(before + 1);
    });

    it("the same signed payment re-wrapped in a fresh fee bump is the same payment: its answer again, no handler run, nothing submitted", async () => {
      const o = await offer();
      const inner = signTx(o);
      const first = await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": header(o, inner.toEnvelope().toXDR("base64")) } }));
      expect(first.status, first.text).toBe(200);

      const before = { paid: paid().length, submissions: submissions(), runs: handlerRuns() };
      const wrapped = feeBump(inner, o.network_passphrase);
      expect(hex(wrapped.hash())).not.toBe(hex(inner.hash())); // a new envelope hash…
      // …but the same payment.
      expectSameAnswer(first, await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": header(o, wrapped.toEnvelope().toXDR("base64")) } })));
      expect({ paid: paid().length, submissions: submissions(), runs: handlerRuns() }).toEqual(before);
    });

    it("accepts a payment inside a fee bump (receipt = the fee bump's hash); any other wrapping of it is the same payment and gets that answer again", async () => {
      const o = await offer();
      const inner = signTx(o);
      const a = feeBump(inner, o.network_passphrase);
      const res = await fx.get("/v1/fng", { headers: { "X-PAYMENT": header(o, a.toEnvelope().toXDR("base64")) } });
      expect(res.status, await res.clone().text()).toBe(200);
      const first = await presented(res.clone());
      expect(receiptOf(res)!.transaction).toBe(hex(a.hash()));
      expect(paid().at(-1)).toMatchObject({ hash: hex(a.hash()), memo: o.memo });

      const before = { paid: paid().length, submissions: submissions(), runs: handlerRuns() };
      for (const envelope of [feeBump(inner, o.network_passphrase), inner]) {
        expectSameAnswer(first, await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": header(o, envelope.toEnvelope().toXDR("base64")) } })));
      }
      expect({ paid: paid().length, submissions: submissions(), runs: handlerRuns() }).toEqual(before);
    });

    it("20 concurrent copies of one payment: served once and submitted once; the others get that answer or are told it is in progress", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const before = { paid: paid().length, submissions: submissions() };
      const results = await Promise.all(Array.from({ length: 20 }, () => fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }).then(presented)));
      expectOneAnswer(results);
      expect(submissions() - before.submissions).toBe(1);
      expect(paid().length - before.paid).toBe(1);
    });

    it("Horizon applies the transaction but answers 504: the service looks it up, delivers the data and the receipt", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const before = paid().length;
      const res = await duringHorizonFault(fx, { mode: "error_after_apply", status: 504, pathPrefix: "/transactions", method: "POST" }, () => fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
      expect(res.status, await res.clone().text()).toBe(200);
      const body = await res.json();
      expect(body.index).toBeGreaterThanOrEqual(0);
      expect(res.headers.get("x-receipt-id")).toBeTruthy();
      const receipt = receiptOf(res)!;
      expect(receipt).toMatchObject({ success: true, network: "stellar:pubnet" });
      expect(paid()).toHaveLength(before + 1);
      expect(paid().at(-1)).toMatchObject({ hash: receipt.transaction, memo: o.memo });
      const again = await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
      expect(again.status).toBe(200);
      expect(JSON.parse(again.text)).toEqual(body);
      expect(again.headers.get("x-receipt-id")).toBe(res.headers.get("x-receipt-id"));
      expect(paid()).toHaveLength(before + 1);
    });

    it("Horizon applies the transaction but never answers (timeout): the lookup still delivers the data and the receipt", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const before = paid().length;
      const res = await duringHorizonFault(fx, { mode: "hang_after_apply", pathPrefix: "/transactions", method: "POST" }, () => fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
      expect(res.status, await res.clone().text()).toBe(200);
      expect(receiptOf(res)).toMatchObject({ success: true, transaction: paid().at(-1)!.hash });
      expect(paid()).toHaveLength(before + 1);
    });

    it("Horizon answers 504 and never applies it: once a ledger closes past maxTime the call fails, nothing charged", async () => {
      const o = await offer();
      const h = header(o, signPayment(o, { maxTime: nowSeconds() + 2 }));
      const charged = (await ledgerView()).charged_calls.xlm;
      const before = paid().length;
      const res = await duringHorizonFault(fx, { mode: "error", status: 504, pathPrefix: "/transactions", method: "POST" }, () => fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
      const body = await res.json();
      expect(res.status).toBe(402);
      expect(body.code).toBe("settlement_failed");
      expect(body.error).toMatch(/HTTP 504/);
      expect(body.error).toMatch(/can never be applied: nothing was charged/);
      expect(receiptOf(res)).toBeNull();
      expect(paid()).toHaveLength(before);
      expect((await ledgerView()).charged_calls.xlm).toBe(charged);
    });

    it("Horizon refuses the transaction (tx_bad_seq): the call fails with the result code, nothing charged", async () => {
      const o = await offer();
      const h = header(o, signPayment(o, { sequence: "1" }));
      const charged = (await ledgerView()).charged_calls.xlm;
      const before = paid().length;
      const res = await fx.json("/v1/fng", { headers: { "X-PAYMENT": h } });
      expect(res.status).toBe(402);
      expect(res.body.code).toBe("settlement_failed");
      expect(res.body.error).toMatch(/tx_bad_seq.*not applied and nothing was charged/);
      expect(paid()).toHaveLength(before);
      expect((await ledgerView()).charged_calls.xlm).toBe(charged);
    });

    it("when neither the submission nor the lookup answers: 503 settlement_pending with the payment id; the same payment later is served once", async () => {
      const o = await offer();
      const h = header(o, signPayment(o));
      const charged = (await ledgerView()).charged_calls.xlm;
      const applied = paid().length;
      const res = await duringHorizonFault(fx, { mode: "error", status: 504, pathPrefix: "/transactions" }, () => fx.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
      const body = await res.json();
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(body.error.code).toBe("settlement_pending");
      expect(body.error.message).toMatch(/outcome of the XLM payment is unknown/);
      expect(body.error.message).toContain(`Payment id ${body.error.payment_id}`);
      expect(body.error.message).not.toMatch(/nothing was charged/i);
      expect(receiptOf(res)).toBeNull();
      expect((await ledgerView()).charged_calls.xlm).toBe(charged);
      // Presented again once Horizon answers: resolved on the ledger, served and charged once.
      const again = await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } });
      expect(again.status).toBe(200);
      expect(receiptOf(again)).not.toBeNull();
      expect(paid()).toHaveLength(applied + 1);
      expect((await ledgerView()).charged_calls.xlm).toBe(charged + 1);
      // And from now on that same answer, never charged again.
      expectSameAnswer(await presented(again), await presented(await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } })));
      expect((await ledgerView()).charged_calls.xlm).toBe(charged + 1);
    });

    it("keeps the books straight: one charged call and one settled payment row per applied payment", async () => {
      const view = await ledgerView();
      expect(view.charged_calls.xlm).toBe(paid().length);
      expect(view.payments.settled).toBe(paid().length);
      expect(view.health.ok).toBe(true);
    });

    describe("quote expiry", () => {
      let short: Fixture;
      beforeAll(async () => {
        short = await startFixture({ env: { ...mode.env(), STELLAR_PAY_TO_ADDRESS: payee.publicKey(), CACHE_DISABLED: "1", XLM_QUOTE_TTL_SECONDS: "2", PAYMENT_TIMEOUT_MS: String(PAYMENT_TIMEOUT_MS) } });
      });
      afterAll(async () => short?.close());

      it("a payment accepted while its quote was valid, whose outcome was unknown, is still served once after the quote expired", async () => {
        const o: XlmOffer = (await short.json("/v1/fng")).body.xlm;
        const expiry = Date.parse(o.expires_at);
        const h = header(o, signPayment(o, { maxTime: Math.floor(expiry / 1000) + 60 }));
        const paid = () => stellarLedger(short.sim.world).payments.filter((p) => p.to === payee.publicKey());
        const applied = paid().length;
        const first = await duringHorizonFault(short, { mode: "error", status: 504, pathPrefix: "/transactions" }, () => short.get("/v1/fng", { headers: { "X-PAYMENT": h } }));
        expect(first.status, await first.clone().text()).toBe(503);
        expect((await first.json()).error.code).toBe("settlement_pending");
        await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now()) + 1_100));
        const again = await short.get("/v1/fng", { headers: { "X-PAYMENT": h } });
        expect(again.status, await again.clone().text()).toBe(200);
        expect(receiptOf(again)).not.toBeNull();
        expect(paid()).toHaveLength(applied + 1);
        // From now on (its quote has expired, and it is settled): that answer again, never charged again.
        expectSameAnswer(await presented(again), await presented(await short.get("/v1/fng", { headers: { "X-PAYMENT": h } })));
        expect(paid()).toHaveLength(applied + 1);
      });

      it("refuses a payment made for an expired quote, runs no handler and submits nothing", async () => {
        const res402 = await short.json("/v1/fng");
        const o: XlmOffer = res402.body.xlm;
        const expiry = Date.parse(o.expires_at);
        expect(expiry - Date.now()).toBeLessThanOrEqual(2_000);
        // Time bounds still open (the quote's expiry + 60 s), so only the quote is stale.
        const h = header(o, signPayment(o, { maxTime: Math.floor(expiry / 1000) + 60 }));
        await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now()) + 1_100));
        const before = { submissions: short.sim.counts()["horizon /transactions"] ?? 0, runs: short.sim.total("alternative") };
        const res = await short.json("/v1/fng", { headers: { "X-PAYMENT": h } });
        expect(res.status).toBe(402);
        expect(res.body.code).toBe("payment_invalid");
        expect(res.body.error).toMatch(/quote has expired; request a new payment requirement/);
        // The refusal carries a fresh offer to pay again.
        expect(res.body.xlm.quote).not.toBe(o.quote);
        expect({ submissions: short.sim.counts()["horizon /transactions"] ?? 0, runs: short.sim.total("alternative") }).toEqual(before);
      });
    });
  });
}
