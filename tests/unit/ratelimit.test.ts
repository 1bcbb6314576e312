/**
 * Fixed-window limits: the in-process limiter and @upstash/ratelimit over a real Redis
 * connection (127.0.0.1:6379, skipped when absent) must both allow exactly `limit`
 * requests of a concurrent burst and report Retry-After for the rest; so must the
 * Redis limiter when its Redis is unreachable (it counts in-process, never fails open).
 * The serverless variant, Upstash's REST Redis through @upstash/redis, runs against a
 * loopback REST shim over the same real Redis (tests/helpers/upstash-rest.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { resetEnvForTests } from "@/lib/config/env";
import { rateLimit, rateLimitHeaders } from "@/lib/limits/ratelimit";
import { closedPort, hasRedis, REDIS_URL } from "../helpers/services";
import { startUpstashRestShim, type RestShim } from "../helpers/upstash-rest";

const redisUp = await hasRedis();
const LIMITER = Symbol.for("echo.limiter");

const DEAD_REDIS_URL = `redis://127.0.0.1:${await closedPort()}`;

let shim: RestShim | undefined;

async function useMode(mode: "memory" | "redis" | "redis-down" | "upstash-rest"): Promise<void> {
  delete (globalThis as Record<symbol, unknown>)[LIMITER];
  delete process.env.UPSTASH_REDIS_REST_URL;
  delete process.env.UPSTASH_REDIS_REST_TOKEN;
  if (mode === "upstash-rest") {
    shim ??= await startUpstashRestShim(REDIS_URL, `tok-${randomUUID()}`);
    delete process.env.REDIS_URL;
    process.env.UPSTASH_REDIS_REST_URL = shim.url;
    process.env.UPSTASH_REDIS_REST_TOKEN = shim.token;
    process.env.REDIS_KEY_PREFIX = `test-${randomUUID()}`;
    process.env.SAMPLE_LIMIT_PER_HOUR = "10";
    resetEnvForTests();
    // One call first: HTTP keep-alive and the script cache are warm before the burst.
    await rateLimit("sample", `warm-up-${randomUUID()}`);
    return;
  } else if (mode !== "memory") {
    process.env.REDIS_URL = mode === "redis" ? REDIS_URL : DEAD_REDIS_URL;
    process.env.REDIS_KEY_PREFIX = `test-${randomUUID()}`;
  }
  else delete process.env.REDIS_URL;
  process.env.SAMPLE_LIMIT_PER_HOUR = "10";
  resetEnvForTests();
}

afterAll(async () => {
  await shim?.close();
  delete process.env.REDIS_URL;
  delete process.env.UPSTASH_REDIS_REST_URL;
  delete process.env.UPSTASH_REDIS_REST_TOKEN;
  delete (globalThis as Record<symbol, unknown>)[LIMITER];
  resetEnvForTests();
});

for (const mode of ["memory", "redis", "redis-down", "upstash-rest"] as const) {
  describe.skipIf((mode === "redis" || mode === "upstash-rest") && !redisUp)(`rate limit (${mode})`, () => {
    it("allows exactly 10 of 25 concurrent calls in one fixed window", async () => {
      await useMode(mode);
      const ip = `203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 25 }, () => rateLimit("sample", ip)));
      expect(results.filter((r) => r.success)).toHaveLength(10);
      const refused = results.find((r) => !r.success)!;
      expect(refused.remaining).toBe(0);
      const windowEnd = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
      expect(Math.abs(refused.reset - windowEnd)).toBeLessThan(2000);
      const h = rateLimitHeaders(refused, 3600);
      expect(Number(h["Retry-After"])).toBeGreaterThan(0);
      expect(Number(h["Retry-After"])).toBeLessThanOrEqual(3600);
      expect(h["RateLimit-Limit"]).toBe("10");
      // Another client is counted separately.
      expect((await rateLimit("sample", `${ip}-other`)).success).toBe(true);
      // The REST variant really went over HTTP to the (shimmed) Upstash endpoint.
      if (mode === "upstash-rest") expect(shim!.commands.filter((c) => c.startsWith("EVAL")).length).toBeGreaterThanOrEqual(26);
    });
  });
}
