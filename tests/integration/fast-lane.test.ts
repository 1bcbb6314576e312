/**
 * The fast lane (lib/server/fast-lane.ts) answers what Next answers, byte for byte.
 *
 * Two `npm start` servers on one upstream simulator: one with the lane, one with
 * FAST_LANE=0 (every request through Next). Every request is sent with the same Host,
 * so the answers name the same origin. On the lane's server a route's first request goes
 * through Next (the lane loads the route module Next has just loaded) and the later ones
 * through the lane: its debug log names each route it served, so the comparison is
 * lane against Next, not Next against itself. Compared: the status line, every header
 * but Date, Keep-Alive and Server-Timing's durations, and the body (after un-gzipping, with
 * the response's Content-Encoding compared too), with only the values that differ between
 * any two calls (fresh ids, timestamps, the servers' own keys) put aside by name.
 *
 * Covered: every paid path's 402, a key call, refusals (422, 401, 402, 404, 405), HEAD
 * and OPTIONS, the JSON discovery documents, MCP and A2A calls, a compressed answer and a
 * request without a usable Host. A last check proves the lane and Next share one instance
 * of the route modules: a web page rendered through Next first, then a paid path through
 * Next, then through the lane, whose log says the route module it called was the one
 * already in Node's module cache.
 */
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRODUCTS } from "@/lib/catalog";
import { jsonDocumentRoutes } from "@/lib/server/lane-routes";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";

const HOST = "lane.test";
const ENV = {
  UPSTREAM_MODE: "live",
  LOG_LEVEL: "debug",
  PAY_TO_ADDRESS: "0x2222222222222222222222222222222222222222",
  CACHE_DISABLED: "1",
};

