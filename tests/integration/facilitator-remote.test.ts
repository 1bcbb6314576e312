/**
 * A hosted facilitator reached with credentials (FACILITATOR_URL + FACILITATOR_AUTH_HEADERS):
 * a real x402 facilitator on loopback, settling on the local chain, that refuses requests
 * without its bearer secret. With the right secret paid calls settle; with a wrong one the
 * payer gets a clear 503 (never a 500), nothing moves, and the same payment still works;
 * a `settlement_pending` answer is asked once more (x402 2.24+), and one still pending
 * after that is answered 503 settlement_pending and served once when presented again; a
 * settlement the facilitator fails for its own reasons (its RPC node down) while the
 * transfer still goes through is 503 settlement_pending, never a burnt payment.
 */
import { generateKeyPairSync, verify, type KeyObject } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { expectSameAnswer, presented } from "../helpers/answers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { loopbackFacilitator } from "../helpers/loopback-facilitator";
import { decodeB64Json, requirementFrom, signAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { rpcProxy } from "../helpers/rpc-proxy";

const SECRET = "s3cret-facilitator-token";

describe("remote facilitator with credentials", () => {
  let chain: Chain;
  let fac: Awaited<ReturnType<typeof loopbackFacilitator>>;
  let facRpc: Awaited<ReturnType<typeof rpcProxy>>;
  let right: Fixture;
  let wrong: Fixture;
  let req: Requirement;
  const payer = () => chain.accounts[1]!;
  const payTo = () => chain.accounts[2]!;
  const payment = async () => v2Header(req, await signAuthorization(payer(), { to: payTo().address as Address, value: BigInt(req.amount) }));
  const paid = (fx: Fixture, header: string) => fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
  const balance = () => chain.usdcBalance(payer().address);

  beforeAll(async () => {
    chain = await startChain();
    await chain.mintUsdc(payer().address, 10_000_000n);
    // The facilitator reaches the chain through its own proxy (its RPC node can go down).
    facRpc = await rpcProxy(chain.rpcUrl);
    fac = await loopbackFacilitator({ rpcUrl: facRpc.url, privateKey: chain.privateKey(0), secret: SECRET });
    const env = { PAY_TO_ADDRESS: payTo().address, FACILITATOR_URL: fac.url, SETTLEMENT_RPC_URL: chain.rpcUrl, CACHE_DISABLED: "1" };
    [right, wrong] = await Promise.all([
      startFixture({ env: { ...env, FACILITATOR_AUTH_HEADERS: JSON.stringify({ Authorization: `Bearer ${SECRET}` }) } }),
      startFixture({ env: { ...env, FACILITATOR_AUTH_HEADERS: JSON.stringify({ Authorization: "Bearer not-the-secret" }) } }),
    ]);
    req = requirementFrom(await right.get("/v1/fng")).accepts[0]!;
  }, 240_000);
  afterAll(async () => {
    await right?.close();
    await wrong?.close();
    await fac?.close();
    await facRpc?.close();
    await chain?.stop();
  });

  it("settles a paid call through the facilitator with the configured header", async () => {
    const before = await balance();
    const res = await paid(right, await payment());
    expect(res.status, await res.clone().text()).toBe(200);
    const receipt = decodeB64Json<{ success: boolean; transaction: `0x${string}` }>(res.headers.get("payment-response"));
    expect(receipt.success).toBe(true);
    expect((await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status).toBe("success");
    expect(before - (await balance())).toBe(BigInt(req.amount));
    expect(fac.state.calls.verify).toBeGreaterThan(0);
  });

  it("the extensions the client echoed (bazaar, payment-identifier) reach the facilitator, which catalogues the resource from them", async () => {
    const required = JSON.parse(Buffer.from((await right.get("/v1/fng")).headers.get("payment-required")!, "base64").toString());
    const signed = await signAuthorization(payer(), { to: payTo().address as Address, value: BigInt(req.amount) });
    const header = Buffer.from(JSON.stringify({ x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: signed, extensions: required.extensions })).toString("base64");
    const res = await paid(right, header);
    expect(res.status, await res.clone().text()).toBe(200);
    const seen = fac.state.lastPayload as { extensions?: Record<string, { info?: Record<string, unknown> }> };
    expect(seen.extensions?.bazaar?.info).toMatchObject({ input: { type: "http", method: "GET" } });
    expect(seen.extensions?.["payment-identifier"]?.info?.id).toBe(required.extensions["payment-identifier"].info.id);
  });

  it("a wrong secret: 503 with Retry-After naming the refused credentials, a log line, nothing moved; the same payment then settles once with the right secret", async () => {
    const header = await payment();
    const before = await balance();
    const refusedBefore = fac.state.calls.refused;
    const res = await paid(wrong, header);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = await res.json();
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).toMatch(/facilitator refused this service's credentials \(HTTP 401\)/);
    expect(body.error.message).toMatch(/nothing was charged/);
    expect(body.error.message).not.toContain("not-the-secret");
    expect(fac.state.calls.refused).toBeGreaterThan(refusedBefore);
    expect(wrong.svc.logs()).toMatch(/"event":"facilitator.auth_refused"/);
    expect(wrong.svc.logs()).not.toContain("not-the-secret");
    expect(await balance()).toBe(before);

    const ok = await paid(right, header);
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(before - (await balance())).toBe(BigInt(req.amount));
    expectSameAnswer(await presented(ok), await presented(await paid(right, header)));
    expect(before - (await balance())).toBe(BigInt(req.amount));
  });

  it("a settlement_pending answer is asked once more and served from the same transaction", async () => {
    const before = await balance();
    const settles = fac.state.calls.settle;
    fac.state.pendingAnswers = 1;
    const res = await paid(right, await payment());
    expect(res.status, await res.clone().text()).toBe(200);
    expect(fac.state.calls.settle - settles).toBe(2);
    expect(before - (await balance())).toBe(BigInt(req.amount));
  });

  it("still pending after the retry: 503 settlement_pending; the same payment presented again is served once, settled once", async () => {
    const header = await payment();
    const before = await balance();
    fac.state.pendingAnswers = 2;
    const first = await paid(right, header);
    expect(first.status).toBe(503);
    const err = await first.json();
    expect(err.error.code).toBe("settlement_pending");
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);
    const second = await paid(right, header);
    expect(second.status, await second.clone().text()).toBe(200);
    expect(before - (await balance())).toBe(BigInt(req.amount));
    expectSameAnswer(await presented(second), await presented(await paid(right, header)));
    expect(before - (await balance())).toBe(BigInt(req.amount));
  });

  it("the facilitator fails the settlement for its own reason (its RPC node is down): 503 settlement_pending fault=service, nothing moved; the same payment then settles once", async () => {
    const header = await payment();
    const before = await balance();
    fac.state.beforeSettle = () => {
      facRpc.state.down = true;
    };
    let first: Response;
    try {
      first = await paid(right, header);
    } finally {
      fac.state.beforeSettle = null;
      facRpc.state.down = false;
    }
    expect(first.status, await first.clone().text()).toBe(503);
    const err = (await first.json()).error;
    expect(err).toMatchObject({ code: "settlement_pending", fault: "service" });
    expect(err.message).toMatch(/authorization is still valid/);
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await balance()).toBe(before);

    const again = await paid(right, header);
    expect(again.status, await again.clone().text()).toBe(200);
    expect(before - (await balance())).toBe(BigInt(req.amount));
    expectSameAnswer(await presented(again), await presented(await paid(right, header)));
    expect(before - (await balance())).toBe(BigInt(req.amount));
  });

  it("refuses to start with a malformed FACILITATOR_AUTH_HEADERS, naming the setting", async () => {
    await expect(startFixture({ env: { PAY_TO_ADDRESS: payTo().address, FACILITATOR_URL: fac.url, FACILITATOR_AUTH_HEADERS: "Authorization: Bearer x" }, timeoutMs: 60_000 })).rejects.toThrow(/FACILITATOR_AUTH_HEADERS/);
  });
});

