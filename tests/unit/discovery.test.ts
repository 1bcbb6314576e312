/**
 * Discovery documents built in-process from the catalog (no server): the OpenAPI
 * operations against the catalog (offer of spec 2.3 computed independently, parameters,
 * security, 200 schemas against the zod shapes), the /mcp operations of spec 4.4, the
 * PDF's extracted text against every operation, the skill digest, the oauth `rest`
 * validation table, the Link header, the strict lookups, and the base URL: forwarded
 * headers trusted only behind declared proxies, caches bounded whatever the Host.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import Ajv2020 from "ajv/dist/2020.js";
import SwaggerParser from "@apidevtools/swagger-parser";
import { extractText, getDocumentProxy } from "unpdf";
import { PRODUCTS } from "@/lib/catalog";
import { FREE_ENDPOINTS } from "@/lib/catalog/free";
import type { ParamDoc } from "@/lib/catalog/params";
import { ValidationError } from "@/lib/errors";
import { buildOpenApi } from "@/lib/discovery/openapi";
import { PDF_CACHE_MAX, inlinePieces, specPdf, specPdfCacheSize } from "@/lib/discovery/pdf";
import { PDFDict, PDFDocument, PDFName, PDFRef } from "pdf-lib";
import { skillMarkdown, skillsIndex } from "@/lib/discovery/skills";
import { DISCOVERY_DOCUMENTS, SKILL_NAME, docPath, docUrl, linkHeader } from "@/lib/discovery/documents";
import { bundlePaths, freeEndpoint, productById } from "@/lib/catalog/lookup";
import { baseCacheHeaders, baseUrl, baseUrlInfo } from "@/lib/http/base-url";
import { resetEnvForTests } from "@/lib/config/env";
import { GET as openApiRoute } from "@/app/openapi.json/route";
import { GET as specPdfRoute } from "@/app/spec.pdf/route";
import { REST_MAX_LENGTH, validateRest } from "@/lib/discovery/oauth";
import { toolList } from "@/lib/discovery/tools";

const BASE = "https://agents.example.test";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
type Op = Record<string, any>;

/** "$0.005", "$0.10", "$25.00": the price as the documents write it for people. */
function label(usd: string): string {
  const [w, f = ""] = usd.split(".");
  return `$${w}.${f.replace(/0+$/, "").padEnd(2, "0")}`;
}

// The documents advertise exactly what the instance accepts (lib/payments/methods): these
// checks describe an instance that takes x402 on Base, so it is configured as one.
process.env.PAY_TO_ADDRESS ??= "0x0000000000000000000000000000000000000001";
process.env.FACILITATOR_URL ??= "http://127.0.0.1:9/facilitator";
resetEnvForTests();

const doc = buildOpenApi(BASE) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };

/** USD decimal string → USDC base units, by string arithmetic (independent of lib/payments/price). */
function baseUnits(usd: string): string {
  const [w, f = ""] = usd.split(".");
  return String(Number(w) * 1_000_000 + Number(f.padEnd(6, "0").slice(0, 6)));
}

