/**
 * /health over HTTP against the built service and the upstream simulator: every
 * provider is actively probed (a fresh server with no traffic still knows), a failing
 * provider degrades the status by name within the probe timeout, one round of probes
 * serves every caller for 30 s, and an unreachable database is 503 "down". With that
 * database the server still starts, /v1/manifest still answers 200 from the catalog,
 * and every call that needs the database answers 503 service_unavailable, never 500.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIM_PROVIDERS } from "@/lib/upstream-sim/providers";
import { PRODUCTS } from "@/lib/catalog";
import { startFixture, type Fixture } from "../helpers/fixture";

const PROVIDERS = SIM_PROVIDERS.map((p) => p.name).sort();

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Error bodies name a code and a message, never internals. */
function expectServiceUnavailable(r: { status: number; body: any; headers: Headers }, what: string): void {
  expect(r.status, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(503);
  expect(r.body.error.code, what).toBe("service_unavailable");
  expect(Number(r.headers.get("retry-after")), what).toBeGreaterThan(0);
  const text = JSON.stringify(r.body);
  expect(text, what).not.toMatch(/ECONNREFUSED|postgres|prisma|\bat \S+\.(ts|js)|stack/i);
}

describe("/health with every upstream healthy", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => fx?.close());

  it("answers 200 ok after probing every provider and the database, before any product was called", async () => {
    fx.sim.resetCounts();
    const { status, body } = await fx.json("/health");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.database).toMatchObject({ ok: true, mode: "pglite" });
    expect(Object.keys(body.upstreams).sort()).toEqual(PROVIDERS);
    expect(body.degraded_upstreams).toEqual([]);
    for (const name of PROVIDERS) {
      const u = body.upstreams[name];
      if (name === "etherscan") {
        // No key in this configuration: listed, not probed, not counted against health.
        expect(u).toMatchObject({ status: "not_configured" });
        expect(fx.sim.total(name)).toBe(0);
      } else {
        expect(u, name).toMatchObject({ status: "ok", error: null });
        expect(fx.sim.total(name), name).toBe(1);
      }
    }
  });

  it("serves one round of probes to every caller for 30 s: repeated and concurrent calls send no upstream request", async () => {
    fx.sim.resetCounts();
    const first = await fx.json("/health");
    const all = await Promise.all(Array.from({ length: 20 }, () => fx.json("/health")));
    for (const r of all) {
      expect(r.status).toBe(200);
      expect(r.body.upstreams_checked_at).toBe(first.body.upstreams_checked_at);
    }
    expect(fx.sim.total()).toBe(0);
  });
});

describe("/health with failing upstreams", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ env: { ETHERSCAN_API_KEY: "test-etherscan-key" } });
  });
  afterAll(async () => fx?.close());

  it("answers 200 degraded naming exactly the failing providers, without waiting on a hung one", async () => {
    fx.sim.setFault("kraken", { mode: "error", status: 502 });
    fx.sim.setFault("goplus", { mode: "hang" });
    fx.sim.setFault("polymarket", { mode: "malformed" });
    const t0 = Date.now();
    const { status, body } = await fx.json("/health");
    const ms = Date.now() - t0;
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.database.ok).toBe(true);
    expect(body.degraded_upstreams.sort()).toEqual(["goplus", "kraken", "polymarket"]);
    expect(body.upstreams.kraken).toMatchObject({ status: "down", error: expect.stringMatching(/HTTP 502/) });
    expect(body.upstreams.goplus).toMatchObject({ status: "down", error: expect.stringMatching(/timed out/) });
    expect(body.upstreams.polymarket).toMatchObject({ status: "down", error: expect.stringMatching(/unexpected response format/) });
    // With a key, Etherscan is probed like the others, and its key never shows.
    expect(body.upstreams.etherscan).toMatchObject({ status: "ok" });
    expect(JSON.stringify(body)).not.toContain("test-etherscan-key");
    for (const name of PROVIDERS.filter((n) => !["goplus", "kraken", "polymarket"].includes(n))) expect(body.upstreams[name].status, name).toBe("ok");
    // The probes run in parallel with a 2.5 s timeout: a hung provider costs one timeout.
    expect(ms).toBeLessThan(5_000);
  });
});

describe("database unreachable", () => {
  let fx: Fixture;
  beforeAll(async () => {
    const port = await closedPort();
    fx = await startFixture({ env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/test`, ADMIN_TOKEN: "admin-token-for-the-outage-test" } });
  });
  afterAll(async () => fx?.close());

  it("starts anyway and answers /health 503 down with the database error", async () => {
    const { status, body, headers } = await fx.json("/health");
    expect(status).toBe(503);
    expect(body.status).toBe("down");
    expect(body.database.ok).toBe(false);
    expect(body.database.error).toMatch(/ECONNREFUSED|connect/i);
    expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
    // Upstreams are still reported: operators see the database is the only problem.
    expect(Object.keys(body.upstreams).sort()).toEqual(PROVIDERS);
    const ready = await fx.json("/health/ready");
    expect(ready.status).toBe(503);
    expect((await fx.json("/health/live")).status).toBe(200);
  });

  it("answers /v1/manifest 200 from the catalog and says the attestation key is missing", async () => {
    const { status, body, headers } = await fx.json("/v1/manifest");
    expect(status).toBe(200);
    expect(body.endpoints.map((e: { path: string }) => e.path)).toEqual(PRODUCTS.map((p) => p.path));
    for (const e of body.endpoints) expect(Number(e.price_usd)).toBeCloseTo(Number(PRODUCTS.find((p) => p.path === e.path)!.httpPrice), 9);
    expect(body.attestation_public_key).toBeNull();
    expect(body.complete).toBe(false);
    expect(body.unavailable).toEqual([{ field: "attestation_public_key", reason: expect.stringMatching(/database/) }]);
    expect(headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 service_unavailable with Retry-After, never 500, wherever the database is needed", async () => {
    const fakeKey = `echo_fk_${"A".repeat(43)}`;
    expectServiceUnavailable(await fx.json("/v1/free-key"), "/v1/free-key");
    expectServiceUnavailable(await fx.json("/v1/usage", { headers: { "X-Api-Key": fakeKey } }), "/v1/usage");
    expectServiceUnavailable(await fx.json("/v1/fng", { headers: { "X-Api-Key": fakeKey } }), "/v1/fng with a key");
    expectServiceUnavailable(await fx.json("/v1/bundles/debug", { headers: { Authorization: "Bearer admin-token-for-the-outage-test" } }), "/v1/bundles/debug");
  });

  it("keeps serving what needs no database: the 402 requirement, the keyless sample, discovery", async () => {
    const unpaid = await fx.json("/v1/fng");
    expect(unpaid.status).toBe(402);
    expect(unpaid.body.endpoint).toBe("/v1/fng");
    expect((await fx.json("/v1/sample")).status).toBe(200);
    expect((await fx.json("/openapi.json")).status).toBe(200);
    const info = await fx.json("/", { headers: { Accept: "application/json" } });
    expect(info.status).toBe(200);
  });

  it("answers the free MCP key tool with a service_unavailable result, not a crash", async () => {
    const res = await fx.get("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_free_api_key", arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const data = text.includes("data:") ? text.split("\n").find((l) => l.startsWith("data:"))!.slice(5) : text;
    const result = JSON.parse(data).result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text).error).toMatchObject({ code: "service_unavailable", status: 503 });
  });
});