/** A CDP API key as the portal issues it: base64 of the Ed25519 seed and public key (64 bytes). */
function cdpKey(): { secret: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" }) as { d: string; x: string };
  return { secret: Buffer.concat([Buffer.from(jwk.d, "base64url"), Buffer.from(jwk.x, "base64url")]).toString("base64"), publicKey };
}

/**
 * Checks a request the way CDP does: an EdDSA JWT from the key, naming the key, issued by
 * "cdp", unexpired, for exactly this method and path of Coinbase's facilitator.
 */
function cdpCheck(keyId: string, publicKey: KeyObject) {
  return (headers: IncomingHttpHeaders, method: string, path: string): string | null => {
    const token = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    if (!token) return "no bearer token";
    const [h, p, sig] = token.split(".");
    if (!h || !p || !sig) return "not a JWT";
    if (!verify(null, Buffer.from(`${h}.${p}`), publicKey, Buffer.from(sig, "base64url"))) return "bad signature";
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const claims = JSON.parse(Buffer.from(p, "base64url").toString());
    if (header.alg !== "EdDSA" || header.kid !== keyId) return "wrong key";
    if (claims.sub !== keyId || claims.iss !== "cdp") return "wrong subject or issuer";
    if (!(claims.exp > Date.now() / 1000)) return "expired";
    if (!claims.uris?.includes(`${method} api.cdp.coinbase.com/platform/v2/x402${path}`)) return `not issued for ${method} ${path}: ${claims.uris}`;
    if (!headers["correlation-context"]) return "no Correlation-Context";
    return null;
  };
}

