/**
 * Charged means delivered, whatever dies: the promise tested by doing it.
 *
 * Two service processes share a PostgreSQL server of this test's own (so it can be stopped
 * and started without touching anyone else's), Redis, and one facilitator key, on a
 * Hardhat chain that mines a block every 2 s. Bursts of real payments (EIP-3009, each with
 * an x402 payment-identifier id, as our 402 asks; one of them buys a bundle) go to one
 * instance while something dies:
 * - that instance is SIGKILLed at each step of the payment path (failpoints, lib/failpoints.ts):
 *   after the lock, after the broadcast, after inclusion, after the record, before the
 *   response is written;
 * - PostgreSQL is stopped for 5 s mid-burst;
 * - the chain does not mine for 25 s;
 * - a proxy drops the response after the status line.
 * Then every payment is presented again, as a client does (Retry-After honoured, the
 * other instance when one is gone), until it gets a definite answer. For every payment:
 * on chain (its authorization used, by a transfer to us), in the ledger (its row), and in
 * what the client was told. The test fails on any payment charged without delivery, any
 * valid payment refused (burnt), any bundle whose token does not work, and any "nothing
 * was charged" said of a payment that was charged. It prints the counts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import pg from "pg";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { authorizationOutcome } from "@/lib/payments/x402/evm-local";
import { startService, type Service } from "../helpers/service";
import { startChain, type Chain } from "../helpers/chain";
import { requirementFrom, signAuthorization, type Requirement } from "../helpers/payments";
import { hasRedis, REDIS_URL } from "../helpers/services";
import { available as pgClusterAvailable, startPgCluster, type PgCluster } from "../helpers/pg-cluster";
import { dropProxy } from "../helpers/drop-proxy";

const can = pgClusterAvailable() && (await hasRedis());
if (!can && process.env.REQUIRE_SERVICES === "1") throw new Error("a private PostgreSQL server and Redis are required (REQUIRE_SERVICES=1) but not available");

const BLOCK_MS = 2000;
const LEASE_SECONDS = 3;
/** Settlement waits (and verification calls) give up after this: shorter than the 25 s stall. */
const PAYMENT_TIMEOUT_MS = 8000;
/** How long a client keeps presenting a payment before the test calls it lost. */
const CLIENT_PATIENCE_MS = 90_000;

interface Payment {
  name: string;
  path: string;
  header: string;
  from: Address;
  nonce: Hex;
  req: Requirement;
  /** Every answer the client got (status and body text), and how it ended. */
  answers: Array<{ status: number; text: string; via: string }>;
  final: { status: number; text: string; headers: Headers } | null;
}

const tally = { payments: 0, served: 0, charged: 0, refusedUncharged: 0, chargedUndelivered: 0, falseNothingCharged: 0, burnt: 0, bundlesUsable: 0 };

