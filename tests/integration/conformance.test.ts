/**
 * The discovery and HTTP surfaces against their own formats (issue 15, item 3), over
 * real HTTP against the built service:
 * - every URL of /sitemap.xml answers 200 to a plain GET;
 * - every discovery document is served with the media type the document list, the
 *   `Link` header and the API catalog declare;
 * - `Allow` lists what is served: OPTIONS names the methods, none of them answers 405,
 *   every other method answers a JSON 405 carrying the same `Allow` (the A2A URLs too,
 *   per resource of the HTTP+JSON binding);
 * - RFC 9728 metadata exists only for protected resources (404 otherwise) and names no
 *   authorization server (the service runs none); the RFC 8414 path, kept by spec 4.3,
 *   is no authorization-server metadata and nothing points to it;
 * - a repeated query parameter or tool argument is a spec 2.6 error naming it;
 * - a 100 KB request header gets 431 with the JSON error shape (raw socket); 431 and 408
 *   are declared on every operation, the rest (OPTIONS 204, 405, the parser's 400) in
 *   OpenAPI's description;
 * - every status these requests provoke is declared by the OpenAPI operation answering.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRODUCTS } from "@/lib/catalog";
import { FREE_ENDPOINTS } from "@/lib/catalog/free";
import { DISCOVERY_DOCUMENTS, SKILL_NAME } from "@/lib/discovery/documents";
import { startFixture, type Fixture } from "../helpers/fixture";

type J = Record<string, any>;
const MCP_ACCEPT = "application/json, text/event-stream";
const concrete = (path: string) => path.replace("{rest}", "v1/quote");

describe("conformance of the HTTP and discovery surfaces", () => {
  let fx: Fixture;
  let base: string;
  let oas: J;

  beforeAll(async () => {
    fx = await startFixture({ env: { PAY_TO_ADDRESS: "0x00000000000000000000000000000000000c0f0e", FACILITATOR_URL: "http://127.0.0.1:9/facilitator" } });
    base = fx.svc.url;
    oas = (await fx.json("/openapi.json")).body;
  });
  afterAll(async () => fx?.close());

  /** The OpenAPI operation serving `method path` (templates match one or more segments). */
  function operationFor(method: string, path: string): J | undefined {
    const paths = oas.paths as Record<string, J>;
    const exact = paths[path];
    const template = exact ? path : Object.keys(paths).find((t) => t.includes("{") && new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-z]+\}/g, ".+")}$`).test(path));
    return template ? paths[template]![method.toLowerCase()] : undefined;
  }

  it("every URL of the sitemap answers 200 to a plain GET", async () => {
    const xml = await (await fx.get("/sitemap.xml")).text();
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
    expect(locs.length).toBeGreaterThan(15);
    expect(locs).toContain(`${base}/`);
    const failures: string[] = [];
    for (const url of locs) {
      expect(url.startsWith(`${base}/`), url).toBe(true);
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`${url} → ${res.status}`);
    }
    expect(failures).toEqual([]);
    // Paid paths answer 402 to a plain GET: found through OpenAPI and the manifests instead.
    for (const p of PRODUCTS) expect(locs).not.toContain(`${base}${p.path}`);
  });

  it("serves every discovery document with the media type the list, the Link header and the API catalog declare", async () => {
    const res = await fx.get("/health/live");
    const declared = new Map<string, string>();
    for (const m of res.headers.get("link")!.matchAll(/<([^>]+)>; rel="[^"]+"; type="([^"]+)"/g)) declared.set(m[1]!, m[2]!);
    const catalog = (await fx.json("/.well-known/api-catalog")).body as J;
    const links: J[] = catalog.linkset.flatMap((c: J) => Object.values(c).filter(Array.isArray).flat());
    for (const l of links) {
      if (typeof l.href === "string" && l.type && l.href.startsWith(base)) {
        const path = l.href.slice(base.length);
        if (declared.has(path)) expect(declared.get(path), path).toBe(l.type);
        else declared.set(path, l.type);
      }
    }
    for (const d of DISCOVERY_DOCUMENTS) {
      if (declared.has(d.path)) expect(declared.get(d.path), d.path).toBe(d.mediaType);
      else declared.set(d.path, d.mediaType);
    }
    expect(declared.get("/llms.txt")).toBe("text/markdown");
    let checked = 0;
    for (const [path, type] of declared) {
      if (!path.startsWith("/")) continue;
      const r = await fx.get(concrete(path));
      await r.arrayBuffer();
      expect(r.status, path).toBe(200);
      expect(r.headers.get("content-type")!.split(";")[0], path).toBe(type.split(";")[0]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(DISCOVERY_DOCUMENTS.length);
    // And with the Accept header a markdown-aware agent sends: the same type.
    const md = await fx.get("/llms.txt", { headers: { Accept: "text/markdown" } });
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
  });

  describe("Allow lists what is served", () => {
    const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
    const routes = () => [
      ...DISCOVERY_DOCUMENTS.map((d) => concrete(d.path)),
      ...FREE_ENDPOINTS.filter((e) => !e.internal).map((e) => e.path),
      ...PRODUCTS.map((p) => p.path),
      "/mcp",
      "/mcp/tools",
      "/a2a",
      "/a2a/jsonrpc",
      "/a2a/v1/card",
    ];

    it("OPTIONS names the methods served, none of them answers 405, every other one answers a JSON 405 with that Allow", async () => {
      const failures: string[] = [];
      for (const path of routes()) {
        const opt = await fx.get(path, { method: "OPTIONS" });
        await opt.arrayBuffer();
        if (opt.status !== 204) failures.push(`OPTIONS ${path} → ${opt.status}`);
        const allow = (opt.headers.get("allow") ?? "").split(/,\s*/).filter(Boolean);
        if (!allow.includes("GET") || !allow.includes("OPTIONS")) failures.push(`OPTIONS ${path}: Allow ${allow.join(", ")}`);
        for (const method of METHODS) {
          // Free-key minting is rate-limited per address: its POST is covered by the status walk below.
          const body = ["POST", "PUT", "PATCH"].includes(method) ? (path === "/mcp" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) : "{}") : undefined;
          if (path === "/v1/free-key" && allow.includes(method)) continue;
          const res = await fx.get(path, { method, body, headers: { "Content-Type": "application/json", Accept: path === "/mcp" && method === "POST" ? MCP_ACCEPT : "application/json" } });
          const text = await res.text();
          if (allow.includes(method)) {
            if (res.status === 405) failures.push(`${method} ${path} → 405 though Allow lists it`);
          } else if (res.status !== 405) {
            failures.push(`${method} ${path} → ${res.status}, not 405, though Allow omits it`);
          } else {
            if (res.headers.get("allow") !== opt.headers.get("allow")) failures.push(`${method} ${path}: 405 Allow "${res.headers.get("allow")}" vs OPTIONS "${opt.headers.get("allow")}"`);
            if (JSON.parse(text).error?.code !== "method_not_allowed") failures.push(`${method} ${path}: 405 body ${text.slice(0, 80)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });

    it("a paid path serves GET, HEAD and OPTIONS only", async () => {
      const opt = await fx.get("/v1/quote", { method: "OPTIONS" });
      expect(opt.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      const post = await fx.json("/v1/quote", { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect((await fx.get("/v1/no-such-product", { method: "OPTIONS" })).status).toBe(404);
    });

    it("the A2A HTTP+JSON binding answers per resource: POST-only and GET-only resources, unknown paths 404 on every method", async () => {
      const task = "00000000-0000-4000-8000-000000000000";
      const cases: Array<[string, string]> = [
        ["/a2a/v1/message:send", "OPTIONS, POST"],
        [`/a2a/v1/tasks/${task}:cancel`, "OPTIONS, POST"],
        [`/a2a/v1/tasks/${task}`, "GET, HEAD, OPTIONS"],
        ["/a2a/v1/card", "GET, HEAD, OPTIONS"],
      ];
      for (const [path, allow] of cases) {
        const opt = await fx.get(path, { method: "OPTIONS" });
        expect(opt.status, path).toBe(204);
        expect(opt.headers.get("allow"), path).toBe(allow);
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !allow.split(", ").includes(m))) {
          const res = await fx.json(path, { method, headers: { "Content-Type": "application/json" }, body: method === "GET" ? undefined : "{}" });
          expect(res.status, `${method} ${path}`).toBe(405);
          expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
          expect(res.body.error.code).toBe("method_not_allowed");
        }
      }
      // Served methods still reach the SDK: an unknown task is its 404, not a 405.
      expect((await fx.get(`/a2a/v1/tasks/${task}`)).status).toBe(404);
      for (const method of ["OPTIONS", "GET", "POST", "PUT"]) expect((await fx.get("/a2a/v1/nothing-here", { method, body: method === "POST" || method === "PUT" ? "{}" : undefined })).status, method).toBe(404);
    });
  });

  describe("OAuth protected-resource metadata (RFC 9728)", () => {
    it("exists for the protected resources only and names no authorization server", async () => {
      for (const rest of ["v1/quote", "v1/bundle/enterprise", "mcp"]) {
        const r = await fx.json(`/.well-known/oauth-protected-resource/${rest}`);
        expect(r.status, rest).toBe(200);
        // RFC 9728 §3.3: `resource` is the URL the well-known suffix was inserted into.
        expect(r.body.resource).toBe(`${base}/${rest}`);
        expect(r.body.authorization_servers).toBeUndefined();
        expect(r.body.bearer_methods_supported).toEqual(["header"]);
        for (const k of ["resource_name", "resource_documentation"]) expect(typeof r.body[k], k).toBe("string");
      }
      for (const rest of ["v1/nothing", "anything", "v1/quote/extra", "health"]) {
        const r = await fx.json(`/.well-known/oauth-protected-resource/${rest}`);
        expect(r.status, rest).toBe(404);
        expect(r.body.error.code).toBe("not_found");
      }
      const root = await fx.json("/.well-known/oauth-protected-resource");
      expect(root.body.resource).toBe(base);
      expect(root.body.authorization_servers).toBeUndefined();
    });

    it("advertises no authorization server: the RFC 8414 path (kept by spec 4.3) is not metadata of one, and no document points to it", async () => {
      const as = await fx.json("/.well-known/oauth-authorization-server");
      expect(as.status).toBe(200);
      expect(as.body).toMatchObject({ authorization_server: false, authorization_mechanism: "x402" });
      // RFC 8414 section 2: issuer and response_types_supported are REQUIRED, so an OAuth
      // client cannot take this for the metadata of an authorization server; no endpoints either.
      for (const k of ["issuer", "response_types_supported", "grant_types_supported", "token_endpoint", "authorization_endpoint", "jwks_uri"]) expect(as.body[k], k).toBeUndefined();
      const path = "/.well-known/oauth-authorization-server";
      for (const doc of ["/sitemap.xml", "/llms.txt", "/agents.txt", "/auth.md", "/.well-known/api-catalog", "/.well-known/ai-catalog.json"]) {
        expect(await (await fx.get(doc)).text(), doc).not.toContain(path);
      }
      expect((await fx.get("/health/live")).headers.get("link")).not.toContain(path);
    });
  });

  describe("repeated parameters", () => {
    it("a query parameter given twice answers 422 naming it, on products, /v1/free-key and /mcp", async () => {
      const multi = await fx.json("/v1/multi-asset?tickers=XLM-USD&tickers=BTC-USD");
      expect(multi.status).toBe(422);
      expect(multi.body.detail).toEqual([{ loc: ["query", "tickers"], msg: expect.stringContaining("tickers"), type: "repeated_parameter", input: ["XLM-USD", "BTC-USD"], ctx: { count: 2 } }]);
      const hours = await fx.json("/v1/sentiment-history?hours=2&hours=3&hours=4");
      expect(hours.status).toBe(422);
      expect(hours.body.detail[0]).toMatchObject({ loc: ["query", "hours"], input: ["2", "3", "4"] });
      const key = await fx.json("/v1/free-key?email=a@example.com&email=b@example.com");
      expect(key.status).toBe(422);
      expect(key.body.detail[0].loc).toEqual(["query", "email"]);
      const mcp = await fx.json("/mcp?path=tools&path=tools");
      expect(mcp.status).toBe(422);
      expect(mcp.body.detail[0].loc).toEqual(["query", "path"]);
      // Names a product does not declare are still ignored.
      expect((await fx.get("/v1/quote?x=1&x=2")).status).toBe(402);
    });

    it("a tool argument given twice is a spec 2.6 tool error; a member repeated elsewhere is an Invalid Request", async () => {
      const body = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"screen_multi_asset_strategy","arguments":{"tickers":"XLM-USD","tickers":"BTC-USD"}}}';
      const r = await fx.json("/mcp", { method: "POST", headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT }, body });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { isError: true } });
      expect(JSON.parse(r.body.result.content[0].text).detail).toEqual([{ loc: ["arguments", "tickers"], msg: expect.any(String), type: "repeated_parameter", input: ["XLM-USD", "BTC-USD"], ctx: { count: 2 } }]);
      const twice = '{"jsonrpc":"2.0","id":8,"method":"tools/list","method":"tools/call"}';
      const bad = await fx.json("/mcp", { method: "POST", headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT }, body: twice });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ jsonrpc: "2.0", id: 8, error: { code: -32600 } });
      expect(bad.body.error.message).toContain('"method"');
    });
  });

  /** Raw HTTP/1.1 exchange (fetch cannot send a 100 KB header past undici's own limits reliably). */
  function rawRequest(head: string): Promise<string> {
    const u = new URL(base);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(u.port), u.hostname);
      const chunks: Buffer[] = [];
      socket.on("data", (c) => chunks.push(c));
      socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.on("error", (err) => (chunks.length ? resolve(Buffer.concat(chunks).toString("utf8")) : reject(err)));
      socket.write(head);
    });
  }

  it("a 100 KB request header gets 431 with the JSON error shape", async () => {
    const raw = await rawRequest(`GET /v1/quote HTTP/1.1\r\nHost: ${new URL(base).host}\r\nX-Big: ${"a".repeat(100 * 1024)}\r\n\r\n`);
    const [head, body] = raw.split("\r\n\r\n") as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/^content-type: application\/json/im);
    expect(Number(head.match(/^content-length: (\d+)/im)![1])).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body)).toEqual({ error: { code: "headers_too_large", message: expect.stringContaining("headers") } });
    expect(operationFor("GET", "/v1/quote")!.responses["431"]).toBeDefined();
    // Declared on every operation, as are the 408 of a request not received in time.
    for (const item of Object.values(oas.paths as Record<string, J>)) {
      for (const op of Object.values(item)) {
        expect(op.responses["431"], op.operationId).toBeDefined();
        expect(op.responses["408"], op.operationId).toBeDefined();
      }
    }
    // A malformed request line: 400 in the same shape. No operation can be named for it,
    // so OpenAPI states it (and OPTIONS 204, 405) outside the operations.
    const bad = await rawRequest("NOT HTTP\r\n\r\n");
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(bad.split("\r\n\r\n")[1]!).error.code).toBe("bad_request");
    for (const said of ["**400** `bad_request`", "**204**", "**405** `method_not_allowed`", "**408** `request_timeout`"]) expect(oas.info.description).toContain(said);
  });

  it("every status these requests provoke is declared by the OpenAPI operation answering", async () => {
    const json = { "Content-Type": "application/json" };
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const cases: Array<{ method: string; path: string; init?: RequestInit; status: number }> = [
      { method: "POST", path: "/mcp", init: { headers: { ...json, Accept: "application/json" }, body: rpc }, status: 406 },
      { method: "POST", path: "/mcp", init: { headers: { "Content-Type": "text/plain", Accept: MCP_ACCEPT }, body: rpc }, status: 415 },
      { method: "POST", path: "/mcp", init: { headers: { ...json, Accept: MCP_ACCEPT }, body: "{" }, status: 400 },
      { method: "POST", path: "/mcp", init: { headers: { ...json, Accept: MCP_ACCEPT }, body: JSON.stringify({ jsonrpc: "2.0", method: "x", params: { pad: "x".repeat(70 * 1024) } }) }, status: 413 },
      { method: "POST", path: "/mcp", init: { headers: { ...json, Accept: MCP_ACCEPT }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }, status: 202 },
      { method: "GET", path: "/mcp", init: { headers: { Accept: "text/event-stream" } }, status: 405 },
      { method: "GET", path: "/mcp?path=nothing-here", status: 404 },
      { method: "GET", path: "/mcp?path=a%20b", status: 422 },
      { method: "GET", path: "/mcp/tools/no_such_tool", status: 404 },
      { method: "GET", path: "/v1/quote", status: 402 },
      { method: "GET", path: "/v1/sentiment-history?hours=999", status: 422 },
      { method: "GET", path: "/v1/wallet", status: 422 },
      { method: "GET", path: "/v1/usage", status: 400 },
      { method: "GET", path: "/v1/usage", init: { headers: { "X-Api-Key": "echo_fk_unknown" } }, status: 404 },
      { method: "GET", path: "/v1/free-key?email=not-an-email", status: 422 },
      { method: "POST", path: "/v1/free-key", init: { headers: json, body: JSON.stringify({ email: "x".repeat(9000) }) }, status: 413 },
      { method: "POST", path: "/v1/free-key", init: { headers: json, body: "[1]" }, status: 422 },
      { method: "GET", path: "/.well-known/oauth-protected-resource/nothing", status: 404 },
      { method: "GET", path: "/.well-known/oauth-protected-resource/a%20b", status: 422 },
      { method: "GET", path: `/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`, status: 200 },
    ];
    const failures: string[] = [];
    // The sample's hourly allowance runs out (earlier requests of this file count too): 429.
    const sample: number[] = [];
    for (let i = 0; i < 12 && !sample.includes(429); i++) {
      const res = await fx.get("/v1/sample");
      await res.arrayBuffer();
      sample.push(res.status);
      if (!operationFor("GET", "/v1/sample")!.responses[String(res.status)]) failures.push(`GET /v1/sample → ${res.status}: not declared`);
    }
    expect(sample).toContain(429);
    for (const c of cases) {
      const res = await fx.get(c.path, { method: c.method, ...c.init });
      await res.arrayBuffer();
      const label = `${c.method} ${c.path.slice(0, 80)}`;
      if (res.status !== c.status) failures.push(`${label} → ${res.status} (this case expects ${c.status})`);
      const op = operationFor(c.method, c.path.split("?")[0]!);
      if (!op) failures.push(`${label}: no OpenAPI operation`);
      else if (!op.responses[String(res.status)]) failures.push(`${label} → ${res.status}: not declared by its OpenAPI operation`);
    }
    expect(failures).toEqual([]);
  });

  it("OpenAPI declares a license", () => {
    expect(oas.info.license).toEqual({ name: "Proprietary", url: `${base}/auth.md` });
  });
});