describe("Coinbase CDP facilitator credentials (CDP_API_KEY_ID / CDP_API_KEY_SECRET)", () => {
  const KEY_ID = "organizations/test-org/apiKeys/test-key";
  let chain: Chain;
  let fac: Awaited<ReturnType<typeof loopbackFacilitator>>;
  let good: Fixture;
  let other: Fixture;
  let req: Requirement;

  beforeAll(async () => {
    chain = await startChain();
    await chain.mintUsdc(chain.accounts[1]!.address, 10_000_000n);
    const key = cdpKey();
    fac = await loopbackFacilitator({ rpcUrl: chain.rpcUrl, privateKey: chain.privateKey(0), check: cdpCheck(KEY_ID, key.publicKey) });
    // FACILITATOR_URL stands in for api.cdp.coinbase.com (no internet in tests); the JWTs still name CDP's host.
    const env = { PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_URL: fac.url, SETTLEMENT_RPC_URL: chain.rpcUrl, CACHE_DISABLED: "1", CDP_API_KEY_ID: KEY_ID };
    [good, other] = await Promise.all([
      startFixture({ env: { ...env, CDP_API_KEY_SECRET: key.secret } }),
      startFixture({ env: { ...env, CDP_API_KEY_SECRET: cdpKey().secret } }),
    ]);
    req = requirementFrom(await good.get("/v1/fng")).accepts[0]!;
  }, 240_000);
  afterAll(async () => {
    await good?.close();
    await other?.close();
    await fac?.close();
    await chain?.stop();
  });

  it("signs every verify and settle with a JWT from the key: the paid call settles", async () => {
    const payer = chain.accounts[1]!;
    const before = await chain.usdcBalance(payer.address);
    const header = v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }));
    const res = await good.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status, `${await res.clone().text()} ${fac.state.lastRefusal}`).toBe(200);
    expect(fac.state.calls.verify).toBeGreaterThan(0);
    expect(fac.state.calls.settle).toBeGreaterThan(0);
    expect(before - (await chain.usdcBalance(payer.address))).toBe(BigInt(req.amount));
  });

  it("a key the facilitator does not know: 503 naming the refused credentials, nothing moved", async () => {
    const payer = chain.accounts[1]!;
    const before = await chain.usdcBalance(payer.address);
    const header = v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }));
    const res = await other.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(503);
    expect((await res.json()).error.message).toMatch(/refused this service's credentials \(HTTP 401\)/);
    expect(fac.state.lastRefusal).toBe("bad signature");
    expect(await chain.usdcBalance(payer.address)).toBe(before);
  });
});
