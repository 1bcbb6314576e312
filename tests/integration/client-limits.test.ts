/**
 * Per-client-IP limits over real HTTP, from two real client addresses (127.0.0.1 and
 * 127.0.0.2 are both the loopback; the service listens on 127.0.0.1):
 * - free-key minting: N per hour per IP, then 429 with Retry-After and RateLimit-*;
 *   nothing minted when refused; another IP unaffected; the MCP tool shares the bucket.
 *   Embedded (in-process counters) and production (PostgreSQL + Redis).
 * - the client-IP header cannot be forged: sending x-echo-client-ip (plain or with a
 *   made-up stamp) does not change the bucket, under the custom server and under plain
 *   `next start`, where nothing overwrites the header.
 * - Redis unreachable: the limits still hold (in-process counters), they do not fail
 *   open, and the service keeps answering.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixture, type Fixture } from "../helpers/fixture";
import { callToolFrom, requestFrom, type FromResponse } from "../helpers/http-from";
import { closedPort, hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const A = "127.0.0.1";
const B = "127.0.0.2";
const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const MINTS = 3;
const SAMPLES = 3;
const LIMIT_ENV = { FREE_KEY_MINTS_PER_HOUR: String(MINTS), SAMPLE_LIMIT_PER_HOUR: String(SAMPLES), ADMIN_TOKEN: ADMIN };

const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

/** Headers a caller might send to pose as another client. */
const SPOOFS: Array<Record<string, string>> = [
  { "x-echo-client-ip": "203.0.113.7" },
  { "x-echo-client-ip": "203.0.113.8 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
  { "X-Echo-Client-Ip": "127.0.0.2", "X-Forwarded-For": "127.0.0.2" },
  { "x-echo-client-ip": "198.51.100.1", "x-real-ip": "198.51.100.1", forwarded: "for=198.51.100.1" },
];

function expectLimitHeaders(r: FromResponse, limit: number, remaining: number): void {
  expect(r.headers.get("ratelimit-limit")).toBe(String(limit));
  expect(r.headers.get("ratelimit-remaining")).toBe(String(remaining));
  expect(r.headers.get("ratelimit-policy")).toBe(`${limit};w=3600`);
  const reset = Number(r.headers.get("ratelimit-reset"));
  expect(reset).toBeGreaterThanOrEqual(0);
  expect(reset).toBeLessThanOrEqual(3600);
}

function expectRefused(r: FromResponse, limit: number): void {
  expect(r.status, r.text).toBe(429);
  expectLimitHeaders(r, limit, 0);
  const retry = Number(r.headers.get("retry-after"));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(3600);
  expect(r.body.error).toMatchObject({ code: "rate_limited", retry_after: retry });
  expect(r.body.error.message).toMatch(/retry in \d+ s/);
}

/** `limit` calls from A succeed whatever client-IP headers they forge; then every forged variant is refused. */
async function expectOneBucketDespiteSpoofs(url: string, limit: number): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const r = await requestFrom(A, url, { headers: SPOOFS[i % SPOOFS.length] });
    expect(r.status, r.text).toBe(200);
    expectLimitHeaders(r, limit, limit - 1 - i);
  }
  for (const headers of SPOOFS) expectRefused(await requestFrom(A, url, { headers }), limit);
}

