/**
 * The database goes away while the service runs (PostgreSQL behind a loopback TCP proxy
 * that the test cuts and restores). /v1/attested-quote, whose handler reads the signing
 * key from the database, answers 503 service_unavailable with Retry-After instead of a
 * 500, charges nothing, and works again once the database is back; /health follows.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const pg = await hasPostgres();
if (!pg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function pgProxy(target: URL): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
  const stop = async () => {
    // close() waits for open connections, so drop them in the same tick.
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  const port = await listen(0);
  return { port, cut: stop, restore: async () => void (await listen(port)), close: stop };
}

describe.skipIf(!pg)("database outage while serving", () => {
  let proxy: Awaited<ReturnType<typeof pgProxy>>;
  let fx: Fixture;
  let key: string;
  beforeAll(async () => {
    proxy = await pgProxy(new URL(POSTGRES_URL));
    const url = new URL(POSTGRES_URL);
    url.port = String(proxy.port);
    url.searchParams.set("schema", `outage_${randomBytes(5).toString("hex")}`);
    fx = await startFixture({ env: { DATABASE_URL: url.toString() } });
    const minted = await fx.json("/v1/free-key");
    expect(minted.status).toBe(200);
    key = minted.body.api_key;
  });
  afterAll(async () => {
    await fx?.close();
    await proxy?.close().catch(() => undefined);
  });

  const usedToday = async () => {
    const u = await fx.json("/v1/usage", { headers: { "X-Api-Key": key } });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    return u.body.used_today as number;
  };

  it("answers 503 service_unavailable (not 500) when the signing key cannot be read, and charges nothing", async () => {
    // One charged call while the database is up (the gate now knows the key).
    const fng = await fx.json("/v1/fng", { headers: { "X-Api-Key": key } });
    expect(fng.status).toBe(200);
    expect(await usedToday()).toBe(1);

    await proxy.cut();
    const { status, body, headers } = await fx.json("/v1/attested-quote?ticker=xlm", { headers: { "X-Api-Key": key } });
    expect(status, JSON.stringify(body)).toBe(503);
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).toMatch(/Attested quote/);
    expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
    expect(headers.get("x-receipt-id")).toBeNull();
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|prisma|\bat \S+\.(ts|js)|stack/i);
    // The cause is in the log, for operators.
    expect(fx.svc.logs()).toMatch(/"event":"unhandled_error".*"product":"attested-quote"/);

    const health = await fx.json("/health");
    expect(health.status).toBe(503);
    expect(health.body.status).toBe("down");
    const manifest = await fx.json("/v1/manifest");
    expect(manifest.status).toBe(200);
    expect(manifest.body.complete).toBe(false);

    await proxy.restore();
    // Nothing was charged for the failed call; the pool reconnects on its own.
    expect(await usedToday()).toBe(1);
    expect((await fx.json("/health")).body.database.ok).toBe(true);
    const quote = await fx.json("/v1/attested-quote?ticker=xlm", { headers: { "X-Api-Key": key } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body.attestation.alg).toBe("Ed25519");
    expect(await usedToday()).toBe(2);
  });
});