describe("OpenAPI document from the catalog", () => {
  it("is OpenAPI 3.1.0, API version 0.1.0, and passes swagger-parser validation", async () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.1.0");
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it("has unique operationIds", () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  for (const p of PRODUCTS) {
    describe(`GET ${p.path}`, () => {
      const op = () => doc.paths[p.path]?.get as Op;

      it("declares the spec 2.3 payment offer under x-payment-info", () => {
        const offer = op()["x-payment-info"];
        expect(offer.protocols).toEqual([{ x402: {} }]);
        expect(offer.price.mode).toBe("fixed");
        expect(offer.price.currency).toBe("USD");
        expect(offer.price.amount).toMatch(/^\d+\.\d{6}$/);
        expect(Number(offer.price.amount)).toBe(Number(p.httpPrice));
        expect(offer.offers).toHaveLength(1);
        const o = offer.offers[0];
        expect(o).toMatchObject({ intent: "charge", method: "evm", network: "eip155:8453", amount: baseUnits(p.httpPrice), currency: BASE_USDC });
        expect(o.description).toContain(label(p.httpPrice));
        expect(o.description).toMatch(/exact/);
        expect(o.description).toMatch(/directly to the provider wallet/);
      });

      it("lists its parameters from the catalog", () => {
        const params = (op().parameters as Op[]).map((x) => ({ name: x.name, in: x.in, required: x.required, type: x.schema.type, default: x.schema.default }));
        const expected = Object.entries(p.params as Record<string, { doc: ParamDoc }>).map(([name, { doc: d }]) => ({ name, in: "query", required: d.required, type: d.type, default: d.default }));
        expect(params).toEqual(expected);
        if (expected.length) expect(op().responses["422"]).toBeDefined();
        else expect(op().responses["422"]).toBeUndefined();
      });

      it("answers 200 with the catalog's output schema, 402 with the payment requirement", () => {
        const ref = op().responses["200"].content["application/json"].schema.$ref as string;
        const name = ref.split("/").at(-1)!;
        // Checked against the zod object itself, not against the converter's own output.
        const schema = doc.components.schemas[name] as { type: string; properties: Record<string, unknown> };
        const shape = (p.output as z.ZodObject).shape as Record<string, z.ZodType>;
        expect(schema.type).toBe("object");
        expect(Object.keys(schema.properties)).toEqual(Object.keys(shape));
        const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
        const mandatory = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
        expect(mandatory.length).toBeGreaterThan(0);
        expect(validate({})).toBe(false);
        for (const k of mandatory) expect((validate.errors ?? []).some((e) => e.params && (e.params as { missingProperty?: string }).missingProperty === k), k).toBe(true);
        expect(op().responses["402"].$ref).toBe("#/components/responses/PaymentRequired");
        expect(op().responses["503"]).toBeDefined();
      });

      it("is satisfied by x402 or by the credentials the gate accepts", () => {
        const schemes = (op().security as Op[]).map((s) => Object.keys(s)[0]);
        expect(schemes).toContain("x402");
        expect(schemes.includes("ApiKeyAuth")).toBe(p.kind === "data" && p.freeTier);
        expect(schemes.includes("BundleToken")).toBe(p.kind === "data");
        expect(op()["x-mcp-tool"]?.name ?? null).toBe(p.tool?.name ?? null);
      });
    });
  }

  it("documents every free endpoint and discovery document, /internal ones marked x-internal", () => {
    for (const e of FREE_ENDPOINTS) {
      const op = doc.paths[e.path]?.get;
      expect(op, e.path).toBeDefined();
      expect(op!.security).toEqual(e.internal ? [{ AdminBearer: [] }] : e.path === "/v1/usage" ? [{ ApiKeyAuth: [] }, { BundleToken: [] }] : []);
      expect(Boolean(op!["x-internal"])).toBe(Boolean(e.internal));
    }
    for (const d of DISCOVERY_DOCUMENTS) expect(doc.paths[d.path]?.get?.responses["200"].content[d.mediaType], d.path).toBeDefined();
    expect(doc.paths["/.well-known/oauth-protected-resource/{rest}"]!.get!.responses["422"]).toBeDefined();
  });

  it("defines the 402 and 422 (spec 2.6) bodies", () => {
    const v = doc.components.schemas.ValidationError as Op;
    expect(v.required).toEqual(["loc", "msg", "type"]);
    expect(Object.keys(v.properties)).toEqual(["loc", "msg", "type", "input", "ctx"]);
    const pr = doc.components.schemas.PaymentRequired as Op;
    expect(pr.required).toEqual(expect.arrayContaining(["x402Version", "accepts", "endpoint", "price", "instruction"]));
  });
});

describe("PDF of the API description", () => {
  it("is a real PDF whose extracted text names every operation", async () => {
    const bytes = await specPdf(BASE);
    expect(Buffer.from(bytes.slice(0, 5)).toString("latin1")).toBe("%PDF-");
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { totalPages, text } = await extractText(pdf, { mergePages: true });
    expect(totalPages).toBeGreaterThan(5);
    const flat = text.replace(/\s+/g, " ");
    // Each operation's section starts with its own "METHOD /path" heading line.
    const lines = new Set(text.split("\n").map((l) => l.trim()));
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        expect(lines.has(`${method.toUpperCase()} ${path}`), `${method} ${path}`).toBe(true);
        operations++;
      }
    }
    // Spec 4.4: five methods on /mcp and five on /mcp/{path}, each its own section.
    for (const path of ["/mcp", "/mcp/{path}"]) for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(lines.has(`${m} ${path}`), `${m} ${path}`).toBe(true);
    expect(operations).toBeGreaterThan(PRODUCTS.length + DISCOVERY_DOCUMENTS.length + 10);
    expect(flat).toContain("/mcp/{path}");
    for (const p of PRODUCTS) expect(flat).toContain(p.title);
    for (const t of toolList()) expect(flat).toContain(t.name);
  });

  it("renders code spans as code (no backticks or markdown markers) in fonts embedded in the file", async () => {
    const bytes = await specPdf(BASE);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
    expect(text).not.toContain("`");
    expect(text).not.toContain("**");
    // A code span of a catalog description ("`limit` (1-50, default 10)"), drawn as code.
    expect(text).toMatch(/\blimit\s*\(1-50, default 10\)/);
    const doc = await PDFDocument.load(bytes);
    const fonts: PDFDict[] = [];
    const descriptors: PDFDict[] = [];
    for (const [, obj] of doc.context.enumerateIndirectObjects()) {
      if (!(obj instanceof PDFDict)) continue;
      const type = obj.get(PDFName.of("Type"));
      if (type === PDFName.of("Font")) fonts.push(obj);
      if (type === PDFName.of("FontDescriptor")) descriptors.push(obj);
    }
    // Three faces (regular, bold, mono), each a composite font over an embedded TrueType subset: no standard-14 font the reader substitutes.
    expect(fonts.filter((f) => f.get(PDFName.of("Subtype")) === PDFName.of("Type0"))).toHaveLength(3);
    expect(fonts.filter((f) => f.get(PDFName.of("Subtype")) === PDFName.of("Type1"))).toEqual([]);
    expect(descriptors).toHaveLength(3);
    for (const d of descriptors) {
      expect(d.get(PDFName.of("FontFile2")), String(d.get(PDFName.of("FontName")))).toBeInstanceOf(PDFRef);
      expect(String(d.get(PDFName.of("FontName")))).toMatch(/^\/DejaVuSans/);
    }
  });

  it("splits markdown code spans from plain text", () => {
    expect(inlinePieces("Use `tickers` (see ``a`b``), **bold** and a lone ` backtick")).toEqual([
      { text: "Use ", code: false },
      { text: "tickers", code: true },
      { text: " (see ", code: false },
      { text: "a`b", code: true },
      { text: "), bold and a lone ` backtick", code: false },
    ]);
  });

  it("is built once per base URL while it is among the last few used", async () => {
    expect(await specPdf(BASE)).toBe(await specPdf(BASE));
  });
});

