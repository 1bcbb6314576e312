/**
 * The service's own funds on Solana (issue 30): the fee payer's lamports pay for every
 * payment transaction the service sends, so a payer must not be able to make it pay for
 * nothing. Two instances share PostgreSQL and one litesvm ledger (tests/helpers/solana.ts,
 * which runs the node's preflight unless told to skip it); payments are built by the
 * official @x402/svm client, or by hand where the case needs another transaction.
 * - a compute budget above the official client's (1 400 000 units at 5 000 000 µlamports)
 *   is refused 402 over HTTP and the MCP `payment` argument; the fee payer's balance does
 *   not move;
 * - 10 different payments at once from a payer funded for one call, over both instances:
 *   exactly one transaction, 1 served, 9 refused 402 with nothing sent;
 * - the RPC down while a payment is verified: 503 service_unavailable with Retry-After,
 *   and the same payment is served once the RPC answers;
 * - a payer whose transactions failed on chain at the fee payer's expense is refused once
 *   its fee budget is spent, on either instance; the ledger report and /metrics count the
 *   fees, settled and failed.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { address, appendTransactionMessageInstructions, createTransactionMessage, getBase64EncodedWireTransaction, partiallySignTransactionMessageWithSigners, pipe, setTransactionMessageFeePayer, setTransactionMessageLifetimeUsingBlockhash, type Blockhash } from "@solana/kit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { PaymentRequirements } from "@x402/core/types";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";
import { ataOf, SOLANA_USDC_MINT, startSolana, type SolanaLedger, type Wallet } from "../helpers/solana";
import { requirementFrom, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const up = (await hasPostgres()) && (await hasRedis());
if (!up && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const PRICE = 10_000n; // /v1/fng: $0.01
/** What the fee payer pays for a transaction of the official client: two signatures and 20 000 units at 1 µlamport (rounded up). */
const OFFICIAL_FEE = 10_001n;
const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

type Result = { status: number; body: any; headers: Headers };

