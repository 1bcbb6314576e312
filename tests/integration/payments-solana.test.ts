/**
 * Solana payments end to end: the 402 offers USDC on Solana (x402 `exact`), the official
 * @x402/svm client signs a real transferChecked transaction against a litesvm ledger
 * (served over JSON-RPC by tests/helpers/solana.ts), the service verifies it with the
 * in-process @x402/svm facilitator and settles it after the handler succeeded: the fee
 * payer co-signs and the ledger executes it. Refusals, replays and failed calls move
 * nothing.
 */
import { expectOneAnswer, expectSameAnswer, presented } from "../helpers/answers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBase64EncodedWireTransaction, getBase64Encoder, getTransactionDecoder, type Transaction } from "@solana/kit";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { ExactSvmSchemeV1 } from "@x402/svm/exact/v1/client";
import type { PaymentRequirements } from "@x402/core/types";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, requirementFrom, v2Header, type Requirement } from "../helpers/payments";
import { SOLANA_USDC_MINT, startSolana, type SolanaLedger, type Wallet } from "../helpers/solana";

const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"; // CAIP-2: first 32 characters of the mainnet genesis hash
const PRICE_FNG = 10_000n; // /v1/fng: $0.01 on HTTP

let sol: SolanaLedger;
let fx: Fixture;
let payer: Wallet;
let payTo: Wallet;
let rogue: Wallet;
let poor: Wallet;
let feePayer: Wallet;
let req: Requirement;

const balances = async () => ({ payer: await sol.tokenBalance(payer.address), payTo: await sol.tokenBalance(payTo.address) });
const url = (path: string) => `${fx.svc.url}${path}`;

/** The official v2 client (x402Client + wrapFetchWithPayment) paying on Solana; `seen` collects the PAYMENT-SIGNATURE headers it sent. */
function svmFetch(w: Wallet, seen: string[] = []): typeof fetch {
  const client = new x402Client().register("solana:*", new ExactSvmScheme(w.signer, { rpcUrl: sol.rpcUrl }));
  const recording: typeof fetch = async (input, init) => {
    const r = new Request(input, init);
    const h = r.headers.get("payment-signature");
    if (h) seen.push(h);
    return fetch(r);
  };
  return wrapFetchWithPayment(recording, client) as typeof fetch;
}

/** A transaction signed by the official client scheme for `r` (which may differ from the real requirement). */
async function signedPayload(w: Wallet, r: Requirement) {
  const p = await new ExactSvmScheme(w.signer, { rpcUrl: sol.rpcUrl }).createPaymentPayload(2, r as PaymentRequirements);
  return p.payload as { transaction: string };
}

beforeAll(async () => {
  sol = await startSolana();
  [payer, payTo, rogue, poor, feePayer] = await Promise.all([sol.wallet(), sol.wallet(), sol.wallet(), sol.wallet(), sol.wallet()]);
  sol.fundSol(payer.address);
  sol.fundSol(poor.address);
  sol.fundSol(feePayer.address);
  await sol.setUsdc(payer.address, 5_000_000n);
  await sol.setUsdc(poor.address, PRICE_FNG - 1n);
  await sol.setUsdc(payTo.address, 0n);
  await sol.setUsdc(rogue.address, 0n);
  fx = await startFixture({
    env: {
      SOLANA_PAY_TO_ADDRESS: payTo.address,
      SOLANA_RPC_URL: sol.rpcUrl,
      SOLANA_FEE_PAYER_SECRET: feePayer.secret,
      CACHE_DISABLED: "1",
      // Solana only: no EVM payments, no remote facilitator.
      PAY_TO_ADDRESS: undefined,
      FACILITATOR_URL: undefined,
      FACILITATOR_PRIVATE_KEY: undefined,
    },
  });
  req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
}, 180_000);
afterAll(async () => {
  await fx?.close();
  await sol?.stop();
});

