/**
 * Discovery documents built in-process from the catalog (no server): the OpenAPI
 * operations against the catalog (offer of spec 2.3 computed independently, parameters,
 * security, 200 schemas), the PDF's extracted text against every operation, the skill
 * digest, the oauth `rest` validation table and the Link header.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import SwaggerParser from "@apidevtools/swagger-parser";
import { extractText, getDocumentProxy } from "unpdf";
import { PRODUCTS } from "@/lib/catalog";
import { FREE_ENDPOINTS } from "@/lib/catalog/free";
import type { ParamDoc } from "@/lib/catalog/params";
import { ValidationError } from "@/lib/errors";
import { buildOpenApi, jsonSchemaOf } from "@/lib/discovery/openapi";
import { specPdf } from "@/lib/discovery/pdf";
import { skillMarkdown, skillsIndex } from "@/lib/discovery/skills";
import { DISCOVERY_DOCUMENTS, SKILL_NAME, linkHeader } from "@/lib/discovery/documents";
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
        expect(doc.components.schemas[name]).toEqual(jsonSchemaOf(p.output));
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
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path.startsWith("/mcp")) continue;
      for (const method of Object.keys(item)) expect(lines.has(`${method.toUpperCase()} ${path}`), `${method} ${path}`).toBe(true);
    }
    expect(flat).toContain("/mcp/{path}");
    for (const p of PRODUCTS) expect(flat).toContain(p.title);
    for (const t of toolList()) expect(flat).toContain(t.name);
  });

  it("is built once per process and base URL", async () => {
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