describe("agent skill", () => {
  it("has agentskills.io front matter and an index digest over the exact bytes", () => {
    const md = skillMarkdown(BASE);
    const fm = md.match(/^---\n([\s\S]*?)\n---\n/);
    expect(fm).not.toBeNull();
    // Top-level "key: value" lines; the description is a YAML double-quoted (JSON) string.
    const meta = Object.fromEntries(fm![1]!.split("\n").filter((l) => /^[a-z_]+:/.test(l)).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]));
    expect(meta.name).toBe(SKILL_NAME);
    expect(JSON.parse(meta.description!)).toMatch(/x402/);
    const index = skillsIndex(BASE) as { skills: Array<{ name: string; digest: string; url: string; type: string }> };
    expect(index.skills).toHaveLength(1);
    expect(index.skills[0]).toMatchObject({ name: SKILL_NAME, type: "skill-md", url: `${BASE}/.well-known/agent-skills/${SKILL_NAME}/SKILL.md` });
    expect(index.skills[0]!.digest).toBe(`sha256:${createHash("sha256").update(md).digest("hex")}`);
    for (const p of PRODUCTS) expect(md).toContain(`GET ${p.path} |`);
  });
});

describe("oauth-protected-resource/{rest}", () => {
  it.each(["v1/quote", "mcp", "v1/bundle/enterprise", "a.b~c_d-e", "x".repeat(REST_MAX_LENGTH)])("accepts %s", (rest) => {
    expect(validateRest(rest)).toBe(rest);
  });

  it.each([
    ["a b", "string_pattern_mismatch"],
    ["../etc", "string_pattern_mismatch"],
    ["v1//quote", "string_pattern_mismatch"],
    ["v1/quote/", "string_pattern_mismatch"],
    ["%2e", "string_pattern_mismatch"],
    ["x".repeat(REST_MAX_LENGTH + 1), "string_too_long"],
  ])("rejects %s with a spec 2.6 issue (%s)", (rest, type) => {
    try {
      validateRest(rest);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      const d = (err as ValidationError).detail;
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({ type, loc: ["path", "rest"] });
      expect(typeof d[0]!.msg).toBe("string");
    }
  });
});