async function keyCount(url: string): Promise<number> {
  const r = await requestFrom(A, `${url}/v1/bundles/debug`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  expect(r.status).toBe(200);
  return r.body.api_keys.count as number;
}


const MODES = [
  { name: "embedded (PGlite, in-process limits)", env: () => ({}) },
  ...(pg && redis
    ? [
        {
          name: "production (PostgreSQL + Redis)",
          env: () => ({ DATABASE_URL: `${POSTGRES_URL}?schema=lim_${randomBytes(6).toString("hex")}`, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}` }),
        },
      ]
    : []),
];

for (const mode of MODES) {
  describe(`per-IP limits — ${mode.name}`, () => {
    let fx: Fixture;
    beforeAll(async () => {
      fx = await startFixture({ env: { ...mode.env(), ...LIMIT_ENV } });
    }, 180_000);
    afterAll(async () => fx?.close());

    it(`mints ${MINTS} free keys per IP per hour, then 429 with Retry-After and RateLimit-*; nothing minted when refused; another IP is unaffected`, async () => {
      const url = fx.svc.url;
      const keysBefore = await keyCount(url);
      for (let i = 0; i < MINTS; i++) {
        const r = await requestFrom(A, `${url}/v1/free-key`);
        expect(r.status, r.text).toBe(200);
        expect(r.body.api_key).toMatch(/^echo_fk_/);
        expectLimitHeaders(r, MINTS, MINTS - 1 - i);
      }
      expectRefused(await requestFrom(A, `${url}/v1/free-key?email=agent%40example.com`), MINTS);
      // Posing as another client does not reopen the bucket.
      for (const headers of SPOOFS) expectRefused(await requestFrom(A, `${url}/v1/free-key`, { headers }), MINTS);
      // The MCP tool mints from the same per-IP bucket.
      const tool = await callToolFrom(A, url, "get_free_api_key", {});
      expect(tool.isError).toBe(true);
      expect(JSON.parse(tool.content[0]!.text)).toMatchObject({ error: { code: "rate_limited" } });
      expect(await keyCount(url)).toBe(keysBefore + MINTS);

      const other = await requestFrom(B, `${url}/v1/free-key`);
      expect(other.status, other.text).toBe(200);
      expectLimitHeaders(other, MINTS, MINTS - 1);
      expect(await keyCount(url)).toBe(keysBefore + MINTS + 1);
    });

    it("counts /v1/sample by the real client address: a forged x-echo-client-ip does not change the bucket", async () => {
      const url = fx.svc.url;
      await expectOneBucketDespiteSpoofs(`${url}/v1/sample`, SAMPLES);
      const other = await requestFrom(B, `${url}/v1/sample`);
      expect(other.status, other.text).toBe(200);
      expectLimitHeaders(other, SAMPLES, SAMPLES - 1);
    });
  });
}

describe("per-IP limits under plain `next start` (no custom server stamps the client IP)", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ entry: "next-start", env: LIMIT_ENV });
  }, 180_000);
  afterAll(async () => fx?.close());

  // Without the custom server the routes cannot see the socket and (TRUST_PROXY_HOPS=0)
  // trust no header, so every caller shares one bucket: strict, never bypassable.
  it("ignores x-echo-client-ip: each spoofed value counts against the same bucket", async () => {
    const url = fx.svc.url;
    await expectOneBucketDespiteSpoofs(`${url}/v1/sample`, SAMPLES);
  });

  it("ignores x-echo-client-ip for free-key minting too", async () => {
    const url = fx.svc.url;
    await expectOneBucketDespiteSpoofs(`${url}/v1/free-key`, MINTS);
  });
});

describe("per-IP limits with Redis unreachable (REDIS_URL points at a closed port)", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ env: { ...LIMIT_ENV, REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}` } });
  }, 180_000);
  afterAll(async () => fx?.close());

  it("still limits free-key minting per IP (in-process counters), never unlimited; another IP unaffected", async () => {
    const url = fx.svc.url;
    const keysBefore = await keyCount(url);
    for (let i = 0; i < MINTS; i++) {
      const r = await requestFrom(A, `${url}/v1/free-key`);
      expect(r.status, r.text).toBe(200);
      expectLimitHeaders(r, MINTS, MINTS - 1 - i);
    }
    expectRefused(await requestFrom(A, `${url}/v1/free-key`), MINTS);
    const other = await requestFrom(B, `${url}/v1/free-key`);
    expect(other.status, other.text).toBe(200);
    expect(await keyCount(url)).toBe(keysBefore + MINTS + 1);
    expect(fx.svc.logs()).toMatch(/"event":"ratelimit\.store_unavailable"/);
  });

  it("keeps serving /v1/sample within its limit, then 429 (not fail-open)", async () => {
    const url = fx.svc.url;
    const started = Date.now();
    for (let i = 0; i < SAMPLES; i++) {
      const r = await requestFrom(A, `${url}/v1/sample`);
      expect(r.status, r.text).toBe(200);
      expectLimitHeaders(r, SAMPLES, SAMPLES - 1 - i);
    }
    expectRefused(await requestFrom(A, `${url}/v1/sample`), SAMPLES);
    // Known-down Redis is skipped, not waited for (1 s timeout) on every call.
    expect(Date.now() - started).toBeLessThan(SAMPLES * 1000);
    const other = await requestFrom(B, `${url}/v1/sample`);
    expect(other.status, other.text).toBe(200);
  });
});
