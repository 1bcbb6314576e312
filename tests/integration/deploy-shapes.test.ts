/**
 * The deploy shapes without the custom server, smoke-tested against real PostgreSQL and
 * Redis: `output: "standalone"`'s server.js (what the Dockerfile runs, assembled by the
 * same scripts/standalone.mjs) and plain `next start` (what platforms run), both behind
 * a trusted proxy (TRUST_PROXY_HOPS=1; the test sends X-Forwarded-For as the proxy
 * would). Each: health, a free key minted and used, a paid call's 402, MCP tools/list, A2A
 * 1.0 and 0.3 messages paid with the key,
 * and per-client mint limits keyed on the forwarded address.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";
import { PRODUCTS } from "@/lib/catalog";

const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const MINTS = 5;
const PAY_TO = "0x00000000000000000000000000000000000A11CE";

for (const entry of ["standalone", "next-start"] as const) {
  describe.skipIf(!pg || !redis)(`deploy shape: ${entry} with DATABASE_URL + REDIS_URL behind a trusted proxy`, () => {
    let fx: Fixture;
    beforeAll(async () => {
      fx = await startFixture({
        entry,
        env: {
          DATABASE_URL: `${POSTGRES_URL}?schema=deploy_${randomBytes(6).toString("hex")}`,
          DATABASE_POOL_MAX: "3",
          REDIS_URL,
          REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
          TRUST_PROXY_HOPS: "1",
          FREE_KEY_MINTS_PER_HOUR: String(MINTS),
          PAY_TO_ADDRESS: PAY_TO,
          // x402 on EVM is offered with a facilitator; the 402 is answered before any call to it.
          FACILITATOR_URL: "http://127.0.0.1:9/facilitator",
          DATA_DIR: undefined,
        },
      });
    }, 900_000);
    afterAll(async () => fx?.close());

    const from = (ip: string, init: RequestInit = {}) => ({ ...init, headers: { ...(init.headers as Record<string, string>), "X-Forwarded-For": ip } });

    it("answers /health/ready and /health from PostgreSQL", async () => {
      expect((await fx.get("/health/ready")).status).toBe(200);
      const health = await fx.json("/health");
      expect(health.status).toBe(200);
      expect(health.body.status).toMatch(/^(ok|degraded)$/);
    });

    it("mints a free key and serves a call with it; a paid call without credentials answers 402", async () => {
      const minted = await fx.json("/v1/free-key?email=smoke%40example.com", from("198.51.100.10"));
      expect(minted.status, JSON.stringify(minted.body)).toBe(200);
      const key = minted.body.api_key as string;
      const call = await fx.get("/v1/fng", { headers: { "X-Api-Key": key } });
      expect(call.status, await call.clone().text()).toBe(200);
      expect(call.headers.get("x-quota-remaining")).toBe("49");

      const paid = await fx.get("/v1/sentiment-report");
      expect(paid.status).toBe(402);
      const requirement = JSON.parse(Buffer.from(paid.headers.get("payment-required")!, "base64").toString("utf8"));
      expect(requirement.accepts[0]).toMatchObject({ network: "eip155:8453" });
      expect(requirement.accepts[0].payTo.toLowerCase()).toBe(PAY_TO.toLowerCase());
    });

    it("lists every MCP tool over streamable HTTP", async () => {
      const client = new Client({ name: "deploy-smoke", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${fx.svc.url}/mcp`)));
      try {
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        for (const p of PRODUCTS) if (p.tool) expect(names).toContain(p.tool.name);
        expect(names).toContain("get_free_api_key");
      } finally {
        await client.close();
      }
    });

    // The A2A routes load the SDK's Express router (0.3 HTTP+JSON), whose dependency tree
    // require()s an ES module: on Node 22.12/22.13 that failed inside Next's external
    // import and every /a2a/v1 request answered 500; the oldest line CI runs must load it.
    it("answers A2A 1.0 over HTTP+JSON and 0.3 over JSON-RPC, paid with a free key", async () => {
      const key = (await fx.json("/v1/free-key", from("198.51.100.20"))).body.api_key as string;
      const v1 = await fx.json("/a2a/v1/message:send", {
        method: "POST",
        headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ message: { messageId: randomBytes(8).toString("hex"), role: "ROLE_USER", parts: [{ text: "fng" }], metadata: { skill: "fng", api_key: key } } }),
      });
      expect(v1.status, JSON.stringify(v1.body)).toBe(200);
      expect(v1.body.task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(v1.body.task.artifacts?.length).toBeGreaterThan(0);
      const v03 = await fx.json("/a2a/jsonrpc", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: { message: { kind: "message", messageId: randomBytes(8).toString("hex"), role: "user", parts: [{ kind: "text", text: "fng" }], metadata: { skill: "fng", api_key: key } } },
        }),
      });
      expect(v03.status, JSON.stringify(v03.body)).toBe(200);
      expect(v03.body.result?.status?.state, JSON.stringify(v03.body)).toBe("completed");
    });

    it.runIf(entry === "standalone")("ships under 500 MB with no build, test or dev tool (nor the image optimizer's sharp) in its node_modules", () => {
      const out = join(process.cwd(), process.env.NEXT_DIST_DIR || ".next", "standalone");
      const bytes = (dir: string): number =>
        readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => sum + (e.isDirectory() ? bytes(join(dir, e.name)) : e.isFile() ? statSync(join(dir, e.name)).size : 0), 0);
      const mb = bytes(out) / 1e6;
      console.log(`standalone folder: ${mb.toFixed(1)} MB`);
      expect(mb).toBeLessThan(500);
      for (const tool of ["typescript", "prisma", "@playwright", "playwright-core", "hardhat", "vitest", "x402-fetch", "@next/swc-linux-x64-gnu", "tsx", "esbuild", "sharp", "@img"]) {
        expect(existsSync(join(out, "node_modules", tool)), tool).toBe(false);
      }
    });

    it("'/' answers JSON and HTML by Accept, both with Vary: Accept (instrumentation.ts, no custom server needed)", async () => {
      const varies = (r: Response) => r.headers.get("vary")?.toLowerCase().split(/\s*,\s*/) ?? [];
      const json = await fx.get("/", { headers: { Accept: "application/json" } });
      expect(json.status).toBe(200);
      expect(json.headers.get("content-type")).toMatch(/^application\/json/);
      expect(varies(json)).toContain("accept");
      // Next sets every App Router page's Vary itself, after next.config headers and the
      // proxy; the hook on Node's HTTP server adds Accept to what Next set.
      const html = await fx.get("/", { headers: { Accept: "text/html" } });
      expect(html.status).toBe(200);
      expect(html.headers.get("content-type")).toMatch(/^text\/html/);
      expect(varies(html)).toContain("accept");
      expect(varies(html)).toContain("rsc");
      // Other pages keep Next's Vary untouched.
      const catalog = await fx.get("/catalog", { headers: { Accept: "text/html" } });
      expect(catalog.status).toBe(200);
      expect(varies(catalog)).not.toContain("accept");
    });

    // The container's entry (serve.js) and plain `next start` (through instrumentation.ts's
    // server hook) answer what Node's parser rejects in the JSON error shape OpenAPI declares.
    it("a 100 KB request header gets 431 with the JSON error shape", async () => {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(fx.svc.port, "127.0.0.1");
        const chunks: Buffer[] = [];
        socket.on("data", (c) => chunks.push(c));
        socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.on("error", (err) => (chunks.length ? resolve(Buffer.concat(chunks).toString("utf8")) : reject(err)));
        socket.write(`GET /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100 * 1024)}\r\n\r\n`);
      });
      const [head, body = ""] = raw.split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toMatch(/^content-type: application\/json/im);
      expect(JSON.parse(body)).toEqual({ error: { code: "headers_too_large", message: expect.stringContaining("headers") } });
    });

    it("limits free-key mints per forwarded client: the 6th from one client is 429, another client still mints", async () => {
      const a = "203.0.113.7";
      for (let i = 0; i < MINTS; i++) {
        const r = await fx.get("/v1/free-key", from(a));
        expect(r.status, await r.clone().text()).toBe(200);
      }
      const refused = await fx.get("/v1/free-key", from(a));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      const other = await fx.get("/v1/free-key", from("203.0.113.8"));
      expect(other.status, await other.clone().text()).toBe(200);
    });
  });
}
