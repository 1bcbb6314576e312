/**
 * Native XLM with a memo: the 402 offers an XLM quote whose hash is the memo; a payment
 * signed with @stellar/stellar-sdk is verified offline, locked by transaction hash, and
 * submitted to (simulated) Horizon only after the handler succeeded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Account, Asset, Keypair, Memo, Networks, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import { startFixture, type Fixture } from "../helpers/fixture";
import { stellarLedger } from "@/lib/upstream-sim/providers/horizon-submit";

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

const payee = Keypair.random();
let seq = 1000n;

function signPayment(o: XlmOffer, opts: { payer?: Keypair; amount?: string; destination?: string; memo?: string; passphrase?: string; maxTime?: number; sign?: boolean } = {}): string {
  const payer = opts.payer ?? Keypair.fromSecret(PAYER_SECRET);
  const account = new Account(payer.publicKey(), String(seq++));
  const tx = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: opts.passphrase ?? o.network_passphrase,
    timebounds: { minTime: 0, maxTime: opts.maxTime ?? Math.floor(Date.parse(o.expires_at) / 1000) },
  })
    .addOperation(Operation.payment({ destination: opts.destination ?? o.destination, asset: Asset.native(), amount: opts.amount ?? o.amount }))
    .addMemo(Memo.hash(opts.memo ?? o.memo))
    .build();
  if (opts.sign !== false) tx.sign(payer);
  return tx.toEnvelope().toXDR("base64");
}

function header(o: XlmOffer, envelope: string, quote = o.quote): string {
  return Buffer.from(JSON.stringify({ x402Version: 1, scheme: "xlm-memo", network: o.network, payload: { quote, envelope_xdr: envelope } })).toString("base64");
}

const PAYER_SECRET = Keypair.random().secret();

describe("native XLM payments with a memo", () => {
  let fx: Fixture;
  const offer = async (path = "/v1/fng"): Promise<XlmOffer> => {
    const res = await fx.json(path);
    expect(res.status).toBe(402);
    expect(res.body.xlm).toBeTruthy();
    return res.body.xlm;
  };
  const paid = () => stellarLedger(fx.sim.world).payments.filter((p) => p.to === payee.publicKey());

  beforeAll(async () => {
    fx = await startFixture({ env: { STELLAR_PAY_TO_ADDRESS: payee.publicKey(), CACHE_DISABLED: "1" } });
  });
  afterAll(async () => fx?.close());

  it("offers an XLM quote: destination, amount from the USD price at the XLM rate, memo = SHA-256(quote)", async () => {
    const o = await offer();
    expect(o.destination).toBe(payee.publicKey());
    expect(o.network_passphrase).toBe(Networks.PUBLIC);
    const { createHash } = await import("node:crypto");
    expect(o.memo).toBe(createHash("sha256").update(o.quote).digest("hex"));
    // $0.01 at the quoted rate, rounded up to the stroop.
    expect(BigInt(o.amount_stroops)).toBe(BigInt(Math.ceil((0.01 / o.rate_usd_per_xlm) * 1e7 - 1e-6)));
    expect(o.amount).toMatch(/^\d+\.\d{7}$/);
    const live = await fetch(`${fx.sim.url}/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd`).then((r) => r.json());
    expect(Math.abs(o.rate_usd_per_xlm / live.stellar.usd - 1)).toBeLessThan(0.01);
  });

  it("accepts a correct payment, submits it after success and refuses the same transaction again", async () => {
    const o = await offer();
    const h = header(o, signPayment(o));
    const res = await fx.get("/v1/fng", { headers: { "X-PAYMENT": h } });
    expect(res.status, await res.clone().text()).toBe(200);
    const receipt = JSON.parse(Buffer.from(res.headers.get("payment-response")!, "base64").toString());
    expect(receipt).toMatchObject({ success: true, network: "stellar:pubnet" });
    const applied = paid();
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ amount: o.amount, asset: "native", memo: o.memo, hash: receipt.transaction });
    const again = await fx.json("/v1/fng", { headers: { "X-PAYMENT": h } });
    expect(again.status).toBe(402);
    expect(again.body.code).toBe("payment_replayed");
    expect(paid()).toHaveLength(1);
  });

  it("refuses mismatched payments with a clear reason and submits nothing", async () => {
    const o = await offer();
    const other = await offer("/v1/quote");
    const before = paid().length;
    const cases: Array<[string, string, RegExp]> = [
      ["amount", header(o, signPayment(o, { amount: (Number(o.amount) + 0.0000001).toFixed(7) })), /exactly/],
      ["destination", header(o, signPayment(o, { destination: Keypair.random().publicKey() })), /must go to/],
      ["memo", header(o, signPayment(o, { memo: "00".repeat(32) })), /MEMO_HASH/],
      ["unsigned", header(o, signPayment(o, { sign: false })), /not signed/],
      ["other network", header(o, signPayment(o, { passphrase: Networks.TESTNET })), /not signed/],
      ["time bounds outlive the quote", header(o, signPayment(o, { maxTime: Math.floor(Date.parse(o.expires_at) / 1000) + 3600 })), /outlive/],
      ["quote for another product", header(other, signPayment(other), other.quote), /another product/],
      ["forged quote", header(o, signPayment(o), o.quote.replace(/.$/, (c) => (c === "A" ? "B" : "A"))), /not issued by this service/],
    ];
    for (const [name, h, reason] of cases) {
      const res = await fx.json("/v1/fng", { headers: { "X-PAYMENT": h } });
      expect(res.status, name).toBe(402);
      expect(res.body.error, name).toMatch(reason);
    }
    expect(paid().length).toBe(before);
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
});