describe("payments on Solana (x402 exact, USDC, @x402/svm)", () => {
  it("offers USDC on Solana in the 402 (v2 header and v1 body) with the fee payer of the facilitator", async () => {
    const res = await fx.get("/v1/fng");
    expect(res.status).toBe(402);
    const v2 = requirementFrom(res);
    expect(v2.accepts).toHaveLength(1);
    expect(v2.accepts[0]).toEqual({
      scheme: "exact",
      network: SOLANA,
      amount: PRICE_FNG.toString(),
      asset: SOLANA_USDC_MINT,
      payTo: payTo.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address },
    });
    const body = await res.json();
    expect(body.accepts[0]).toMatchObject({ scheme: "exact", network: "solana", maxAmountRequired: "10000", asset: SOLANA_USDC_MINT, payTo: payTo.address, extra: { feePayer: feePayer.address } });
  });

  it("settles a payment from the official client: USDC moves by exactly the price, the fee payer pays the fee, the receipt names the transaction", async () => {
    const before = await balances();
    const payerSol = sol.solBalance(payer.address);
    const feeSol = sol.solBalance(feePayer.address);
    const res = await svmFetch(payer)(url("/v1/fng"));
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).index).toBeTypeOf("number");
    const receipt = decodeB64Json<{ success: boolean; transaction: string; network: string; payer: string }>(res.headers.get("payment-response"));
    expect(receipt).toMatchObject({ success: true, network: SOLANA, payer: payer.address });
    expect(receipt.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    expect(sol.transaction(receipt.transaction)).toEqual({ slot: expect.any(Number), err: null });
    expect(decodeB64Json(res.headers.get("x-payment-response"))).toMatchObject({ success: true, network: "solana", transaction: receipt.transaction });
    expect(res.headers.get("x-receipt-id")).toBeTruthy();
    const after = await balances();
    expect(before.payer - after.payer).toBe(PRICE_FNG);
    expect(after.payTo - before.payTo).toBe(PRICE_FNG);
    expect(sol.solBalance(payer.address)).toBe(payerSol);
    expect(sol.solBalance(feePayer.address)).toBeLessThan(feeSol);
  });

  it("settles a v1 payment (X-PAYMENT, network \"solana\") built by the official v1 client scheme", async () => {
    const before = await balances();
    const v1req = (await (await fx.get("/v1/fng")).json()).accepts[0];
    const p = await new ExactSvmSchemeV1(payer.signer, { rpcUrl: sol.rpcUrl }).createPaymentPayload(1, v1req);
    expect(p.network).toBe("solana");
    const res = await fx.get("/v1/fng", { headers: { "X-PAYMENT": Buffer.from(JSON.stringify(p)).toString("base64") } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(decodeB64Json(res.headers.get("x-payment-response"))).toMatchObject({ success: true, network: "solana" });
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
  });

  it("a payment presented again gets its answer again, charged once; a fresh one presented 20 times at once is served and settled once", async () => {
    const seen: string[] = [];
    const first = await svmFetch(payer, seen)(url("/v1/fng"));
    expect(first.status).toBe(200);
    const original = await presented(first);
    const header = seen[0]!;
    const before = await balances();
    // The official client sends the payment in PAYMENT-SIGNATURE: presented again, the same answer.
    expectSameAnswer(original, await presented(await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } })));
    expect(await balances()).toEqual(before);

    const fresh = v2Header(req, await signedPayload(payer, req), url("/v1/fng"));
    const results = await Promise.all(Array.from({ length: 20 }, () => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": fresh } }).then(presented)));
    expectOneAnswer(results);
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
  });

  it("refuses bad payments with a clear reason and moves nothing", async () => {
    const cases: Array<[string, () => Promise<Record<string, string>>, RegExp]> = [
      // What the client says it accepted differs from the requirement.
      ["wrong amount (accepted)", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req, amount: "9999" }, await signedPayload(payer, { ...req, amount: "9999" })) }), /made for 9999 base units; this call costs exactly 10000/],
      ["wrong payTo (accepted)", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req, payTo: rogue.address }, await signedPayload(payer, { ...req, payTo: rogue.address })) }), /Wrong payTo/],
      ["wrong fee payer (accepted)", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req, extra: { feePayer: payer.address } }, await signedPayload(payer, { ...req, extra: { feePayer: payer.address } })) }), /fee payer/],
      ["wrong network", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req, network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" }, await signedPayload(payer, req)) }), /Wrong network solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/],
      // The requirement is quoted correctly but the signed transaction does something else.
      ["transaction transfers the wrong amount", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, await signedPayload(payer, { ...req, amount: "9999" })) }), /transfers 9999 base units; this call costs exactly 10000/],
      ["transaction pays someone else", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, await signedPayload(payer, { ...req, payTo: rogue.address })) }), /not the USDC account of/],
      ["transaction names another fee payer", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, await signedPayload(payer, { ...req, extra: { feePayer: rogue.address } })) }), /fee payer must be/],
      ["payer lacks the USDC", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, await signedPayload(poor, req)) }), /fails on chain/],
      ["not a transaction", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, { transaction: "AAAA" }) }), /not a base64-encoded Solana transaction/],
      ["no transaction", async () => ({ "PAYMENT-SIGNATURE": v2Header(req, { signature: "0x00" }) }), /must carry the partially signed transaction/],
    ];
    const before = await balances();
    const poorBefore = await sol.tokenBalance(poor.address);
    for (const [name, headers, reason] of cases) {
      const res = await fx.get("/v1/fng", { headers: await headers() });
      const body = await res.json();
      expect(res.status, name).toBe(402);
      expect(body.code, name).toBe("payment_invalid");
      expect(body.error, name).toMatch(reason);
      expect(res.headers.get("payment-required"), name).toBeTruthy();
    }
    expect(await balances()).toEqual(before);
    expect(await sol.tokenBalance(poor.address)).toBe(poorBefore);
    expect(await sol.tokenBalance(rogue.address)).toBe(0n);
  });

  it("charges nothing when the upstream fails during a paid call, and the same payment works afterwards", async () => {
    const header = v2Header(req, await signedPayload(payer, req), url("/v1/fng"));
    const before = await balances();
    fx.sim.setFault("alternative", { mode: "error", status: 500 });
    try {
      const failed = await fx.json("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(failed.status).toBe(503);
      expect(failed.headers.get("payment-response")).toBeNull();
    } finally {
      fx.sim.clearFaults();
    }
    expect(await balances()).toEqual(before);
    const ok = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(ok.status).toBe(200);
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
  });

  it("a settlement whose send executed but whose answer was lost: the ledger is asked, the call is served, the payment charged once and never again", async () => {
    const header = v2Header(req, await signedPayload(payer, req), url("/v1/fng"));
    const before = await balances();
    sol.loseNextSendAnswer(true);
    const first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status, await first.clone().text()).toBe(200);
    const receipt = decodeB64Json(first.headers.get("payment-response"));
    expect(receipt).toMatchObject({ success: true, network: SOLANA });
    expect(sol.transaction(String(receipt.transaction))).toEqual(expect.objectContaining({ err: null }));
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
    expect((await balances()).payTo - before.payTo).toBe(PRICE_FNG);

    const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
  });

  it("a settlement whose send went unanswered before reaching the ledger: 503 settlement_pending (never 402), nothing moved; the same payment is then served and charged once", async () => {
    const header = v2Header(req, await signedPayload(payer, req), url("/v1/fng"));
    const before = await balances();
    sol.loseNextSendAnswer(false);
    const first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status, await first.clone().text()).toBe(503);
    expect(first.headers.get("retry-after")).toBeTruthy();
    expect((await first.json()).error).toMatchObject({ code: "settlement_pending" });
    expect(await balances()).toEqual(before);

    const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
    expectSameAnswer(await presented(again), await presented(await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } })));
    expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
  });

  it("the test ledger checks signatures for real: a transaction whose payer signature was altered is rejected", async () => {
    const { transaction } = await signedPayload(payer, req);
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(transaction)) as Transaction;
    const [fee] = await feePayer.signer.signTransactions([tx as Parameters<typeof feePayer.signer.signTransactions>[0][number]]);
    const sigs = { ...tx.signatures, ...fee } as Record<string, Uint8Array>;
    const forged = new Uint8Array(sigs[payer.address]!);
    forged[0]! ^= 0xff;
    sigs[payer.address] = forged;
    const wire = getBase64EncodedWireTransaction({ ...tx, signatures: sigs } as Transaction);
    const before = await balances();
    const r = await fetch(sol.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [wire, { encoding: "base64" }] }) });
    const out = (await r.json()) as { error?: { message: string } };
    expect(out.error?.message).toMatch(/rejected/);
    expect(await balances()).toEqual(before);
  });
});
