/**
 * /v1/sample: 10 calls per hour per client IP in a fixed window, then 429 with
 * Retry-After and RateLimit headers; a spoofed X-Forwarded-For does not buy more calls.
 * Embedded (in-process counters) and Redis (@upstash/ratelimit on 127.0.0.1:6379).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasRedis, REDIS_URL } from "../helpers/services";

const redis = await hasRedis();
if (!redis && process.env.REQUIRE_SERVICES === "1") throw new Error("Redis is required (REQUIRE_SERVICES=1) but not reachable");

const MODES = [
  { name: "in-process counters", env: {} },
  ...(redis ? [{ name: "Redis (@upstash/ratelimit)", env: { REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}` } }] : []),
];

for (const mode of MODES) {
  describe(`/v1/sample limit — ${mode.name}`, () => {
    let fx: Fixture;
    beforeAll(async () => {
      // Redis keeps counters across runs; each run writes under its own key prefix.
      fx = await startFixture({ env: mode.env });
    });
    afterAll(async () => fx?.close());

    it("serves 10 calls, then 429 with Retry-After and RateLimit headers, also with a spoofed X-Forwarded-For", async () => {
      const results: Response[] = [];
      for (let i = 0; i < 10; i++) results.push(await fx.get("/v1/sample", { headers: { "X-Forwarded-For": `203.0.113.${i}` } }));
      for (const [i, r] of results.entries()) {
        expect(r.status, `call ${i + 1}`).toBe(200);
        expect(r.headers.get("ratelimit-limit")).toBe("10");
        expect(r.headers.get("ratelimit-remaining")).toBe(String(9 - i));
      }
      const body = await results[0]!.json();
      expect(body).toMatchObject({ sentiment: expect.any(Number), label: expect.any(String), ts: expect.any(String) });
      expect(body).not.toHaveProperty("components");

      const over = await fx.get("/v1/sample", { headers: { "X-Forwarded-For": "198.51.100.99" } });
      expect(over.status).toBe(429);
      const retry = Number(over.headers.get("retry-after"));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(3600);
      expect(over.headers.get("ratelimit-remaining")).toBe("0");
      const err = await over.json();
      expect(err.error).toMatchObject({ code: "rate_limited", retry_after: retry });
    });
  });
}
