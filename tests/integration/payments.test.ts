/**
 * Payments and credentials end to end, in both storage modes (embedded PGlite with
 * in-process limits; PostgreSQL + Redis over real connections): x402 v2 and v1 clients
 * settling real EIP-3009 transfers on a local chain through the in-process facilitator,
 * refusals with nothing settled (an underfunded payer included), replay and concurrency
 * guarantees, bundles, free keys and their quota headers, charging only for success,
 * receipts, the admin-only ledger view, and finally the database itself read with SQL:
 * one audit row per charged call matching its receipt, keys and tokens stored only as
 * hashes. Per-IP mint limits: tests/integration/client-limits.test.ts.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount, type HDAccount } from "viem/accounts";
import { productByPath } from "@/lib/catalog";
import { usdToAtomic } from "@/lib/payments/price";
import { expectOneAnswer, expectSameAnswer, presented } from "../helpers/answers";
import { startChain, BASE_USDC, usdcAbi, type Chain } from "../helpers/chain";
import { rpcProxy } from "../helpers/rpc-proxy";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, requirementFrom, signAuthorization, v1Fetch, v1Header, v2Fetch, v2Header, type Requirement } from "../helpers/payments";
import { openServiceDb } from "../helpers/service-db";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const FNG = productByPath("/v1/fng")!;
const BUNDLE = productByPath("/v1/bundle")!;
const REPORT = productByPath("/v1/sentiment-report")!;
const PRICE_FNG = usdToAtomic(FNG.httpPrice);
const PRICE_BUNDLE = usdToAtomic(BUNDLE.httpPrice);
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const secondsToUtcMidnight = () => {
  const now = new Date();
  return Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000);
};

const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const MODES = [
  // A data folder rather than memory, so the final test can read the database once the service stopped.
  { name: "embedded (PGlite, in-process limits)", accounts: { payer: 1, payTo: 2, rogue: 3, poor: 7 }, env: () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "echo-pay-")) }) },
  ...(pg && redis
    ? [
        {
          name: "production (PostgreSQL + Redis)",
          accounts: { payer: 4, payTo: 5, rogue: 6, poor: 8 },
          env: () => ({ DATABASE_URL: `${POSTGRES_URL}?schema=pay_${randomBytes(6).toString("hex")}`, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}` }),
        },
      ]
    : []),
];

let chain: Chain;
/** The services settle through this transparent proxy, which can reorder two sends. */
let proxy: Awaited<ReturnType<typeof rpcProxy>>;
beforeAll(async () => {
  chain = await startChain();
  proxy = await rpcProxy(chain.rpcUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

for (const mode of MODES) {
  describe(`payments — ${mode.name}`, () => {
    let fx: Fixture;
    let payer: HDAccount;
    let payTo: HDAccount;
    let rogue: HDAccount;
    let poor: HDAccount;
    let req402: Requirement;
    let modeEnv: Record<string, string>;
    /** Every key and token the service showed in this run: none may be stored or shown again. */
    const shown: Array<{ kind: "api_key" | "bundle"; value: string }> = [];
    /** Charged calls whose audit rows the final test reads from the database. */
    const audit: Record<string, { receiptId: string; tx?: string }> = {};

    const balances = async () => ({ payer: await chain.usdcBalance(payer.address), payTo: await chain.usdcBalance(payTo.address) });

    beforeAll(async () => {
      payer = chain.accounts[mode.accounts.payer]!;
      payTo = chain.accounts[mode.accounts.payTo]!;
      rogue = chain.accounts[mode.accounts.rogue]!;
      poor = chain.accounts[mode.accounts.poor]!;
      await chain.mintUsdc(payer.address, 50_000_000n);
      await chain.mintUsdc(poor.address, PRICE_BUNDLE);
      modeEnv = mode.env();
      fx = await startFixture({
        env: {
          ...modeEnv,
          PAY_TO_ADDRESS: payTo.address,
          FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
          SETTLEMENT_RPC_URL: proxy.url,
          ADMIN_TOKEN: ADMIN,
          CACHE_DISABLED: "1",
          FREE_KEY_MINTS_PER_HOUR: "100",
        },
      });
      const res = await fx.get("/v1/fng");
      req402 = requirementFrom(res).accepts[0]!;
    }, 180_000);
    afterAll(async () => {
      await fx?.close();
      if (modeEnv?.DATA_DIR) rmSync(modeEnv.DATA_DIR, { recursive: true, force: true });
    });

    const debug = async () => (await fx.json("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } })).body;

    it("answers 402 with the x402 requirement for v2 (header) and v1 (body) plus endpoint, price, instruction", async () => {
      const res = await fx.get("/v1/fng");
      expect(res.status).toBe(402);
      const v2 = requirementFrom(res);
      expect(v2.accepts).toHaveLength(1);
      expect(v2.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: "10000", asset: BASE_USDC, payTo: payTo.address, extra: { name: "USD Coin", version: "2" } });
      const body = await res.json();
      expect(body).toMatchObject({ x402Version: 1, endpoint: "/v1/fng", price: "0.01", code: "payment_required" });
      expect(body.accepts[0]).toMatchObject({ scheme: "exact", network: "base", maxAmountRequired: "10000", payTo: payTo.address, asset: BASE_USDC });
      expect(body.instruction).toMatch(/x402/);
    });

    it("settles a payment from the official v2 client (@x402/fetch); balances move by exactly the price", async () => {
      const before = await balances();
      const res = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
      expect(res.status, await res.clone().text()).toBe(200);
      const receipt = decodeB64Json<{ success: boolean; transaction: string; network: string }>(res.headers.get("payment-response"));
      expect(receipt).toMatchObject({ success: true, network: "eip155:8453" });
      expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(res.headers.get("x-receipt-id")).toBeTruthy();
      const tx = await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction as `0x${string}` });
      expect(tx.status).toBe("success");
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE_FNG);
      expect(after.payTo - before.payTo).toBe(PRICE_FNG);
    });

    it("settles a payment from the v1 client (x402-fetch); balances move by exactly the price", async () => {
      const before = await balances();
      const res = await v1Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
      expect(res.status, await res.clone().text()).toBe(200);
      const receipt = decodeB64Json<{ success: boolean; network: string }>(res.headers.get("x-payment-response"));
      expect(receipt).toMatchObject({ success: true, network: "base" });
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE_FNG);
      expect(after.payTo - before.payTo).toBe(PRICE_FNG);
    });

    it("refuses bad payments with a clear reason and settles nothing", async () => {
      const now = BigInt(Math.floor(Date.now() / 1000));
      const good = () => signAuthorization(payer, { to: payTo.address, value: PRICE_FNG });
      const cases: Array<[string, () => Promise<Record<string, string>>, RegExp]> = [
        ["wrong amount", async () => ({ "PAYMENT-SIGNATURE": v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG - 1n })) }), /transfers 9999 base units; this call costs exactly 10000/],
        ["another product's price", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req402, amount: "100000" }, await signAuthorization(payer, { to: payTo.address, value: 100_000n })) }), /made for 100000 base units; this call costs exactly 10000/],
        ["wrong payTo", async () => ({ "PAYMENT-SIGNATURE": v2Header(req402, await signAuthorization(payer, { to: rogue.address, value: PRICE_FNG })) }), /authorization pays/i],
        ["wrong payTo in accepted", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req402, payTo: rogue.address }, await good()) }), /Wrong payTo/],
        ["wrong asset", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req402, asset: "0x0000000000000000000000000000000000000bad" }, await good()) }), /Wrong asset/],
        ["wrong network (v2)", async () => ({ "PAYMENT-SIGNATURE": v2Header({ ...req402, network: "eip155:1" }, await good()) }), /Wrong network eip155:1/],
        ["wrong network (v1)", async () => ({ "X-PAYMENT": v1Header(await good(), "polygon") }), /Wrong network eip155:137/],
        ["expired", async () => ({ "PAYMENT-SIGNATURE": v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG, validBefore: now - 10n })) }), /expired/],
        ["not yet valid", async () => ({ "PAYMENT-SIGNATURE": v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG, validAfter: now + 600n })) }), /not valid yet/],
        [
          "bad signature (signed by someone else)",
          async () => {
            const forged = await signAuthorization(rogue, { to: payTo.address, value: PRICE_FNG });
            return { "PAYMENT-SIGNATURE": v2Header(req402, { ...forged, authorization: { ...forged.authorization, from: payer.address } }) };
          },
          /signature does not match the authorization's payer.*invalid_exact_evm_signature/,
        ],
        ["signed for another token contract", async () => ({ "X-PAYMENT": v1Header(await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG, verifyingContract: "0x0000000000000000000000000000000000000bad" })) }), /signature does not match/],
        ["garbage", async () => ({ "X-PAYMENT": "not-base64-json!!" }), /not base64-encoded JSON/],
      ];
      const before = await balances();
      for (const [name, headers, reason] of cases) {
        const res = await fx.get("/v1/fng", { headers: await headers() });
        const body = await res.json();
        expect(res.status, name).toBe(402);
        expect(body.error, name).toMatch(reason);
        expect(body.code, name).toBe("payment_invalid");
        expect(res.headers.get("payment-required"), name).toBeTruthy();
      }
      expect(await balances()).toEqual(before);
    });

    it("refuses a payment from a payer holding less USDC than the price: 402 with the reason, nothing settled, balances unchanged; the same payment settles once funded", async () => {
      const underfunded = privateKeyToAccount(generatePrivateKey());
      await chain.mintUsdc(underfunded.address, PRICE_FNG - 1n);
      const signed = await signAuthorization(underfunded, { to: payTo.address, value: PRICE_FNG });
      const header = v2Header(req402, signed);
      const before = { ...(await balances()), underfunded: await chain.usdcBalance(underfunded.address) };
      const settledBefore = ((await debug()).payments.settled as number | undefined) ?? 0;

      const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(res.status).toBe(402);
      const body = await res.json();
      expect(body.code).toBe("payment_invalid");
      // The facilitator's own words: its simulation reverts with the token's balance error.
      expect(body.error).toMatch(/insufficient[_ ]balance|exceeds balance/i);
      expect(res.headers.get("payment-required")).toBeTruthy();
      expect(res.headers.get("payment-response")).toBeNull();
      expect(res.headers.get("x-receipt-id")).toBeNull();

      expect({ ...(await balances()), underfunded: await chain.usdcBalance(underfunded.address) }).toEqual(before);
      const used = await chain.publicClient.readContract({ address: BASE_USDC, abi: usdcAbi, functionName: "authorizationState", args: [underfunded.address, signed.authorization.nonce] });
      expect(used).toBe(false);
      expect((await debug()).payments.settled ?? 0).toBe(settledBefore);

      // The refusal did not burn the authorization: funded by one more base unit, it pays.
      await chain.mintUsdc(underfunded.address, 1n);
      const ok = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(await chain.usdcBalance(underfunded.address)).toBe(0n);
    });

    it("one payment presented 100 times at once: served once, settled once; every copy gets that answer or is told it is in progress; later, the same answer again", async () => {
      const before = await balances();
      const header = v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG }));
      const results = await Promise.all(Array.from({ length: 100 }, () => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } }).then(presented)));
      const original = expectOneAnswer(results);
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE_FNG);
      // Presented again later: the answer it got, as it was, charged once.
      expectSameAnswer(original, await presented(await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } })));
      expect((await balances()).payer).toBe(after.payer);
    });

    it("settles 12 different payments sent at once: every one answers 200 and moves the price once (automine refuses nonce gaps, so concurrent sends must not skip nonces)", async () => {
      const before = await balances();
      const headers = await Promise.all(Array.from({ length: 12 }, async () => v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG }))));
      const results = await Promise.all(headers.map((h) => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": h } }).then(async (r) => ({ status: r.status, text: await r.text() }))));
      expect(results.map((r) => r.status), results.map((r) => r.text).join("\n")).toEqual(results.map(() => 200));
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE_FNG * 12n);
      // And the facilitator keeps settling afterwards (no nonce left skipped).
      const next = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG })) } });
      expect(next.status, await next.clone().text()).toBe(200);
    });

    it("settles two payments whose transactions reach the node higher nonce first (automine refuses the gap): both 200, each moves the price once", async () => {
      const before = await balances();
      const gaps = proxy.state.gapRefusals;
      const headers = await Promise.all([0, 1].map(async () => v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG }))));
      proxy.state.fault = "reorder-sends";
      const results = await Promise.all(headers.map((h) => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": h } }).then(async (r) => ({ status: r.status, text: await r.text() }))));
      expect(results.map((r) => r.status), results.map((r) => r.text).join("\n")).toEqual([200, 200]);
      // The node did refuse the gap, so this exercised the wait.
      expect(proxy.state.gapRefusals).toBeGreaterThan(gaps);
      expect(before.payer - (await balances()).payer).toBe(PRICE_FNG * 2n);
    });

    it("charges nothing when the upstream fails during a paid call, and the same payment works afterwards", async () => {
      const before = await balances();
      const header = v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG }));
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        const failed = await fx.json("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
        expect(failed.status).toBe(503);
        expect(failed.body.error.code).toBe("upstream_unavailable");
        expect(failed.headers.get("retry-after")).toBeTruthy();
        expect(failed.headers.get("payment-response")).toBeNull();
      } finally {
        fx.sim.clearFaults();
      }
      expect(await balances()).toEqual(before);
      const ok = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(ok.status).toBe(200);
      expect(before.payer - (await balances()).payer).toBe(PRICE_FNG);
    });

    it("sells a bundle; 200 concurrent calls on a fresh 10-credit bundle: exactly 10 succeed, the rest 402 bundle_exhausted, the ledger shows 0 left; failures consume nothing", async () => {
      const before = await balances();
      const buy = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/bundle`);
      expect(buy.status, await buy.clone().text()).toBe(200);
      const b = await buy.json();
      expect(b).toMatchObject({ tier: "standard", credits: 10, credits_remaining: 10 }); // spec 8
      const credits = b.credits as number;
      expect(b.bundle_token).toMatch(/^echo_bt_/);
      shown.push({ kind: "bundle", value: b.bundle_token });
      expect(before.payer - (await balances()).payer).toBe(PRICE_BUNDLE);

      // A failing call consumes no credit: the bundle is still untouched when the race starts.
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        const failed = await fx.json("/v1/fng", { headers: { "X-Bundle-Token": b.bundle_token } });
        expect(failed.status).toBe(503);
      } finally {
        fx.sim.clearFaults();
      }
      const usage = await fx.json("/v1/usage", { headers: { "X-Bundle-Token": b.bundle_token } });
      expect(usage.body).toMatchObject({ kind: "bundle", credits_total: credits, credits_remaining: credits, recent: [] });

      // Both bundle headers in the race: X-Bundle-Token and Authorization: Bearer.
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fx
            .get("/v1/fng", { headers: i % 2 ? { "X-Bundle-Token": b.bundle_token } : { Authorization: `Bearer ${b.bundle_token}` } })
            .then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() })),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(credits);
      // Each success took a different credit and got its own receipt.
      expect(ok.map((r) => Number(r.headers.get("x-bundle-credits-remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: credits }, (_, i) => i));
      expect(new Set(ok.map((r) => r.headers.get("x-receipt-id"))).size).toBe(credits);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(200 - credits);
      for (const r of refused) {
        expect(r.status).toBe(402);
        expect(r.body.code).toBe("bundle_exhausted");
      }
      const d = await debug();
      expect(d.bundles).toMatchObject({ count: 1, credits_sold: credits, credits_outstanding: 0 });
      expect(d.health.ok).toBe(true);
      const after = await fx.json("/v1/usage", { headers: { "X-Bundle-Token": b.bundle_token } });
      expect(after.body.credits_remaining).toBe(0);
      // Premium reports cost 2 credits; an exhausted bundle answers 402 with the requirement.
      const premium = await fx.get("/v1/sentiment-report", { headers: { "X-Bundle-Token": b.bundle_token } });
      expect(premium.status).toBe(402);
    });

    it("never sells a bundle that was not paid: two concurrent purchases funded for one", async () => {
      const d0 = (await debug()).bundles.count as number;
      const f = v2Fetch(poor, chain.rpcUrl);
      const results = await Promise.all([f(`${fx.svc.url}/v1/bundle`), f(`${fx.svc.url}/v1/bundle`)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, (await Promise.all(results.map((r) => r.clone().text()))).join("\n")).toEqual([200, 402]);
      expect(await chain.usdcBalance(poor.address)).toBe(0n);
      expect((await debug()).bundles.count).toBe(d0 + 1);
    });

    it("gives a free key 50 calls: 60 concurrent calls, exactly 50 succeed; then 429 with Retry-After and the payment requirement", async () => {
      const minted = await fx.json("/v1/free-key?email=agent%40example.com");
      expect(minted.status).toBe(200);
      const key = minted.body.api_key as string;
      expect(key).toMatch(/^echo_fk_/);
      shown.push({ kind: "api_key", value: key });
      // A failing call does not count.
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        expect((await fx.get("/v1/fng", { headers: { "X-Api-Key": key } })).status).toBe(503);
      } finally {
        fx.sim.clearFaults();
      }
      const results = await Promise.all(Array.from({ length: 60 }, () => fx.get("/v1/fng", { headers: { "X-Api-Key": key } })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(50);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(10);
      for (const r of refused) {
        expect(r.status).toBe(429);
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(r.headers.get("payment-required")).toBeTruthy();
        expect((await r.json()).code).toBe("quota_exhausted");
      }
    });

    it("reports the free key's quota on every successful call: X-Quota-* and RateLimit-* headers, remaining down by one per call, a failed call not counted", async () => {
      const minted = await fx.json("/v1/free-key");
      expect(minted.status).toBe(200);
      const key = minted.body.api_key as string;
      shown.push({ kind: "api_key", value: key });
      const quota = minted.body.daily_quota as number;
      expect(quota).toBe(50); // spec 8
      const call = () => fx.get("/v1/fng", { headers: { "X-Api-Key": key } });
      const expectQuota = (r: Response, remaining: number) => {
        expect(r.status).toBe(200);
        expect(r.headers.get("x-quota-limit")).toBe(String(quota));
        expect(r.headers.get("x-quota-remaining")).toBe(String(remaining));
        expect(r.headers.get("ratelimit-limit")).toBe(String(quota));
        expect(r.headers.get("ratelimit-remaining")).toBe(String(remaining));
        expect(r.headers.get("ratelimit-policy")).toBe(`${quota};w=86400`);
        const reset = Number(r.headers.get("x-quota-reset"));
        expect(Math.abs(reset - secondsToUtcMidnight())).toBeLessThanOrEqual(5);
        expect(Number(r.headers.get("ratelimit-reset"))).toBe(reset);
        expect(r.headers.get("x-receipt-id")).toBeTruthy();
      };
      expectQuota(await call(), quota - 1);
      expectQuota(await call(), quota - 2);
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        expect((await call()).status).toBe(503);
      } finally {
        fx.sim.clearFaults();
      }
      expectQuota(await call(), quota - 3);
      const usage = await fx.json("/v1/usage", { headers: { "X-Api-Key": key } });
      expect(usage.body).toMatchObject({ kind: "api_key", daily_quota: quota, used_today: 3, remaining_today: quota - 3 });
    });

    it("refuses unknown credentials and premium reports on a free key with 402 and the requirement", async () => {
      const unknownKey = await fx.json("/v1/fng", { headers: { "X-Api-Key": "echo_fk_" + "A".repeat(43) } });
      expect(unknownKey.status).toBe(402);
      expect(unknownKey.body.code).toBe("invalid_credential");
      const unknownBundle = await fx.json("/v1/fng", { headers: { "X-Bundle-Token": "echo_bt_nope" } });
      expect(unknownBundle.status).toBe(402);
      const key = (await fx.json("/v1/free-key")).body.api_key;
      const premium = await fx.json("/v1/sentiment-history", { headers: { "X-Api-Key": key } });
      expect(premium.status).toBe(402);
      expect(premium.body.code).toBe("free_tier_not_covered");
      const bundleWithKey = await fx.json("/v1/bundle", { headers: { "X-Api-Key": key } });
      expect(bundleWithKey.status).toBe(402);
    });

    it("validates the free-key e-mail (422); every mint counts against the per-IP mint limit", async () => {
      const bad = await fx.json("/v1/free-key?email=not-an-email");
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "email"], type: "value_error", input: "not-an-email" });
      const first = await fx.json("/v1/free-key?email=agent%40example.com");
      const second = await fx.json("/v1/free-key");
      for (const r of [first, second]) {
        expect(r.status).toBe(200);
        expect(r.headers.get("ratelimit-limit")).toBe("100");
        shown.push({ kind: "api_key", value: r.body.api_key });
      }
      expect(Number(second.headers.get("ratelimit-remaining"))).toBe(Number(first.headers.get("ratelimit-remaining")) - 1);
    });

    it("keeps /v1/bundles/debug internal: 404 without the admin credential, counts only with it", async () => {
      expect((await fx.get("/v1/bundles/debug")).status).toBe(404);
      expect((await fx.get("/v1/bundles/debug", { headers: { Authorization: "Bearer wrong-admin-token-000" } })).status).toBe(404);
      const res = await fx.get("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toMatch(/echo_bt_|echo_fk_|token_hash|key_hash|@example\.com/);
      const d = JSON.parse(text);
      expect(d.payments.settled).toBeGreaterThanOrEqual(5);
      expect(d.charged_calls.x402).toBeGreaterThanOrEqual(4);
    });

    it("returns X-Receipt-Id on x402, bundle and key calls; /v1/usage lists the same receipt ids", async () => {
      const paid = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
      expect(paid.status, await paid.clone().text()).toBe(200);
      audit.x402 = { receiptId: paid.headers.get("x-receipt-id")!, tx: decodeB64Json<{ transaction: string }>(paid.headers.get("payment-response")).transaction };

      const buy = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/bundle`);
      expect(buy.status, await buy.clone().text()).toBe(200);
      const token = (await buy.json()).bundle_token as string;
      shown.push({ kind: "bundle", value: token });
      audit.purchase = { receiptId: buy.headers.get("x-receipt-id")!, tx: decodeB64Json<{ transaction: string }>(buy.headers.get("payment-response")).transaction };
      const report = await fx.get("/v1/sentiment-report", { headers: { "X-Bundle-Token": token } });
      expect(report.status).toBe(200);
      expect(report.headers.get("x-bundle-credits-charged")).toBe(String(REPORT.credits));
      audit.bundle = { receiptId: report.headers.get("x-receipt-id")! };

      const key = (await fx.json("/v1/free-key")).body.api_key as string;
      shown.push({ kind: "api_key", value: key });
      const keyed = await fx.get("/v1/fng", { headers: { "X-Api-Key": key } });
      expect(keyed.status).toBe(200);
      audit.key = { receiptId: keyed.headers.get("x-receipt-id")! };

      for (const a of Object.values(audit)) expect(a.receiptId).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(Object.values(audit).map((a) => a.receiptId)).size).toBe(4);
      const bundleUsage = await fx.json("/v1/usage", { headers: { "X-Bundle-Token": token } });
      expect(bundleUsage.body.recent).toEqual([expect.objectContaining({ receipt_id: audit.bundle.receiptId, product: REPORT.id, surface: "http", credits: REPORT.credits })]);
      const keyUsage = await fx.json("/v1/usage", { headers: { "X-Api-Key": key } });
      expect(keyUsage.body.recent).toEqual([expect.objectContaining({ receipt_id: audit.key.receiptId, product: FNG.id, surface: "http", credits: 1 })]);
    });

    it("shows keys and tokens once: no later answer (/v1/usage, the admin ledger view) contains one or its hash", async () => {
      expect(shown.filter((s) => s.kind === "bundle").length).toBeGreaterThanOrEqual(2);
      expect(shown.filter((s) => s.kind === "api_key").length).toBeGreaterThanOrEqual(3);
      const answers: string[] = [await (await fx.get("/v1/bundles/debug", { headers: { Authorization: `Bearer ${ADMIN}` } })).text()];
      for (const s of shown) {
        const headers: Record<string, string> = s.kind === "api_key" ? { "X-Api-Key": s.value } : { "X-Bundle-Token": s.value };
        const usage = await fx.get("/v1/usage", { headers });
        expect(usage.status).toBe(200);
        answers.push(await usage.text(), JSON.stringify(Object.fromEntries(usage.headers)));
        if (s.kind === "bundle") {
          const bearer = await fx.get("/v1/usage", { headers: { Authorization: `Bearer ${s.value}` } });
          answers.push(await bearer.text(), JSON.stringify(Object.fromEntries(bearer.headers)));
        }
      }
      const all = answers.join("\n");
      for (const s of shown) {
        expect(all).not.toContain(s.value);
        expect(all).not.toContain(sha256(s.value));
        // Nothing beyond the short prefix that identifies the credential to its owner.
        expect(all).not.toContain(s.value.slice(0, 20));
      }
    });

    it("has written one audit row per charged call, matching its receipt, and stored keys and tokens only as SHA-256 (read from the database with SQL)", async () => {
      // PGlite is single-process: the embedded service has to let go of its data folder first.
      if (!modeEnv.DATABASE_URL) await fx.svc.stop();
      const sql = await openServiceDb(modeEnv);
      try {
        const ids = Object.values(audit).map((a) => a.receiptId);
        const rows = await sql.query<Record<string, any>>("SELECT * FROM access_log WHERE id = ANY($1::text[])", [ids]);
        const row = (name: string) => rows.find((r) => r.id === audit[name]!.receiptId)!;
        expect(rows).toHaveLength(4);
        const payment = async (id: string) => (await sql.query<Record<string, any>>("SELECT * FROM payments WHERE id = $1", [id]))[0]!;

        // x402 call: product, surface, credential, amount, payer, transaction, status.
        const x = row("x402");
        expect(x).toMatchObject({ product: FNG.id, surface: "http", credential_kind: "x402", amount_usd: FNG.httpPrice, credits: null, tx_hash: audit.x402!.tx, bundle_id: null, api_key_id: null, status: "charged" });
        expect(String(x.payer).toLowerCase()).toBe(payer.address.toLowerCase());
        const xp = await payment(x.payment_id);
        expect(xp).toMatchObject({ status: "settled", tx_hash: audit.x402!.tx, product: FNG.id, surface: "http", network: "eip155:8453" });
        expect(BigInt(xp.amount_atomic)).toBe(PRICE_FNG);
        expect(String(xp.pay_to).toLowerCase()).toBe(payTo.address.toLowerCase());

        // The bundle purchase is an x402 row too, and the bundle names the payment that bought it.
        const p = row("purchase");
        expect(p).toMatchObject({ product: BUNDLE.id, surface: "http", credential_kind: "x402", amount_usd: BUNDLE.httpPrice, tx_hash: audit.purchase!.tx, status: "charged" });
        expect(String(p.payer).toLowerCase()).toBe(payer.address.toLowerCase());
        const token = shown.filter((s) => s.kind === "bundle").at(-1)!.value;
        const bundleRow = (await sql.query<Record<string, any>>("SELECT * FROM bundles WHERE token_hash = $1", [sha256(token)]))[0]!;
        expect(bundleRow).toMatchObject({ payment_id: p.payment_id, tier: "standard", token_prefix: token.slice(0, 14) });

        // Bundle call: credits, the bundle's id, no money and no payer on the row.
        expect(row("bundle")).toMatchObject({ product: REPORT.id, surface: "http", credential_kind: "bundle", credits: REPORT.credits, bundle_id: bundleRow.id, amount_usd: null, payer: null, tx_hash: null, payment_id: null, api_key_id: null, status: "charged" });

        // Key call: one call of the key's quota, the key's id.
        const key = shown.filter((s) => s.kind === "api_key").at(-1)!.value;
        const keyRow = (await sql.query<Record<string, any>>("SELECT * FROM api_keys WHERE key_hash = $1", [sha256(key)]))[0]!;
        expect(keyRow).toBeTruthy();
        expect(row("key")).toMatchObject({ product: FNG.id, surface: "http", credential_kind: "api_key", credits: 1, api_key_id: keyRow.id, amount_usd: null, payer: null, tx_hash: null, payment_id: null, bundle_id: null, status: "charged" });

        // Every key and token shown is stored as its hash, and its plaintext is in no row of any table.
        for (const s of shown) {
          const table = s.kind === "api_key" ? "api_keys" : "bundles";
          const column = s.kind === "api_key" ? "key_hash" : "token_hash";
          expect(await sql.query(`SELECT id FROM ${table} WHERE ${column} = $1`, [sha256(s.value)]), s.value.slice(0, 14)).toHaveLength(1);
        }
        const tables = await sql.tables();
        expect(tables).toEqual(expect.arrayContaining(["api_keys", "bundles", "access_log", "payments"]));
        for (const t of tables) {
          const dump = (await sql.query<{ r: string }>(`SELECT row_to_json(x)::text AS r FROM "${t}" x`)).map((r) => r.r).join("\n");
          for (const s of shown) expect(dump, `${t} holds a plaintext credential`).not.toContain(s.value.slice(8));
        }
      } finally {
        await sql.close();
      }
    });
  });
}