describe("Link header", () => {
  it("points only at discovery documents, with registered relations", () => {
    const entries = linkHeader().split(", ");
    expect(entries.length).toBeGreaterThanOrEqual(4);
    const rels = new Set<string>();
    for (const e of entries) {
      const m = e.match(/^<([^>]+)>; rel="([^"]+)"; type="([^"]+)"$/);
      expect(m, e).not.toBeNull();
      const d = DISCOVERY_DOCUMENTS.find((x) => x.path === m![1]);
      expect(d).toBeDefined();
      expect(d!.mediaType).toBe(m![3]);
      rels.add(m![2]!);
    }
    expect([...rels]).toEqual(expect.arrayContaining(["api-catalog", "service-desc", "service-doc"]));
  });
});

describe("/mcp operations (spec 4.4)", () => {
  it("declare GET, POST, PUT, PATCH, DELETE on /mcp and /mcp/{path}, each answering 200 JSON or 422", () => {
    for (const path of ["/mcp", "/mcp/{path}"]) {
      const item = doc.paths[path]!;
      expect(Object.keys(item).sort(), path).toEqual(["delete", "get", "patch", "post", "put"]);
      for (const [method, op] of Object.entries(item)) {
        expect(op.responses["200"].content["application/json"], `${method} ${path}`).toBeDefined();
        expect(op.responses["422"].$ref, `${method} ${path}`).toBe("#/components/responses/ValidationFailed");
        // 405 only where an MCP client relies on it: GET /mcp asking for an SSE stream.
        expect(op.responses["405"] !== undefined, `${method} ${path}`).toBe(path === "/mcp" && method === "get");
        expect(op.parameters[0]).toMatchObject({ name: "path", in: path === "/mcp" ? "query" : "path", required: path !== "/mcp" });
      }
    }
  });
});

describe("strict lookups", () => {
  it("return what the catalog and document list hold", () => {
    expect(docUrl(BASE, "/openapi.json")).toBe(`${BASE}/openapi.json`);
    expect(docPath(`/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`)).toBe(`/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`);
    expect(productById("bundle").kind).toBe("bundle");
    expect(productById("sentiment").path).toBe("/v1/sentiment");
    expect(freeEndpoint("/v1/free-key").title).toMatch(/key/i);
    expect(bundlePaths()).toEqual(["/v1/bundle", "/v1/bundle/enterprise"]);
  });

  it("throw for a renamed or missing entry instead of falling back", () => {
    expect(() => docUrl(BASE, "/openapi.yaml")).toThrow(/not a discovery document/);
    expect(() => docPath("/v1/quote")).toThrow(/not a discovery document/);
    expect(() => productById("quotes")).toThrow(/no catalog product/);
    expect(() => freeEndpoint("/v1/freekey")).toThrow(/no free endpoint/);
  });
});