interface Raw {
  status: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** One request over a fresh connection; the raw status line, header list and body bytes. */
function raw(svc: Service, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: svc.port, path, method: init.method ?? "GET", headers: { Host: HOST, ...init.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          resolve({ status: `${res.statusCode} ${res.statusMessage}`, headers, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Values that differ between any two calls of the same server, by field name. */
const VOLATILE_FIELDS = /"([a-z_]+_ms|id|payment_identifier|paymentId|payment_id|request_id|as_of|asOf|timestamp|generated_at|updated_at|fetched_at|issued_at|expires_at|nonce|validBefore|validAfter|created_at|age_s|age_seconds|ts|time|api_key|key_id|receipt_id|remaining|quota_remaining|messageId|taskId|contextId)":\s*("[^"]*"|-?[0-9.]+)/g;

function comparable(r: Raw): { status: string; headers: string[]; body: string } {
  const encoding = r.headers.find(([k]) => k === "content-encoding")?.[1];
  const body = encoding === "gzip" ? gunzipSync(r.body) : r.body;
  const headers = r.headers
    .filter(([k]) => !["date", "keep-alive", "connection", "content-length", "transfer-encoding"].includes(k))
    .map(([k, v]) => `${k}: ${k === "server-timing" ? v.replace(/dur=[0-9.]+/g, "dur=*") : ["x-receipt-id", "ratelimit-reset", "x-quota-reset"].includes(k) ? "*" : v}`);
  return { status: r.status, headers, body: body.toString("utf8").replace(VOLATILE_FIELDS, '"$1":*') };
}

/** Whether the lane's server log shows `route` answered by the lane. */
const servedByLane = (svc: Service, route: string) => svc.logs().includes(`"event":"fast_lane.served","route":"${route}"`);

describe("the fast lane and Next's pipeline give the same answers", () => {
  let sim: Simulator;
  let lane: Service;
  let plain: Service;
  let standalone: Service;
  let laneKey: string;
  let standaloneKey: string;
  let plainLaneTwin: string;
  let plainStandaloneTwin: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 402 });
    [lane, plain, standalone] = await Promise.all([
      startService({ env: { ...sim.env, ...ENV } }),
      startService({ env: { ...sim.env, ...ENV, FAST_LANE: "0" } }),
      startService({ entry: "standalone", env: { ...sim.env, ...ENV } }),
    ]);
    const mint = async (svc: Service) => JSON.parse((await raw(svc, "/v1/free-key")).body.toString()).api_key as string;
    laneKey = await mint(lane);
    plainLaneTwin = await mint(plain);
    plainStandaloneTwin = await mint(plain);
    standaloneKey = await mint(standalone);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([lane?.stop(), plain?.stop(), standalone?.stop()]);
    await sim?.close();
  });

  /** The lane's answer (after a first request that Next answers) against Next's. */
  async function same(path: string, init: { method?: string; headers?: Record<string, string>; body?: string; key?: true } = {}, route?: string, on: Service = lane): Promise<Raw> {
    const withKey = (key: string) => ({ ...init, headers: { ...init.headers, ...(init.key ? { "X-Api-Key": key } : {}) } });
    // Each lane server's key has a twin on the Next server, used as often.
    const onKey = on === lane ? laneKey : standaloneKey;
    const plainKey = on === lane ? plainLaneTwin : plainStandaloneTwin;
    // The same history on both servers: Next answers the lane server's first request of a route.
    await Promise.all([raw(on, path, withKey(onKey)), raw(plain, path, withKey(plainKey))]);
    const [a, b] = await Promise.all([raw(on, path, withKey(onKey)), raw(plain, path, withKey(plainKey))]);
    const [ca, cb] = [comparable(a), comparable(b)];
    expect(ca.status, path).toBe(cb.status);
    expect(ca.headers.join("\n").replaceAll(onKey, "KEY"), path).toBe(cb.headers.join("\n").replaceAll(plainKey, "KEY"));
    expect(ca.body.replaceAll(onKey, "KEY"), path).toBe(cb.body.replaceAll(plainKey, "KEY"));
    if (route) expect(servedByLane(on, route), `${path} answered by the lane`).toBe(true);
    return a;
  }

  it("pages through Next, then a paid path through Next and the lane: the lane calls the route module Next loaded", async () => {
    for (const p of ["/", "/catalog", "/pay/v1/fng"]) expect((await raw(lane, p, { headers: { Accept: "text/html" } })).status, p).toMatch(/^200 /);
    expect(lane.logs()).not.toContain('"event":"fast_lane.route_loaded","route":"/v1/[...path]"');
    const bad = { headers: { "PAYMENT-SIGNATURE": "bm90IGEgcGF5bWVudA" } };
    await same("/v1/fng", bad, "/v1/[...path]");
    expect(lane.logs()).toContain('"event":"fast_lane.route_loaded","route":"/v1/[...path]","shared":true');
    expect(lane.logs()).not.toContain('"event":"fast_lane.route_not_loaded"');
    expect(lane.logs()).not.toContain('"event":"unhandled_error"');
  });

  it("every paid path's 402 (GET and HEAD)", async () => {
    for (const p of PRODUCTS) {
      const r = await same(p.path, {}, "/v1/[...path]");
      expect([402, 422], p.path).toContain(Number(r.status.split(" ")[0]));
      await same(p.path, { method: "HEAD" });
    }
  });

  it("a key call, and the refusals: 422, 401/402, 404, 405, OPTIONS", async () => {
    const ok = await same("/v1/fng", { key: true }, "/v1/[...path]");
    expect(ok.status).toBe("200 OK");
    expect((await same("/v1/sentiment-history?hours=abc", { key: true })).status).toMatch(/^422 /);
    expect((await same("/v1/fng", { headers: { "X-Api-Key": "echo_fk_not-a-key" } })).status).toMatch(/^40[12] /);
    expect((await same("/v1/fng", { headers: { Authorization: "Bearer nonsense" } })).status).toMatch(/^4\d\d /);
    expect((await same("/v1/no-such-product")).status).toMatch(/^404 /);
    expect((await same("/v1/quote", { method: "POST", body: "{}" })).status).toMatch(/^405 /);
    expect((await same("/v1/quote", { method: "OPTIONS" })).status).toMatch(/^20\d /);
    expect((await same("/v1/free-key", { method: "DELETE" }, "/v1/free-key")).status).toMatch(/^405 /);
    expect((await same("/v1/free-key", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"email":"not an e-mail"}' })).status).toMatch(/^422 /);
  });

  it("the JSON discovery documents, plain and compressed, and with no usable Host", async () => {
    const docs = jsonDocumentRoutes().map((r) => r.replace("[...rest]", "v1/quote"));
    expect(docs.length).toBeGreaterThan(10);
    for (const d of docs) {
      const r = await same(d, {}, undefined);
      expect(r.status, d).toMatch(/^200 /);
    }
    const gz = await same("/openapi.json", { headers: { "Accept-Encoding": "gzip" } }, "/openapi.json");
    expect(gz.headers.find(([k]) => k === "content-encoding")?.[1]).toBe("gzip");
    // Without a usable Host the lane hands the request to Next, which answers it as before.
    const before = lane.logs().split('"event":"fast_lane.served","route":"/.well-known/agent-card.json"').length;
    await same("/.well-known/agent-card.json", { headers: { Host: "not a host!" } });
    expect(lane.logs().split('"event":"fast_lane.served","route":"/.well-known/agent-card.json"').length).toBe(before);
  });

  it("MCP and A2A", async () => {
    const mcp = (body: object) => ({ method: "POST", key: true as const, headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
    await same("/mcp", mcp({ jsonrpc: "2.0", id: 1, method: "tools/list" }), "/mcp");
    await same("/mcp", mcp({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {} } }));
    await same("/mcp", mcp({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_xlm_quote", arguments: { pair: 42 } } }));
    await same("/mcp", { method: "GET" });
    await same("/mcp/tools");
    await same("/a2a");
    const send = (skill: string) => JSON.stringify({ message: { messageId: "m-1", role: "ROLE_USER", content: [{ text: "please" }], metadata: { skill } } });
    await same("/a2a/v1/message:send", { method: "POST", key: true, headers: { "Content-Type": "application/json" }, body: send("fng") }, "/a2a/v1/[...path]");
    await same("/a2a/v1/message:send", { method: "POST", headers: { "Content-Type": "application/json" }, body: send("fng") });
    await same("/a2a/v1/message:send", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" });
    await same("/a2a/jsonrpc", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/explode", params: {} }) }, "/a2a/jsonrpc");
  });

  it("the standalone server (serve.js) has the lane too, with the same answers", async () => {
    await same("/v1/fng", {}, "/v1/[...path]", standalone);
    expect((await same("/v1/fng", { key: true }, "/v1/[...path]", standalone)).status).toBe("200 OK");
    await same("/.well-known/agent-card.json", {}, "/.well-known/agent-card.json", standalone);
    await same("/mcp", { method: "POST", key: true, headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }, "/mcp", standalone);
    expect(standalone.logs()).toContain('"event":"fast_lane.route_loaded","route":"/v1/[...path]","shared":true');
  });
});