describe.skipIf(!can)("crash consistency: charged means delivered, whatever dies", () => {
  let sim: Simulator;
  let chain: Chain;
  let cluster: PgCluster;
  let b: Service;
  let dbUrl: string;
  const prefix = `crash_${randomBytes(4).toString("hex")}`;
  const payer = () => chain.accounts[1]!;
  const payTo = () => chain.accounts[2]!;

  const env = (extra: Record<string, string> = {}) => ({
    ...sim.env,
    UPSTREAM_MODE: "live",
    DATABASE_URL: dbUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    PAY_TO_ADDRESS: payTo().address,
    FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
    SETTLEMENT_RPC_URL: chain.rpcUrl,
    PAYMENT_TIMEOUT_MS: String(PAYMENT_TIMEOUT_MS),
    PAYMENT_LEASE_SECONDS: String(LEASE_SECONDS),
    CACHE_DISABLED: "1",
    ADMIN_TOKEN: "crash-test-admin-token",
    ...extra,
  });

  beforeAll(async () => {
    sim = await startSimulator({ seed: 25 });
    chain = await startChain();
    cluster = await startPgCluster();
    dbUrl = `${cluster.url}?schema=crash`;
    await chain.mintUsdc(payer().address, 1_000_000_000n);
    await chain.setIntervalMining(BLOCK_MS);
    b = await startService({ env: env() });
  }, 180_000);

  afterAll(async () => {
    console.log(`crash consistency: ${JSON.stringify(tally)}`);
    await b?.stop();
    await chain?.stop();
    cluster?.destroy();
    await sim?.close();
  });

  /** A fresh payment for `path`, signed for exactly its requirement, with a payment-identifier id. */
  async function newPayment(name: string, path: string): Promise<Payment> {
    const res = await fetch(`${b.url}${path}`);
    const required = requirementFrom(res) as { accepts: Requirement[]; resource?: unknown };
    const req = required.accepts[0]!;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const signed = await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount), validBefore: now + 600n });
    const payload = {
      x402Version: 2,
      resource: required.resource ?? { url: `${b.url}${path}`, description: "", mimeType: "application/json" },
      accepted: req,
      payload: signed,
      extensions: { "payment-identifier": { info: { required: false, id: `pay_${randomBytes(16).toString("hex")}` } } },
    };
    return { name, path, header: Buffer.from(JSON.stringify(payload)).toString("base64"), from: signed.authorization.from as Address, nonce: signed.authorization.nonce as Hex, req, answers: [], final: null };
  }

  /** One presentation; a network failure (the instance died, the answer was cut) is null. */
  async function present(p: Payment, base: string, via: string): Promise<Response | null> {
    try {
      const res = await fetch(`${base}${p.path}`, { headers: { "PAYMENT-SIGNATURE": p.header }, signal: AbortSignal.timeout(60_000) });
      const text = await res.text();
      p.answers.push({ status: res.status, text, via });
      return new Response(text, { status: res.status, headers: res.headers });
    } catch {
      p.answers.push({ status: 0, text: "network failure", via });
      return null;
    }
  }

  /** Presents `p` again as a client would until a definite answer (200, or a 4xx refusal). */
  async function resolve(p: Payment, bases: Array<() => string | null>): Promise<void> {
    const deadline = Date.now() + CLIENT_PATIENCE_MS;
    for (let i = 0; Date.now() < deadline; i++) {
      const base = bases.map((f) => f()).find((u) => u) ?? null;
      if (!base) throw new Error("no instance to present to");
      const res = await present(p, base, base === b.url ? "B" : "A");
      if (res && (res.status === 200 || (res.status >= 400 && res.status < 500))) {
        p.final = { status: res.status, text: await res.text(), headers: res.headers };
        return;
      }
      const wait = res ? Math.min(10, Number(res.headers.get("retry-after") ?? 1)) : 1;
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
  }

  /** Accounts for every payment: on chain, in the ledger and in what the client was told. */
  async function account(label: string, payments: Payment[]): Promise<void> {
    // Whatever was sent has been mined by now (two blocks), so the chain's word is final.
    await new Promise((r) => setTimeout(r, 2 * BLOCK_MS + 500));
    const db = new pg.Client({ connectionString: cluster.url, options: "-c search_path=crash" });
    await db.connect();
    const counts = { served: 0, charged: 0, refusedUncharged: 0 };
    try {
      for (const p of payments) {
        tally.payments++;
        const out = await authorizationOutcome(chain.publicClient as never, { payload: { signature: "0x", authorization: { from: p.from, to: p.req.payTo, value: p.req.amount, nonce: p.nonce } } } as never, p.req as never);
        const charged = out.kind === "transferred";
        const served = p.final?.status === 200;
        const row = (await db.query(`SELECT status, tx_hash FROM payments WHERE reference = $1`, [`${p.from.toLowerCase()}:${p.nonce.toLowerCase()}`])).rows[0] as { status: string } | undefined;
        const story = `${label}/${p.name}: chain ${out.kind}, ledger ${row?.status ?? "none"}, client ${p.answers.map((a) => `${a.via}:${a.status}`).join(" ")} → ${p.final?.status ?? "no answer"} ${p.final?.text.slice(0, 300) ?? ""}`;
        if (charged) tally.charged++, counts.charged++;
        if (served) tally.served++, counts.served++;
        if (!charged && !served) tally.refusedUncharged++, counts.refusedUncharged++;
        if (charged && !served) tally.chargedUndelivered++;
        const lied = charged && p.answers.some((a) => /nothing was charged/i.test(a.text));
        if (lied) tally.falseNothingCharged++;
        // Every payment here is valid and funded: refusing one for good burns it.
        const burnt = !charged && p.final !== null && p.final.status !== 200;
        if (burnt) tally.burnt++;
        expect(charged && !served, `charged without delivery: ${story}`).toBe(false);
        expect(served && !charged, `delivered without a transfer: ${story}`).toBe(false);
        expect(lied, `"nothing was charged" said of a charged payment: ${story}`).toBe(false);
        expect(burnt, `a valid payment refused for good: ${story}`).toBe(false);
        expect(served, `not served: ${story}`).toBe(true);
        expect(row?.status, story).toMatch(/^(settled|broadcast)$/);
        if (p.path === "/v1/bundle") {
          const token = JSON.parse(p.final!.text).bundle_token as string;
          const use = await fetch(`${b.url}/v1/fng`, { headers: { "X-Bundle-Token": token } });
          expect(use.status, `the bundle's token does not work: ${story}`).toBe(200);
          tally.bundlesUsable++;
        }
      }
    } finally {
      await db.end();
    }
    // What each client went through, e.g. "A:0 B:503 B:503 B:200" (0: no answer).
    const paths = payments.map((p) => `${p.name}: ${p.answers.map((a) => `${a.via}:${a.status}`).join(" ")}`).join("; ");
    console.log(`${label}: ${payments.length} payments, ${counts.served} served, ${counts.charged} charged, ${counts.refusedUncharged} refused uncharged (${paths})`);
  }

  /**
   * A burst of `n` payments to `target`, 150 ms apart, with `during` run alongside. The
   * second buys a bundle: it is the one most likely to reach a failpoint's second hit.
   */
  async function burst(label: string, target: () => string, n: number, during?: () => Promise<void>): Promise<Payment[]> {
    const payments = await Promise.all(Array.from({ length: n }, (_, i) => newPayment(`${label}-${i}`, i === 1 ? "/v1/bundle" : "/v1/fng")));
    await Promise.all([...payments.map((p, i) => new Promise((r) => setTimeout(r, i * 150)).then(() => present(p, target(), "A"))), during?.()]);
    return payments;
  }

  for (const point of ["after_lock", "after_broadcast", "after_inclusion", "after_record", "before_response"] as const) {
    it(`an instance SIGKILLed ${point.replace("_", " ")}: every payment served once and charged once on re-presentation`, async () => {
      const a = await startService({ env: env({ ECHO_FAILPOINTS: `${point}:2` }) });
      try {
        const payments = await burst(point, () => a.url, 6);
        // The failpoint fired: the instance is gone.
        await new Promise<void>((r) => (a.child.exitCode !== null || a.child.signalCode !== null ? r() : a.child.once("exit", () => r())));
        expect(a.child.signalCode).toBe("SIGKILL");
        await Promise.all(payments.map((p) => (p.answers.at(-1)?.status === 200 ? ((p.final = { status: 200, text: p.answers.at(-1)!.text, headers: new Headers() }), undefined) : resolve(p, [() => b.url]))));
        await account(point, payments);
        // A served payment presented again on the other instance: the answer it got, as it was.
        const done = payments.find((p) => p.answers.some((x) => x.status === 200 && x.via === "B"))!;
        const again = await fetch(`${b.url}${done.path}`, { headers: { "PAYMENT-SIGNATURE": done.header } });
        expect(again.status).toBe(200);
        expect(await again.text()).toBe(done.final!.text);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
      } finally {
        await a.stop();
      }
    }, 240_000);
  }

  it("PostgreSQL stopped for 5 s mid-burst: nothing burnt, no false answer, every payment served once and charged once", async () => {
    const a = await startService({ env: env() });
    try {
      const payments = await burst("postgres", () => a.url, 8, async () => {
        await new Promise((r) => setTimeout(r, 400));
        cluster.stop();
        await new Promise((r) => setTimeout(r, 5000));
        cluster.start();
      });
      await Promise.all(payments.map((p) => resolve(p, [() => a.url, () => b.url])));
      await account("postgres", payments);
    } finally {
      await a.stop();
    }
  }, 240_000);

  it("the chain does not mine for 25 s: settlement_pending, then every payment served once and charged once", async () => {
    const a = await startService({ env: env() });
    try {
      const payments = await burst("stall", () => a.url, 6, async () => {
        await chain.rpc("evm_setIntervalMining", [0]);
        await new Promise((r) => setTimeout(r, 25_000));
        await chain.rpc("evm_setIntervalMining", [BLOCK_MS]);
      });
      const pending = payments.filter((p) => p.answers[0]?.status === 503);
      expect(pending.length).toBeGreaterThan(0);
      for (const p of pending) expect(JSON.parse(p.answers[0]!.text).error.code).toBe("settlement_pending");
      await Promise.all(payments.map((p) => resolve(p, [() => a.url, () => b.url])));
      await account("stall", payments);
    } finally {
      await a.stop();
    }
  }, 240_000);

  it("the response dropped after the status line: presented again, the identical answer; charged once", async () => {
    const a = await startService({ env: env() });
    const proxy = await dropProxy(a.url);
    try {
      proxy.state.dropAfterStatus = true;
      const payments = await burst("dropped", () => proxy.url, 4);
      proxy.state.dropAfterStatus = false;
      expect(payments.every((p) => p.answers[0]?.status === 0)).toBe(true);
      expect(proxy.state.dropped.filter((d) => d.status === 200)).toHaveLength(4);
      await Promise.all(payments.map((p) => resolve(p, [() => b.url])));
      await account("dropped", payments);
      for (const p of payments) {
        const lost = proxy.state.dropped.find((d) => d.request["payment-signature"] === p.header)!;
        expect(p.final!.text, `${p.name}: the answer again is not the one lost`).toBe(lost.body);
        expect(p.final!.headers.get("x-receipt-id")).toBe(lost!.headers["x-receipt-id"]);
        expect(p.final!.headers.get("payment-response")).toBe(lost!.headers["payment-response"]);
      }
    } finally {
      await proxy.close();
      await a.stop();
    }
  }, 240_000);
});