describe("base URL", () => {
  const saved = { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL, TRUST_PROXY_HOPS: process.env.TRUST_PROXY_HOPS };
  const setEnv = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvForTests();
  };
  afterEach(() => setEnv(saved));
  const req = (headers: Record<string, string>, url = "http://10.0.0.5:3000/openapi.json") => new Request(url, { headers });

  it("ignores X-Forwarded-Host and -Proto unless proxies are trusted", () => {
    setEnv({ PUBLIC_BASE_URL: undefined, TRUST_PROXY_HOPS: undefined });
    const spoofed = req({ host: "api.example.test", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    expect(baseUrl(spoofed)).toBe("http://api.example.test");
    expect(baseUrlInfo(spoofed)).toEqual({ base: "http://api.example.test", derived: true, vary: [] });
    // Next.js turns X-Forwarded-Proto into the request URL's scheme: that must not count either.
    expect(baseUrl(req({ host: "api.example.test", "x-forwarded-proto": "https" }, "https://api.example.test/openapi.json"))).toBe("http://api.example.test");
  });

  it("honours them behind TRUST_PROXY_HOPS proxies, taking the entry the outermost trusted one added", () => {
    setEnv({ PUBLIC_BASE_URL: undefined, TRUST_PROXY_HOPS: "1" });
    expect(baseUrl(req({ host: "internal:3000", "x-forwarded-host": "api.example.test", "x-forwarded-proto": "https" }))).toBe("https://api.example.test");
    // A client-sent value before the proxy's own entry is not used.
    expect(baseUrl(req({ host: "internal:3000", "x-forwarded-host": "evil.example, api.example.test", "x-forwarded-proto": "http, https" }))).toBe("https://api.example.test");
    setEnv({ TRUST_PROXY_HOPS: "2" });
    expect(baseUrl(req({ host: "internal:3000", "x-forwarded-host": "evil.example, api.example.test, lb.internal" }))).toBe("http://api.example.test");
    // Malformed forwarded values fall back to Host and the request's scheme.
    expect(baseUrl(req({ host: "internal:3000", "x-forwarded-host": "evil.example/path?x", "x-forwarded-proto": "javascript" }))).toBe("http://internal:3000");
    expect(baseUrlInfo(req({ host: "a.test" })).vary).toEqual(["X-Forwarded-Host", "X-Forwarded-Proto"]);
  });

  it("uses Host only when it is a bare host[:port], else the request URL's host", () => {
    setEnv({ PUBLIC_BASE_URL: undefined, TRUST_PROXY_HOPS: undefined });
    expect(baseUrl(req({ host: "[::1]:8080" }))).toBe("http://[::1]:8080");
    expect(baseUrl(req({ host: "API.Example.test:443" }))).toBe("http://api.example.test:443");
    for (const bad of ["evil.example/x", "a b", "user@evil.example", "evil.example:port", "x".repeat(300)]) {
      expect(baseUrl(req({ host: bad })), bad).toBe("http://10.0.0.5:3000");
    }
  });

  it("PUBLIC_BASE_URL wins over every header and makes documents shareable", () => {
    setEnv({ PUBLIC_BASE_URL: "https://pay.example.test/", TRUST_PROXY_HOPS: "1" });
    const info = baseUrlInfo(req({ host: "evil.example", "x-forwarded-host": "evil.example" }));
    expect(info).toEqual({ base: "https://pay.example.test", derived: false, vary: [] });
    expect(baseCacheHeaders(info, 300)).toEqual({ "Cache-Control": "public, max-age=300" });
  });

  it("keeps documents built from request headers out of shared caches", () => {
    expect(baseCacheHeaders({ base: "http://a.test", derived: true, vary: [] }, 300)).toEqual({ "Cache-Control": "private, max-age=300" });
    expect(baseCacheHeaders({ base: "http://a.test", derived: true, vary: ["X-Forwarded-Host", "X-Forwarded-Proto"] }, 60)).toEqual({
      "Cache-Control": "private, max-age=60",
      Vary: "X-Forwarded-Host, X-Forwarded-Proto",
    });
  });
});

describe("caches stay bounded whatever the Host header", () => {
  it("/openapi.json answers each host with its own servers entry from one shared document", async () => {
    for (let i = 0; i < 40; i++) {
      const host = `h${i}.flood.test`;
      const res = await openApiRoute(new Request(`http://${host}/openapi.json`, { headers: { host } }));
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, max-age=300");
      const body = (await res.json()) as { servers: Array<{ url: string }> };
      expect(body.servers).toEqual([{ url: `http://${host}`, description: "This instance" }]);
    }
    // Everything but `servers` is one object, whatever the base.
    expect(buildOpenApi("http://a.test").paths).toBe(buildOpenApi("http://b.test").paths);
    expect(buildOpenApi("http://a.test").components).toBe(buildOpenApi("http://c.test").components);
  });

  it("/spec.pdf keeps at most PDF_CACHE_MAX documents", async () => {
    expect(PDF_CACHE_MAX).toBeLessThanOrEqual(8);
    for (let i = 0; i < PDF_CACHE_MAX + 6; i++) {
      const host = `p${i}.flood.test`;
      const res = await specPdfRoute(new Request(`http://${host}/spec.pdf`, { headers: { host } }));
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString("latin1")).toBe("%PDF-");
      expect(specPdfCacheSize()).toBeLessThanOrEqual(PDF_CACHE_MAX);
    }
    expect(specPdfCacheSize()).toBe(PDF_CACHE_MAX);
    // The most recently used base is still served from the cache.
    expect(await specPdf(`http://p${PDF_CACHE_MAX + 5}.flood.test`)).toBe(await specPdf(`http://p${PDF_CACHE_MAX + 5}.flood.test`));
  });
});