describe.skipIf(!up)("a payer cannot make the Solana fee payer pay for nothing", () => {
  let sim: Simulator;
  let sol: SolanaLedger;
  let a: Service;
  let b: Service;
  let feePayer: Wallet;
  let payTo: Wallet;
  let req: Requirement;

  beforeAll(async () => {
    sim = await startSimulator();
    sol = await startSolana();
    [feePayer, payTo] = await Promise.all([sol.wallet(), sol.wallet()]);
    sol.fundSol(feePayer.address);
    await sol.setUsdc(payTo.address, 0n);
    const env = {
      ...sim.env,
      UPSTREAM_MODE: "live",
      DATABASE_URL: `${POSTGRES_URL}?schema=svmfunds_${randomBytes(5).toString("hex")}`,
      REDIS_URL,
      REDIS_KEY_PREFIX: `svmfunds-${randomBytes(4).toString("hex")}`,
      SOLANA_PAY_TO_ADDRESS: payTo.address,
      SOLANA_RPC_URL: sol.rpcUrl,
      SOLANA_FEE_PAYER_SECRET: feePayer.secret,
      // Two failed transactions of the official client spend it.
      SOLANA_PAYER_FEE_BUDGET_LAMPORTS: "20000",
      ADMIN_TOKEN: ADMIN,
      CACHE_DISABLED: "1",
      PAY_TO_ADDRESS: undefined,
      FACILITATOR_URL: undefined,
      FACILITATOR_PRIVATE_KEY: undefined,
    };
    [a, b] = await Promise.all([startService({ env, timeoutMs: 240_000 }), startService({ env, timeoutMs: 240_000 })]);
    req = requirementFrom(await fetch(`${a.url}/v1/fng`)).accepts[0]!;
  }, 300_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await sol?.stop();
    await sim?.close();
  });

  /** A fresh payer with SOL for nothing (it pays no fee) and `usdc` base units. */
  async function payerWith(usdc: bigint): Promise<Wallet> {
    const w = await sol.wallet();
    sol.fundSol(w.address);
    await sol.setUsdc(w.address, usdc);
    return w;
  }

  /** A payment built by the official client scheme, as its PAYMENT-SIGNATURE header. */
  async function officialHeader(w: Wallet, path = "/v1/fng"): Promise<string> {
    const p = await new ExactSvmScheme(w.signer, { rpcUrl: sol.rpcUrl }).createPaymentPayload(2, req as PaymentRequirements);
    return v2Header(req, p.payload, `${a.url}${path}`);
  }

  /**
   * The official client's transaction with another compute budget: SetComputeUnitLimit,
   * SetComputeUnitPrice, transferChecked of exactly the price to the pay-to's USDC account,
   * a memo nonce; fee payer the service's, signed by the payer.
   */
  async function budgetHeader(w: Wallet, units: number, microLamports: bigint): Promise<string> {
    const limit = new Uint8Array(5);
    limit[0] = 2;
    new DataView(limit.buffer).setUint32(1, units, true);
    const price = new Uint8Array(9);
    price[0] = 3;
    new DataView(price.buffer).setBigUint64(1, microLamports, true);
    const transfer = new Uint8Array(10);
    transfer[0] = 12;
    new DataView(transfer.buffer).setBigUint64(1, PRICE, true);
    transfer[9] = 6;
    const [source, destination] = await Promise.all([ataOf(w.address), ataOf(payTo.address)]);
    const { blockhash } = (await (await fetch(sol.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash", params: [] }) })).json()).result.value;
    const msg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(feePayer.address), m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            { programAddress: address(COMPUTE_BUDGET), data: limit },
            { programAddress: address(COMPUTE_BUDGET), data: price },
            {
              programAddress: address(TOKEN_PROGRAM),
              accounts: [
                { address: address(source), role: 1 },
                { address: address(SOLANA_USDC_MINT), role: 0 },
                { address: address(destination), role: 1 },
                { address: w.signer.address, role: 2, signer: w.signer },
              ],
              data: transfer,
            },
            { programAddress: address(MEMO_PROGRAM), data: new TextEncoder().encode(randomBytes(16).toString("hex")) },
          ] as never,
          m,
        ),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 1_000_000n }, m),
    );
    const signed = await partiallySignTransactionMessageWithSigners(msg as never);
    return v2Header(req, { transaction: getBase64EncodedWireTransaction(signed) }, `${a.url}/v1/fng`);
  }

  async function paid(svc: Service, header: string, path = "/v1/fng"): Promise<Result> {
    const r = await fetch(`${svc.url}${path}`, { headers: { "PAYMENT-SIGNATURE": header } });
    const text = await r.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: r.status, body, headers: r.headers };
  }

  it("refuses a compute budget above the official client's over HTTP and MCP, before anything is simulated or sent; the fee payer's balance does not move", async () => {
    const payer = await payerWith(5n * PRICE);
    const feeBefore = sol.solBalance(feePayer.address);
    const sends = sol.calls.get("sendTransaction") ?? 0;
    const sims = sol.calls.get("simulateTransaction") ?? 0;

    const http = await paid(a, await budgetHeader(payer, 1_400_000, 5_000_000n));
    expect(http.status, JSON.stringify(http.body)).toBe(402);
    expect(http.body.code).toBe("payment_invalid");
    expect(http.body.reason).toBe("compute_budget_too_high");
    expect(http.body.error).toMatch(/compute-unit limit is 1400000, above 20000/);
    expect(http.body.error).toMatch(/compute-unit price is 5000000 micro-lamports, above 1/);
    expect(http.body.error).toMatch(/7010000 lamports/);
    // Just above the official client's price: refused too.
    const above = await paid(b, await budgetHeader(payer, 20_000, 2n));
    expect(above.status).toBe(402);
    expect(above.body.reason).toBe("compute_budget_too_high");

    const mcp = new Client({ name: "own-funds-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`)));
    try {
      const r = (await mcp.callTool({ name: "get_fear_greed_index", arguments: { payment: await budgetHeader(payer, 1_400_000, 5_000_000n) } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(r.isError).toBe(true);
      const err = JSON.parse(r.content[0]!.text);
      expect(JSON.stringify(err)).toMatch(/compute_budget_too_high/);
      expect(JSON.stringify(err)).toMatch(/compute-unit limit is 1400000/);
    } finally {
      await mcp.close();
    }

    expect(sol.solBalance(feePayer.address)).toBe(feeBefore);
    expect(sol.calls.get("sendTransaction") ?? 0).toBe(sends);
    expect(sol.calls.get("simulateTransaction") ?? 0).toBe(sims);
    expect(await sol.tokenBalance(payer.address)).toBe(5n * PRICE);

    // The official client's own budget passes, and costs the fee payer exactly its fee.
    const ok = await paid(a, await officialHeader(payer));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(feeBefore - sol.solBalance(feePayer.address)).toBe(OFFICIAL_FEE);
  });

  it("10 official-client payments at once from a payer funded for one call, over two instances: one transaction, 1 served, 9 refused 402 with nothing sent", async () => {
    const payer = await payerWith(PRICE);
    const headers = await Promise.all(Array.from({ length: 10 }, () => officialHeader(payer)));
    const executed = sol.executed();
    const feeBefore = sol.solBalance(feePayer.address);
    const results = await Promise.all(headers.map((h, i) => paid(i % 2 ? b : a, h)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual([200, ...Array(9).fill(402)]);
    for (const r of results.filter((x) => x.status === 402)) expect(["payment_invalid", "settlement_failed"]).toContain(r.body.code);
    expect(sol.executed() - executed).toBe(1);
    expect(feeBefore - sol.solBalance(feePayer.address)).toBe(OFFICIAL_FEE);
    expect(await sol.tokenBalance(payer.address)).toBe(0n);
  });

  it("the RPC down while a payment is verified: 503 service_unavailable with Retry-After, nothing charged; the same payment is served once it answers", async () => {
    const payer = await payerWith(PRICE);
    const header = await officialHeader(payer);
    sol.setDown(true);
    let first: Result;
    try {
      first = await paid(a, header);
    } finally {
      sol.setDown(false);
    }
    expect(first.status, JSON.stringify(first.body)).toBe(503);
    expect(first.body.error.code).toBe("service_unavailable");
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(first.body.error.message).toMatch(/Solana RPC could not be reached to verify the payment/);
    expect(first.body.error.message).toMatch(/nothing was charged/);
    expect(await sol.tokenBalance(payer.address)).toBe(PRICE);

    const again = await paid(a, header);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await sol.tokenBalance(payer.address)).toBe(0n);
  });

  it("a payer whose transactions failed on chain at the fee payer's expense is refused on every instance once its fee budget is spent; the report and /metrics count the fees", async () => {
    const payer = await payerWith(10n * PRICE);
    const other = await payerWith(PRICE);
    /** A payment whose payer spends its USDC after the node's preflight and before execution: it lands failed, at the fee payer's expense. */
    const failing = async (svc: Service) => {
      const header = await officialHeader(payer);
      sol.beforeNextExecution(() => sol.setUsdc(payer.address, 0n));
      const r = await paid(svc, header);
      await sol.setUsdc(payer.address, 10n * PRICE);
      return r;
    };
    const feeBefore = sol.solBalance(feePayer.address);
    const r1 = await failing(a);
    expect(r1.status, JSON.stringify(r1.body)).toBe(402);
    expect(r1.body.code).toBe("settlement_failed");
    const r2 = await failing(b);
    expect(r2.status, JSON.stringify(r2.body)).toBe(402);
    expect(feeBefore - sol.solBalance(feePayer.address)).toBe(2n * OFFICIAL_FEE);

    // 20 002 lamports spent of a 20 000 budget: refused on either instance, nothing sent.
    const executed = sol.executed();
    const refusedA = await paid(a, await officialHeader(payer));
    const refusedB = await paid(b, await officialHeader(payer));
    for (const r of [refusedA, refusedB]) {
      expect(r.status, JSON.stringify(r.body)).toBe(402);
      expect(r.body.code).toBe("payment_invalid");
      expect(r.body.reason).toBe("fee_budget_spent");
      expect(r.body.error).toMatch(/20002 lamports/);
    }
    expect(sol.executed()).toBe(executed);
    expect(await sol.tokenBalance(payer.address)).toBe(10n * PRICE);
    // Another payer is not affected.
    expect((await paid(b, await officialHeader(other))).status).toBe(200);

    const report = await fetch(`${a.url}/v1/bundles/debug`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.json());
    const fees = report.fees[req.network];
    expect(fees).toMatchObject({ method: "svm-exact", unit: "lamports", failed: String(2n * OFFICIAL_FEE), failed_transactions: 2 });
    expect(BigInt(fees.settled)).toBeGreaterThanOrEqual(3n * OFFICIAL_FEE);

    const failedOn = async (svc: Service) => {
      const text = await fetch(`${svc.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
      const line = text.split("\n").find((l) => l.startsWith("echo_settlement_fees_total{") && l.includes('outcome="failed"') && l.includes('method="svm-exact"'));
      return line ? Number(line.split(" ").pop()) : 0;
    };
    expect((await failedOn(a)) + (await failedOn(b))).toBe(Number(2n * OFFICIAL_FEE));
  });
});
