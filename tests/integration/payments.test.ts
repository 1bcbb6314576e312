/**
 * Payments and credentials end to end, in both storage modes (embedded PGlite with
 * in-process limits; PostgreSQL + Redis over real connections): x402 v2 and v1 clients
 * settling real EIP-3009 transfers on a local chain through the in-process facilitator,
 * refusals with nothing settled, replay and concurrency guarantees, bundles, free keys,
 * charging only for success, receipts and the admin-only ledger view.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HDAccount } from "viem/accounts";
import { startChain, BASE_USDC, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, requirementFrom, signAuthorization, v1Fetch, v1Header, v2Fetch, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const PRICE_FNG = 10_000n; // /v1/fng: $0.01 on HTTP
const PRICE_BUNDLE = 50_000n; // /v1/bundle: $0.05 on HTTP

const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const MODES = [
  { name: "embedded (PGlite, in-process limits)", accounts: { payer: 1, payTo: 2, rogue: 3, poor: 7 }, env: () => ({}) },
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
beforeAll(async () => {
  chain = await startChain();
}, 120_000);
afterAll(async () => chain?.stop());

for (const mode of MODES) {
  describe(`payments — ${mode.name}`, () => {
    let fx: Fixture;
    let payer: HDAccount;
    let payTo: HDAccount;
    let rogue: HDAccount;
    let poor: HDAccount;
    let req402: Requirement;

    const balances = async () => ({ payer: await chain.usdcBalance(payer.address), payTo: await chain.usdcBalance(payTo.address) });

    beforeAll(async () => {
      payer = chain.accounts[mode.accounts.payer]!;
      payTo = chain.accounts[mode.accounts.payTo]!;
      rogue = chain.accounts[mode.accounts.rogue]!;
      poor = chain.accounts[mode.accounts.poor]!;
      await chain.mintUsdc(payer.address, 50_000_000n);
      await chain.mintUsdc(poor.address, PRICE_BUNDLE);
      fx = await startFixture({
        env: {
          ...mode.env(),
          PAY_TO_ADDRESS: payTo.address,
          FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
          SETTLEMENT_RPC_URL: chain.rpcUrl,
          ADMIN_TOKEN: ADMIN,
          CACHE_DISABLED: "1",
          FREE_KEY_MINTS_PER_HOUR: "100",
        },
      });
      const res = await fx.get("/v1/fng");
      req402 = requirementFrom(res).accepts[0]!;
    }, 180_000);
    afterAll(async () => fx?.close());

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
          /refused/,
        ],
        ["signed for another token contract", async () => ({ "X-PAYMENT": v1Header(await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG, verifyingContract: "0x0000000000000000000000000000000000000bad" })) }), /refused/],
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

    it("refuses a replayed payment, also when 100 copies arrive at once: exactly one settlement", async () => {
      const before = await balances();
      const header = v2Header(req402, await signAuthorization(payer, { to: payTo.address, value: PRICE_FNG }));
      const results = await Promise.all(Array.from({ length: 100 }, () => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } }).then(async (r) => ({ status: r.status, body: await r.json() }))));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(99);
      for (const r of refused) expect(r.body.code).toBe("payment_replayed");
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE_FNG);
      // Replaying the settled payment later is refused as well.
      const again = await fx.json("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status).toBe(402);
      expect(again.body.code).toBe("payment_replayed");
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

    it("sells a bundle; 200 concurrent calls on 10 credits: exactly 10 succeed and the ledger shows 0 left; failures consume nothing", async () => {
      const before = await balances();
      const buy = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/bundle`);
      expect(buy.status, await buy.clone().text()).toBe(200);
      const b = await buy.json();
      expect(b).toMatchObject({ tier: "standard", credits: 10, credits_remaining: 10 });
      expect(b.bundle_token).toMatch(/^echo_bt_/);
      expect(before.payer - (await balances()).payer).toBe(PRICE_BUNDLE);

      // A failing call consumes no credit.
      fx.sim.setFault("alternative", { mode: "error", status: 500 });
      try {
        const failed = await fx.json("/v1/fng", { headers: { "X-Bundle-Token": b.bundle_token } });
        expect(failed.status).toBe(503);
      } finally {
        fx.sim.clearFaults();
      }
      const one = await fx.get("/v1/fng", { headers: { Authorization: `Bearer ${b.bundle_token}` } });
      expect(one.status).toBe(200);
      expect(one.headers.get("x-bundle-credits-remaining")).toBe("9");

      const results = await Promise.all(Array.from({ length: 200 }, () => fx.get("/v1/fng", { headers: { "X-Bundle-Token": b.bundle_token } }).then(async (r) => ({ status: r.status, body: await r.json() }))));
      expect(results.filter((r) => r.status === 200)).toHaveLength(9);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(402);
        expect(r.body.code).toBe("bundle_exhausted");
      }
      const d = await debug();
      expect(d.bundles).toMatchObject({ count: 1, credits_sold: 10, credits_outstanding: 0 });
      expect(d.health.ok).toBe(true);
      // Premium reports cost 2 credits; an exhausted bundle answers 402 with the requirement.
      const premium = await fx.get("/v1/sentiment-report", { headers: { "X-Bundle-Token": b.bundle_token } });
      expect(premium.status).toBe(402);
    });

    it("never sells a bundle that was not paid: two concurrent purchases funded for one", async () => {
      const d0 = (await debug()).bundles.count as number;
      const f = v2Fetch(poor, chain.rpcUrl);
      const results = await Promise.all([f(`${fx.svc.url}/v1/bundle`), f(`${fx.svc.url}/v1/bundle`)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 402]);
      expect(await chain.usdcBalance(poor.address)).toBe(0n);
      expect((await debug()).bundles.count).toBe(d0 + 1);
    });

    it("gives a free key 50 calls: 60 concurrent calls, exactly 50 succeed; then 429 with Retry-After and the payment requirement", async () => {
      const minted = await fx.json("/v1/free-key?email=agent%40example.com");
      expect(minted.status).toBe(200);
      const key = minted.body.api_key as string;
      expect(key).toMatch(/^echo_fk_/);
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

    it("validates the free-key e-mail (422) and limits minting per IP", async () => {
      const bad = await fx.json("/v1/free-key?email=not-an-email");
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "email"], type: "value_error", input: "not-an-email" });
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
  });
}