describe("an instance with no per-call payment configured", () => {
  const keys = ["PAY_TO_ADDRESS", "FACILITATOR_URL", "FACILITATOR_PRIVATE_KEY", "SOLANA_PAY_TO_ADDRESS", "SOLANA_FEE_PAYER_SECRET", "STELLAR_PAY_TO_ADDRESS"] as const;
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  afterEach(() => {
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetEnvForTests();
  });

  it("/v1/manifest answers what its own OpenAPI schema admits (network null), here and on an instance taking x402", async () => {
    const { catalogManifest } = await import("@/lib/discovery/manifest");
    const check = () => {
      const oas = buildOpenApi(BASE) as { components: { schemas: Record<string, object> } };
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(oas.components.schemas.Manifest!);
      const manifest = catalogManifest(new Request(`${BASE}/v1/manifest`), null, []);
      expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
      return manifest as { network: string | null; endpoints: Array<{ network: string | null }> };
    };
    expect(check().network).toBe("eip155:8453");
    for (const k of keys) delete process.env[k];
    resetEnvForTests();
    const none = check();
    expect(none.network).toBeNull();
    expect(none.endpoints.every((e) => e.network === null)).toBe(true);
  });

  it("declares the bundle purchase as needing a payment (never security: []) and says no payment is accepted here", () => {
    for (const k of keys) delete process.env[k];
    resetEnvForTests();
    const oas = buildOpenApi(BASE) as { paths: Record<string, Record<string, Op>>; components: { securitySchemes: Record<string, { description: string }> } };
    for (const path of bundlePaths()) expect(oas.paths[path]!.get!.security, path).toEqual([{ x402: [] }]);
    expect(oas.components.securitySchemes.x402!.description).toMatch(/not configured on this instance: every payment is refused/);
    expect(oas.components.securitySchemes.x402v2).toBeUndefined();
    // Data operations keep the credentials that do work here.
    expect(oas.paths["/v1/fng"]!.get!.security).toEqual([{ BundleToken: [] }, { ApiKeyAuth: [] }]);
  });
});
