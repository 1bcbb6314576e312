/**
 * Discovery documents over real HTTP against the built service:
 * - every document of spec 4.2/4.3 answers 200 with its declared media type, a cache
 *   header and the Link header; every JSON one parses;
 * - the served /openapi.json passes @apidevtools/swagger-parser and `redocly lint`
 *   (offline, zero errors), and its 200 schemas validate real responses;
 * - a walk over the catalog checks every document against it: each paid path with its
 *   price in OpenAPI, /v1/manifest, the x402 documents, llms.txt, agents.txt, the
 *   sitemap and the cards; the MCP cards against a live tools/list;
 * - every path any document names (absolute URLs, "METHOD /path" mentions, relative
 *   path fields of the JSON documents, the PDF's text, OpenAPI operations) answers with
 *   its documented status: 402 for paid paths, 200 otherwise (400 for /v1/usage without
 *   a credential), a status the OpenAPI operation declares;
 * - the base URL comes from the request's Host, never from a spoofed X-Forwarded-Host,
 *   and such documents are not cacheable by shared caches.
 */
import { spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { extractText, getDocumentProxy } from "unpdf";
import { PRODUCTS, productByPath } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import { toolTitle } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import { FREE_ENDPOINTS, PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import { DISCOVERY_DOCUMENTS, SKILL_NAME } from "@/lib/discovery/documents";
import { startFixture, type Fixture } from "../helpers/fixture";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ADMIN_TOKEN = "discovery-admin-token-0123456789";
const PAY_TO = "0x00000000000000000000000000000000000d15c0";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
type J = Record<string, any>;

/** Spec 4.2/4.3 paths (typed here from the spec, not from the code under test). */
const SPEC_PATHS = [
  "/openapi.json", "/spec.pdf", "/sitemap.xml", "/robots.txt", "/llms.txt", "/agents.txt", "/auth.md", "/agent.json",
  "/.well-known/agent.json", "/.well-known/agent-card.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp.json",
  "/.well-known/x402-manifest.json", "/.well-known/agent-skills/index.json", `/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`,
  "/.well-known/api-catalog", "/.well-known/ai-catalog.json", "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/{rest}", "/.well-known/oauth-authorization-server", "/.well-known/x402",
];

/** "$0.005", "$0.10", "$25.00". */
function label(usd: string): string {
  const [w, f = ""] = usd.split(".");
  return `$${w}.${f.replace(/0+$/, "").padEnd(2, "0")}`;
}
/** "0.005" → "0.005000" and "5000" (USDC base units), by string arithmetic. */
const usd6 = (usd: string) => Number(usd).toFixed(6);
function baseUnits(usd: string): string {
  const [w, f = ""] = usd.split(".");
  return String(Number(w) * 1_000_000 + Number(f.padEnd(6, "0").slice(0, 6)));
}
const concrete = (path: string) => path.replace("{rest}", "v1/quote").replace("{path}", "tools").replace("{name}", "get_xlm_quote");

function exampleQuery(p: AnyProduct): string {
  const q = new URLSearchParams();
  for (const [name, param] of Object.entries(p.params) as Array<[string, { doc: ParamDoc }]>) if (param.doc.required && param.doc.example) q.set(name, param.doc.example);
  const s = q.toString();
  return s ? `?${s}` : "";
}

interface Fetched {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  json?: J;
}

describe("discovery documents over HTTP", () => {
  let fx: Fixture;
  let base: string;
  const docs = new Map<string, Fetched>();
  const get = (path: string) => docs.get(path)!;
  const json = (path: string) => get(path).json!;

  async function fetchDoc(path: string, init?: RequestInit): Promise<Fetched> {
    const res = await fx.get(path, init);
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("utf8");
    let parsed: J | undefined;
    if (/json/.test(res.headers.get("content-type") ?? "")) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, bytes, json: parsed };
  }

  beforeAll(async () => {
    fx = await startFixture({ env: { ADMIN_TOKEN, PAY_TO_ADDRESS: PAY_TO, FACILITATOR_URL: "http://127.0.0.1:9/facilitator" } });
    base = fx.svc.url;
    for (const d of DISCOVERY_DOCUMENTS) docs.set(d.path, await fetchDoc(concrete(d.path)));
    docs.set("/v1/manifest", await fetchDoc("/v1/manifest"));
  });
  afterAll(async () => fx?.close());

  describe("every document answers", () => {
    it("covers every path of spec 4.2/4.3", () => {
      expect(DISCOVERY_DOCUMENTS.map((d) => d.path).sort()).toEqual([...SPEC_PATHS].sort());
    });

    for (const path of SPEC_PATHS) {
      it(`GET ${path}: 200, declared media type, cache header, Link header`, () => {
        const d = DISCOVERY_DOCUMENTS.find((x) => x.path === path)!;
        const r = get(path);
        expect(r.status, r.text.slice(0, 300)).toBe(200);
        const type = r.headers.get("content-type")!;
        expect(type.split(";")[0]).toBe(d.mediaType);
        expect(r.headers.get("cache-control")).toMatch(/max-age=\d+/);
        expect(r.headers.get("link")).toContain('rel="api-catalog"');
        if (/json/.test(d.mediaType)) expect(r.json).toBeTypeOf("object");
        expect(r.bytes.length).toBeGreaterThan(100);
      });
    }

    it("/llms.txt is text/markdown, the type it is declared with, whatever the request accepts", async () => {
      const md = await fetchDoc("/llms.txt", { headers: { Accept: "text/markdown" } });
      expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
      expect(get("/llms.txt").headers.get("content-type")).toMatch(/^text\/markdown/);
      expect(md.text).toBe(get("/llms.txt").text);
      expect(md.text).toMatch(/^# .+\n\n> .+/);
    });

    it("/spec.pdf is a PDF", () => {
      expect(get("/spec.pdf").bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    });

    it("/.well-known/oauth-protected-resource/{rest} answers 422 (spec 2.6) for a malformed rest", async () => {
      for (const bad of ["a%20b", "v1/quote;x", "x".repeat(201), "~%00", "v1/quote%2F"]) {
        const r = await fetchDoc(`/.well-known/oauth-protected-resource/${bad}`);
        expect(r.status, bad).toBe(422);
        expect(r.json!.detail).toHaveLength(1);
        expect(r.json!.detail[0]).toMatchObject({ loc: ["path", "rest"], type: expect.stringMatching(/^string_(pattern_mismatch|too_long)$/), msg: expect.any(String) });
      }
      const ok = json("/.well-known/oauth-protected-resource/{rest}");
      expect(ok.resource).toBe(`${base}/v1/quote`);
      expect(ok.price_usd).toBe(usd6(productByPath("/v1/quote")!.httpPrice));
      const mcp = await fetchDoc("/.well-known/oauth-protected-resource/mcp");
      expect(mcp.status).toBe(200);
      expect(mcp.json!.resource).toBe(`${base}/mcp`);
    });

    it("the protected-resource and authorization-server metadata name x402 as the mechanism", () => {
      const pr = json("/.well-known/oauth-protected-resource");
      expect(pr.resource).toBe(base);
      expect(pr.authorization_mechanism).toBe("x402");
      // No authorization server runs here, so none is advertised.
      expect(pr.authorization_servers).toBeUndefined();
      // The RFC 8414 path says so too, without posing as metadata of a server that does not run.
      const as = json("/.well-known/oauth-authorization-server");
      expect(as.authorization_server).toBe(false);
      expect(as.authorization_mechanism).toBe("x402");
      expect(as.issuer).toBeUndefined();
    });

    it("robots.txt declares content signals and the sitemap", () => {
      const t = get("/robots.txt").text;
      expect(t).toMatch(/^User-agent: \*$/m);
      expect(t).toMatch(/^Content-Signal: (search|ai-input|ai-train)=(yes|no)(, (search|ai-input|ai-train)=(yes|no))*$/m);
      expect(t).toContain(`Sitemap: ${base}/sitemap.xml`);
      for (const e of FREE_ENDPOINTS.filter((x) => x.internal)) expect(t).toContain(`Disallow: ${e.path}`);
    });

    it("the api-catalog is an RFC 9727 linkset", () => {
      const r = get("/.well-known/api-catalog");
      expect(r.headers.get("content-type")).toContain('profile="https://www.rfc-editor.org/info/rfc9727"');
      const ls = r.json!.linkset as J[];
      expect(ls[0]!.anchor).toBe(`${base}/.well-known/api-catalog`);
      expect(ls[0]!.item.length).toBeGreaterThanOrEqual(2);
      const api = ls.find((c) => c["service-desc"]?.some((l: J) => l.href === `${base}/openapi.json`));
      expect(api).toBeDefined();
    });
  });

  describe("OpenAPI validators", () => {
    it("passes @apidevtools/swagger-parser validation", async () => {
      await expect(SwaggerParser.validate(structuredClone(json("/openapi.json")) as never)).resolves.toBeTruthy();
    });

    it("passes `redocly lint` with no errors (offline)", () => {
      const dir = mkdtempSync(join(tmpdir(), "openapi-"));
      try {
        const file = join(dir, "openapi.json");
        writeFileSync(file, get("/openapi.json").text);
        const r = spawnSync(join(root, "node_modules/.bin/redocly"), ["lint", file, "--format=json"], {
          cwd: dir,
          encoding: "utf8",
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_UPDATE_NOTIFIER: "1" },
          timeout: 60_000,
        });
        const out = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string }> };
        const errors = out.problems.filter((p) => p.severity === "error");
        expect(errors, JSON.stringify(errors.slice(0, 5))).toEqual([]);
        expect(out.totals.errors).toBe(0);
        expect(r.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("its 200 schemas validate real responses (free-tier key on every covered data product)", async () => {
      const oas = json("/openapi.json");
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      const key = (await fx.json("/v1/free-key")).body.api_key as string;
      expect(key).toMatch(/^echo_fk_/);
      const covered = PRODUCTS.filter((p) => p.kind === "data" && p.freeTier);
      expect(covered.length).toBeGreaterThan(10);
      for (const p of covered) {
        const { status, body } = await fx.json(p.path + exampleQuery(p), { headers: { "X-Api-Key": key } });
        expect(status, `${p.path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
        const name = (oas.paths[p.path].get.responses["200"].content["application/json"].schema.$ref as string).split("/").at(-1)!;
        const validate = ajv.compile(oas.components.schemas[name]);
        expect(validate(body), `${p.path}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      }
      const sample = await fx.json("/v1/sample");
      expect(ajv.validate(oas.components.schemas.SampleSnapshot, sample.body), JSON.stringify(ajv.errors)).toBe(true);
    });
  });

  describe("every document agrees with the catalog", () => {
    it("OpenAPI: every paid path with its price, offer, parameters and security", () => {
      const oas = json("/openapi.json");
      expect(oas.openapi).toBe("3.1.0");
      expect(oas.info.version).toBe("0.1.0");
      expect(Object.keys(oas.components.securitySchemes)).toEqual(expect.arrayContaining(["x402", "ApiKeyAuth"]));
      expect(oas.components.securitySchemes.ApiKeyAuth).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Key" });
      for (const p of PRODUCTS) {
        const op = oas.paths[p.path]?.get;
        expect(op, p.path).toBeDefined();
        expect(op["x-payment-info"]).toEqual({
          protocols: [{ x402: {} }],
          price: { mode: "fixed", currency: "USD", amount: usd6(p.httpPrice) },
          offers: [{ intent: "charge", method: "evm", network: "eip155:8453", amount: baseUnits(p.httpPrice), currency: BASE_USDC, description: expect.stringContaining(label(p.httpPrice)) }],
        });
        expect(op.description).toContain(label(p.httpPrice));
        if (p.tool) expect(op["x-mcp-tool"]).toEqual({ name: p.tool.name, title: toolTitle(p.tool), price: usd6(p.tool.price) });
        expect(op.parameters.map((x: J) => x.name)).toEqual(Object.keys(p.params));
        const schemes = op.security.map((s: J) => Object.keys(s)[0]);
        expect(schemes).toContain("x402");
        if (p.kind === "data" && p.freeTier) expect(schemes).toContain("ApiKeyAuth");
        expect(op.responses["402"]).toBeDefined();
      }
      for (const e of FREE_ENDPOINTS) expect(oas.paths[e.path]?.get, e.path).toBeDefined();
    });

    it("/v1/manifest, /.well-known/x402 and x402-manifest.json list the same paid paths at the HTTP price", () => {
      const m = json("/v1/manifest");
      const x = json("/.well-known/x402");
      const xm = json("/.well-known/x402-manifest.json");
      // The database is up in this fixture, so the key is published (null only when it does not answer).
      expect(m.attestation_public_key).toMatchObject({ alg: "Ed25519", key_id: expect.any(String), public_key_hex: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(m.endpoints.map((e: J) => e.path)).toEqual(PRODUCTS.map((p) => p.path));
      expect(x.resources).toEqual(PRODUCTS.map((p) => `${base}${p.path}`));
      expect(xm.resources.map((r: J) => r.path)).toEqual(PRODUCTS.map((p) => p.path));
      for (const p of PRODUCTS) {
        const me = m.endpoints.find((e: J) => e.path === p.path);
        const xe = xm.resources.find((r: J) => r.path === p.path);
        expect(me).toMatchObject({ price_usd: usd6(p.httpPrice), network: "eip155:8453", tool: p.tool ? { name: p.tool.name, price_usd: usd6(p.tool.price) } : null });
        expect(me.params.map((x: J) => x.name)).toEqual(Object.keys(p.params));
        expect(xe).toMatchObject({ resource: `${base}${p.path}`, method: "GET", price_usd: usd6(p.httpPrice), network: "eip155:8453" });
        expect(xe.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: baseUnits(p.httpPrice), asset: BASE_USDC, payTo: PAY_TO });
        expect(xe.payment_offer).toEqual(json("/openapi.json").paths[p.path].get["x-payment-info"]);
      }
      expect(xm.network).toBe(m.network);
      expect(xm.asset.address).toBe(m.asset.address);
      expect(xm.pay_to).toBe(m.pay_to);
    });

    it("llms.txt and agents.txt name every paid path with its price and every free endpoint", () => {
      const llms = get("/llms.txt").text.split("\n");
      const agents = get("/agents.txt").text.split("\n");
      for (const p of PRODUCTS) {
        const l = llms.find((x) => x.startsWith(`- [GET ${p.path}](${base}${p.path})`));
        expect(l, p.path).toBeDefined();
        expect(l).toContain(`Price: ${label(p.httpPrice)} per HTTP call`);
        if (p.tool) expect(l).toContain(`${p.tool.name}: ${label(p.tool.price)}`);
        const a = agents.find((x) => x.startsWith(`Endpoint: GET ${p.path} |`));
        expect(a, p.path).toBeDefined();
        expect(a).toContain(`| ${label(p.httpPrice)} |`);
      }
      for (const e of PUBLIC_FREE_ENDPOINTS) expect(llms.some((x) => x.startsWith(`- [GET ${e.path}](`))).toBe(true);
    });

    it("the sitemap lists the pages, the discovery documents and the manifest, and no paid or credentialed path", () => {
      const locs = [...get("/sitemap.xml").text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
      expect(get("/sitemap.xml").text).toContain('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"');
      // Paid paths answer 402 to a crawler's GET (tests/integration/conformance.test.ts fetches every URL listed).
      for (const p of PRODUCTS) expect(locs).not.toContain(`${base}${p.path}`);
      for (const d of DISCOVERY_DOCUMENTS.filter((x) => x.sitemap)) expect(locs).toContain(`${base}${d.path}`);
      expect(locs).toContain(`${base}/openapi.json`);
      expect(locs).toContain(`${base}/v1/manifest`);
      for (const path of ["/v1/bundles/debug", "/v1/usage", "/v1/free-key"]) expect(locs).not.toContain(`${base}${path}`);
    });

    it("the agent cards (0.2.0, A2A 0.3.0, HTTP+JSON) have one skill per product with its price", () => {
      const card = json("/.well-known/agent-card.json");
      expect(json("/agent.json")).toEqual(card);
      expect(json("/.well-known/agent.json")).toEqual(card);
      // The HTTP+JSON binding answers under /a2a (tests/integration/a2a.test.ts calls it).
      expect(card).toMatchObject({ protocolVersion: "0.3.0", version: "0.2.0", preferredTransport: "HTTP+JSON", url: `${base}/a2a` });
      expect(card.capabilities).toEqual({
        streaming: false,
        pushNotifications: false,
        stateTransitionHistory: false,
        extensions: [expect.objectContaining({ uri: "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2", required: false })],
      });
      for (const p of PRODUCTS) {
        const s = card.skills.find((x: J) => x.id === p.id);
        expect(s, p.id).toBeDefined();
        expect(s.description).toContain(label(p.httpPrice));
        if (p.tool) expect(s.description).toContain(`${p.tool.name}: ${label(p.tool.price)}`);
        expect(s.examples[0]).toMatch(new RegExp(`^GET ${p.path.replace(/\//g, "\\/")}(\\?|$)`));
      }
      expect(card.skills.map((s: J) => s.id)).toContain("get_xlm_sentiment");
    });

    it("the MCP server card and mcp.json match a live tools/list (names, prices, schemas)", async () => {
      const client = new Client({ name: "discovery-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      const { tools } = await client.listTools();
      await client.close();
      const card = json("/.well-known/mcp/server-card.json");
      const manifest = json("/.well-known/mcp.json");
      expect(card).toMatchObject({ version: "1.0", protocolVersion: "2024-11-05", serverInfo: { name: "echo-x402-sentiment", version: "0.2.0" }, transport: { type: "streamable-http", endpoint: "/mcp" } });
      expect(manifest).toMatchObject({ version: "0.2.0", protocolVersion: "2024-11-05", transport: { type: "streamable-http", url: `${base}/mcp` } });
      expect(card.tools.map((t: J) => t.name)).toEqual(tools.map((t) => t.name));
      expect(manifest.tools.map((t: J) => t.name)).toEqual(tools.map((t) => t.name));
      expect(tools).toHaveLength(18);
      for (const live of tools) {
        const c = card.tools.find((t: J) => t.name === live.name);
        expect(c.inputSchema).toEqual(live.inputSchema);
        expect(c.description).toBe(live.description);
        const p = PRODUCTS.find((x) => x.tool?.name === live.name);
        const price = p ? usd6(p.tool!.price) : usd6("0");
        expect(c._meta.price_usd, live.name).toBe(price);
        expect(manifest.tools.find((t: J) => t.name === live.name).price_usd).toBe(price);
        expect(c._meta.http_path).toBe(p?.path ?? (live.name === "get_free_api_key" ? "/v1/free-key" : null));
      }
    });

    it("the skills index digest is the sha256 of the SKILL.md served", () => {
      const index = json("/.well-known/agent-skills/index.json");
      const md = get(`/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`);
      expect(index.skills[0].url).toBe(`${base}/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`);
      expect(index.skills[0].digest).toBe(`sha256:${createHash("sha256").update(md.bytes).digest("hex")}`);
      expect(md.text).toMatch(new RegExp(`^---\\nname: ${SKILL_NAME}\\ndescription: "`));
    });

    it("the AI catalog points at the other documents with domain-anchored identifiers", () => {
      const c = json("/.well-known/ai-catalog.json");
      expect(c.specVersion).toBe("1.0");
      const host = new URL(base).hostname;
      for (const e of c.entries) {
        expect(e.identifier).toMatch(new RegExp(`^urn:air:${host.replace(/\./g, "\\.")}:[a-z0-9]+:[a-z0-9-]+$`));
        expect(e.displayName).toBeTypeOf("string");
        expect(e.type).toMatch(/^application\//);
      }
      expect(c.entries.map((e: J) => e.url)).toEqual(expect.arrayContaining([`${base}/openapi.json`, `${base}/.well-known/mcp/server-card.json`, `${base}/.well-known/agent-card.json`]));
    });
  });

  describe("base URL from the request", () => {
    /** GET with an explicit Host header (fetch does not let a caller set Host). */
    function getWithHost(path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
      const u = new URL(base);
      return new Promise((resolve, reject) => {
        const req = httpRequest({ hostname: u.hostname, port: u.port, path, method: "GET", headers: { ...headers, Host: host } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        });
        req.on("error", reject);
        req.end();
      });
    }

    it("ignores a spoofed X-Forwarded-Host and -Proto (no trusted proxy configured)", async () => {
      const spoof = { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" };
      const oas = await fetchDoc("/openapi.json", { headers: spoof });
      expect(oas.json!.servers[0].url).toBe(base);
      for (const path of ["/llms.txt", "/.well-known/mcp.json", "/.well-known/x402", "/v1/manifest"]) {
        const r = await fetchDoc(path, { headers: spoof });
        expect(r.status, path).toBe(200);
        expect(r.text, path).not.toContain("evil.example");
        expect(r.text, path).toContain(base);
      }
      const mcp = await fx.json("/mcp", { headers: spoof });
      expect(mcp.body.url).toBe(`${base}/mcp`);
    });

    it("serves each Host its own base, marked private so no shared cache passes it to other clients", async () => {
      const port = new URL(base).port;
      for (let i = 0; i < 25; i++) {
        const host = `tenant${i}.example.test:${port}`;
        const r = await getWithHost("/openapi.json", host);
        expect(r.status).toBe(200);
        expect(JSON.parse(r.text).servers[0].url).toBe(`http://${host}`);
        expect(r.headers["cache-control"]).toBe("private, max-age=300");
      }
      const manifest = await getWithHost("/v1/manifest", `tenant0.example.test:${port}`);
      expect(manifest.headers["cache-control"]).toBe("private, max-age=60");
      // A Host that is not a bare host[:port] is not echoed into the documents.
      const bad = await getWithHost("/llms.txt", "evil.example/phish?x=");
      expect(bad.status).toBeLessThan(500);
      expect(bad.text).not.toContain("evil.example/phish");
    });
  });

  describe("no document names a path the server does not serve", () => {
    const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
    type Method = (typeof METHODS)[number];

    /** Every "METHOD path" of this origin named anywhere (documents, the PDF's text, OpenAPI, the Link header). */
    async function namedOperations(): Promise<Set<string>> {
      const out = new Set<string>();
      const add = (method: string, p: string) => out.add(`${method} ${concrete(p.replace(/[#].*$/, "").replace(/[.,;:`'")\]]+$/, "")) || "/"}`);
      const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const abs = new RegExp(`${escaped}(/[^\\s"'<>)\\]\`|,]*)?`, "g");
      const mention = new RegExp(`\\b(${METHODS.join("|")}) (\\/[^\\s()[\\]\`|,;]*)`, "g");
      const scan = (text: string) => {
        for (const m of text.matchAll(abs)) add("GET", m[1] ?? "/");
        for (const m of text.matchAll(mention)) add(m[1]!, m[2]!);
      };
      /** Relative paths in JSON fields (transport.endpoint, http_path, endpoint, path...). */
      const walk = (v: unknown): void => {
        if (typeof v === "string") {
          if (/^\/[A-Za-z0-9._~{}-]+(\/[A-Za-z0-9._~{}-]+)*$/.test(v)) add("GET", v);
        } else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === "object") Object.values(v).forEach(walk);
      };
      for (const [path, r] of docs) {
        if (path === "/spec.pdf") continue;
        scan(r.text);
        if (r.json) walk(r.json);
      }
      const pdf = await extractText(await getDocumentProxy(new Uint8Array(get("/spec.pdf").bytes)), { mergePages: true });
      const pdfText = pdf.text as string;
      expect(pdfText).toContain("POST /mcp");
      scan(pdfText);
      for (const [p, item] of Object.entries(json("/openapi.json").paths as Record<string, J>)) for (const m of Object.keys(item)) add(m.toUpperCase(), p);
      for (const m of get("/openapi.json").headers.get("link")!.matchAll(/<([^>]+)>/g)) add("GET", m[1]!);
      return out;
    }

    /** The OpenAPI operation serving `method path` (templates match one or more segments). */
    function operationFor(method: string, path: string): J | undefined {
      const paths = json("/openapi.json").paths as Record<string, J>;
      const template = Object.keys(paths).find((t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-z]+\}/g, ".+")}$`).test(path));
      return template ? paths[template]![method.toLowerCase()] : undefined;
    }

    it("requests each one: paid paths answer 402 without credentials, every other one its documented success", async () => {
      const operations = [...(await namedOperations())];
      expect(operations.length).toBeGreaterThan(60);
      // Relative path fields are picked up too (the MCP card's transport endpoint, tool http_path).
      expect(operations).toEqual(expect.arrayContaining(["GET /mcp", "GET /v1/gas", "POST /mcp", "DELETE /mcp/tools", "GET /v1/free-key"]));
      const failures: string[] = [];
      for (const op of operations) {
        const [method, path] = op.split(" ") as [Method, string];
        const bare = path.split("?")[0]!;
        const headers: Record<string, string> = { Accept: "application/json" };
        if (FREE_ENDPOINTS.some((e) => e.internal && e.path === bare)) headers.Authorization = `Bearer ${ADMIN_TOKEN}`;
        const paid = method === "GET" ? productByPath(bare) : undefined;
        let body: string | undefined;
        if (method !== "GET" && method !== "DELETE") {
          headers["Content-Type"] = "application/json";
          // POST /mcp is the transport: a JSON-RPC ping. Elsewhere any JSON body.
          body = bare === "/mcp" && method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) : "{}";
          if (bare === "/mcp" && method === "POST") headers.Accept = "application/json, text/event-stream";
        }
        // A paid path named without its required parameters would answer 422 first.
        const res = await fx.get(paid && !path.includes("?") ? path + exampleQuery(paid) : path, { method, headers, body });
        await res.arrayBuffer();
        const expected = paid ? 402 : bare === "/v1/usage" ? 400 : 200;
        if (res.status !== expected) failures.push(`${op} → ${res.status} (expected ${expected})`);
        const declared = operationFor(method, bare);
        if (!declared) failures.push(`${op}: no OpenAPI operation`);
        else if (!declared.responses[String(res.status)]) failures.push(`${op} → ${res.status}: not a status its OpenAPI operation declares`);
      }
      expect(failures).toEqual([]);
    });

    it("the Link header is on every kind of response and its targets are discovery documents", async () => {
      for (const path of ["/health", "/v1/quote", "/v1/manifest", "/openapi.json", "/definitely-not-here"]) {
        const res = await fx.get(path, { headers: { Accept: "application/json" } });
        await res.arrayBuffer();
        const link = res.headers.get("link");
        expect(link, path).toBeTruthy();
        for (const m of link!.matchAll(/<([^>]+)>/g)) expect(DISCOVERY_DOCUMENTS.some((d) => d.path === m[1]), m[1]).toBe(true);
      }
    });
  });
});
