/**
 * CoinGecko keys travel in a plan-specific header: `x-cg-pro-api-key` on the Pro host,
 * `x-cg-demo-api-key` otherwise. Checked on the rule itself and on the headers a real
 * request carries (a loopback server records them; Pro is forced with COINGECKO_PLAN
 * because pro-api.coingecko.com cannot be reached from a test).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { clearCache } from "@/lib/market/cache";
import { coingeckoKeyHeader, globalMarket } from "@/lib/market/sources/coingecko";

describe("coingeckoKeyHeader", () => {
  it.each([
    ["https://pro-api.coingecko.com", "auto", "x-cg-pro-api-key"],
    ["https://PRO-API.coingecko.com/", "auto", "x-cg-pro-api-key"],
    ["https://api.coingecko.com", "auto", "x-cg-demo-api-key"],
    ["http://127.0.0.1:8080/coingecko", "auto", "x-cg-demo-api-key"],
    ["https://pro-api.coingecko.com.evil.example", "auto", "x-cg-demo-api-key"],
    ["http://127.0.0.1:8080/coingecko", "pro", "x-cg-pro-api-key"],
    ["https://pro-api.coingecko.com", "demo", "x-cg-demo-api-key"],
  ] as const)("%s with plan %s → %s", (url, plan, header) => {
    expect(coingeckoKeyHeader(url, plan)).toBe(header);
  });
});

describe("CoinGecko key header on the wire", () => {
  let server: Server;
  let base: string;
  const seen: IncomingHttpHeaders[] = [];
  const saved = { ...process.env };
  const GLOBAL = {
    data: {
      active_cryptocurrencies: 10000,
      markets: 1000,
      total_market_cap: { usd: 3e12 },
      total_volume: { usd: 1e11 },
      market_cap_percentage: { btc: 55, eth: 12 },
      market_cap_change_percentage_24h_usd: 1.2,
      updated_at: 1_700_000_000,
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(GLOBAL));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/coingecko`;
  });
  afterAll(async () => {
    process.env = saved;
    resetEnvForTests();
    await new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    seen.length = 0;
    clearCache();
  });

  async function headersFor(env: Record<string, string | undefined>): Promise<IncomingHttpHeaders> {
    process.env = { ...saved, COINGECKO_BASE_URL: base, LOG_LEVEL: "silent", ...env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
    resetEnvForTests();
    await globalMarket();
    expect(seen).toHaveLength(1);
    return seen[0]!;
  }

  it("sends a Demo key as x-cg-demo-api-key on a non-Pro host", async () => {
    const h = await headersFor({ COINGECKO_API_KEY: "CG-demo-123", COINGECKO_PLAN: undefined });
    expect(h["x-cg-demo-api-key"]).toBe("CG-demo-123");
    expect(h["x-cg-pro-api-key"]).toBeUndefined();
  });

  it("sends a Pro key as x-cg-pro-api-key (and no Demo header) on the Pro plan", async () => {
    const h = await headersFor({ COINGECKO_API_KEY: "CG-pro-456", COINGECKO_PLAN: "pro" });
    expect(h["x-cg-pro-api-key"]).toBe("CG-pro-456");
    expect(h["x-cg-demo-api-key"]).toBeUndefined();
  });

  it("sends no key header without a key", async () => {
    const h = await headersFor({ COINGECKO_API_KEY: undefined, COINGECKO_PLAN: "pro" });
    expect(h["x-cg-pro-api-key"]).toBeUndefined();
    expect(h["x-cg-demo-api-key"]).toBeUndefined();
  });
});
