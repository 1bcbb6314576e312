/**
 * What an instance asks of its database. PostgreSQL: the pool opens at most
 * DATABASE_POOL_MAX connections (default 10 per instance; docs/deployment.md), counted in
 * pg_stat_activity while the test holds a lock that every request waits on, so each
 * request keeps its connection and the pool is as full as it can get. Embedded database:
 * a DATA_DIR that cannot be used answers 503 with Retry-After on /health/ready and on a
 * call that needs the database (never a 500), under the custom server and plain next start.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const hasPg = await hasPostgres();
if (!hasPg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");

const REQUESTS = 24;

describe.skipIf(!hasPg)("DATABASE_POOL_MAX: connections one instance opens to PostgreSQL", () => {
  for (const [label, poolMax, expected] of [
    ["DATABASE_POOL_MAX=3", "3", 3],
    ["the default", undefined, 10],
  ] as const) {
    it(`opens at most ${expected} with ${label}, while ${REQUESTS} requests wait on the database`, async () => {
      const schema = `pool_${randomBytes(6).toString("hex")}`;
      const app = `echo_pool_${randomBytes(4).toString("hex")}`;
      const fx: Fixture = await startFixture({
        env: {
          DATABASE_URL: `${POSTGRES_URL}?schema=${schema}&application_name=${app}`,
          DATABASE_POOL_MAX: poolMax,
          FREE_KEY_MINTS_PER_HOUR: "1000",
          DATA_DIR: undefined,
        },
      });
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        expect((await fx.get("/health/ready")).status).toBe(200);
        const count = async () =>
          Number((await admin.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [app])).rows[0]!.n);

        // Every mint inserts into api_keys; while this transaction holds the lock, each
        // request that reached the database keeps its pool connection.
        const locker = new pg.Client({ connectionString: POSTGRES_URL });
        await locker.connect();
        await locker.query("BEGIN");
        await locker.query(`LOCK TABLE "${schema}".api_keys IN SHARE ROW EXCLUSIVE MODE`);
        const mints = Array.from({ length: REQUESTS }, () => fx.get("/v1/free-key"));
        let peak = 0;
        // Until the pool is full (or 3 s), then 1 s more: it must not grow past its bound.
        const start = Date.now();
        let fullAt = 0;
        while (Date.now() - start < 3000 && (!fullAt || Date.now() - fullAt < 1000)) {
          peak = Math.max(peak, await count());
          if (peak >= expected && !fullAt) fullAt = Date.now();
          await new Promise((r) => setTimeout(r, 20));
        }
        await locker.query("COMMIT");
        await locker.end();
        const answers = await Promise.all(mints);
        expect(answers.map((r) => r.status)).toEqual(Array(REQUESTS).fill(200));
        expect(peak).toBe(expected);
      } finally {
        await admin.end();
        await fx.close();
      }
    }, 120_000);
  }
});

describe("an unusable DATA_DIR (embedded database)", () => {
  const dir = mkdtempSync(join(tmpdir(), "echo-datadir-"));
  // A file where the folder should be: no one, root included, can create the database in it.
  const notADir = join(dir, "data");
  writeFileSync(notADir, "not a folder");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const entry of ["server", "next-start"] as const) {
    it(`answers 503 with Retry-After, never 500 (${entry})`, async () => {
      const fx = await startFixture({ entry, env: { DATA_DIR: notADir, DATABASE_URL: undefined } });
      try {
        const ready = await fx.json("/health/ready");
        expect(ready.status).toBe(503);
        expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(JSON.stringify(ready.body)).toMatch(/DATA_DIR .* is not writable/);

        const mint = await fx.json("/v1/free-key");
        expect(mint.status, JSON.stringify(mint.body)).toBe(503);
        expect(Number(mint.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(mint.body.error.code).toBe("service_unavailable");

        const health = await fx.json("/health");
        expect(health.status).toBe(503);
        // What needs no database still works.
        expect((await fx.get("/v1/manifest")).status).toBe(200);
      } finally {
        await fx.close();
      }
    }, 120_000);
  }
});
