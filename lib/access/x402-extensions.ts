/**
 * The x402 extensions every payment requirement declares, built here once for every
 * surface (the HTTP 402's v2 header and v1 body, the MCP payment-required result, the A2A
 * requirement: lib/access/payment-required.ts calls `withExtensions`):
 *
 * - `bazaar` (coinbase/x402 specs/extensions/bazaar.md): how the product is called and
 *   what it answers, from the catalog. HTTP: GET with `queryParams` (each parameter's
 *   example or default) and their schema; MCP: the tool name and the `inputSchema` the
 *   tool declares; A2A: the JSON-RPC `message/send` request that runs the skill. The output
 *   is the product's catalog example with its JSON Schema. Declared with
 *   `@x402/extensions`' own `declareDiscoveryExtension` and checked once per declaration
 *   with the package's validators (a declaration that fails is logged and left out, never
 *   sent).
 * - `payment-identifier` (specs/extensions/payment_identifier.md): declared optional
 *   (`required: false`) with the package's schema, and an id suggested for each
 *   requirement (see paymentIdentifierOffer). What the service does with the id a payment
 *   carries is the payment core's (lib/payments/authorize.ts, lib/payments/answers.ts).
 *
 * The requirement's `resource` also names the service for the Bazaar's listing
 * (`serviceName`, `tags`, `iconUrl`) within the spec's limits.
 *
 * Size: clients carry the v2 requirement in a response header (`PAYMENT-REQUIRED`, base64)
 * and echo its extensions back in `PAYMENT-SIGNATURE` (or the MCP `payment` argument,
 * at most 16 KiB). The whole v2 requirement is kept within REQUIREMENT_HEADER_BUDGET
 * bytes once encoded: the output schema is given in full when it fits, else cut to fewer
 * levels (types and required keys, no descriptions) until it does.
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension, isValidIconUrl, isValidServiceName, sanitizeTags, validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { declarePaymentIdentifierExtension, generatePaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { z } from "zod";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import type { Surface } from "@/lib/access/credentials";
import type { X402Required } from "@/lib/access/outcome";
import { inputSchemaFor, type JsonSchema } from "@/lib/mcp/arguments";
import { MCP_TRANSPORT } from "@/lib/mcp/info";
import { A2A_JSONRPC_PATH, META } from "@/lib/a2a/protocol";
import { paymentMethodsVersion, usableMethods } from "@/lib/payments/methods/registry";
import { log } from "@/lib/log";
import { SUGGESTED_ID_PREFIX } from "@/lib/payments/answers";

/**
 * Most bytes the base64 `PAYMENT-REQUIRED` header may take. 8 KB per header line is the
 * common default (nginx's buffer, aiohttp's field limit); Node's and undici's 16 KB are for
 * the whole header block, which the client's echo in PAYMENT-SIGNATURE shares with the
 * rest of the request.
 */
export const REQUIREMENT_HEADER_BUDGET = 8 * 1024;
/** Room kept for the refusal's `error` text, which each refusal sets after the requirement is built. */
const ERROR_RESERVE = 512;

/** How the service names itself on a requirement's `resource` (Bazaar: at most 32 printable ASCII characters). */
export const BAZAAR_SERVICE_NAME = "Echo x402 Sentiment";
/** Tags every product's resource carries, after the product's own (at most 5 in all). */
const SERVICE_TAGS = ["crypto", "market-data"];
/** The service's icon, at the site root (app/layout.tsx names the same file). */
const ICON_PATH = "/favicon.svg";

/** The v2 `resource` of a requirement, with the service metadata the Bazaar lists. */
export interface ServiceResource {
  url: string;
  description: string;
  mimeType: string;
  serviceName: string;
  tags: string[];
  /** Absent when the base URL is one the Bazaar refuses as an icon host (loopback, an IP address). */
  iconUrl?: string;
}

/** The resource of `product` at `url` (absolute), named for the Bazaar. */
export function serviceResource(product: AnyProduct, resource: { url: string; description: string; mimeType: string }): ServiceResource {
  const tags = sanitizeTags([...new Set([...product.tags, ...SERVICE_TAGS])]) ?? [];
  const iconUrl = new URL(ICON_PATH, resource.url).href;
  if (!isValidServiceName(BAZAAR_SERVICE_NAME)) throw new Error("BAZAAR_SERVICE_NAME is outside the Bazaar's limits");
  return { ...resource, serviceName: BAZAAR_SERVICE_NAME, tags, ...(isValidIconUrl(iconUrl) ? { iconUrl } : {}) };
}

// ---- JSON Schemas from the catalog ----

/** Keywords kept in the Bazaar's copy of an output schema: structure and constraints, no prose. */
const STRUCTURAL = new Set(["type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "allOf", "additionalProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minLength", "maxLength", "pattern", "format"]);

/**
 * `schema` without prose, down to `depth` levels of nested properties; a cut level keeps
 * only its type (and drops `additionalProperties: false`, which would now refuse the
 * properties it no longer lists).
 */
export function structuralSchema(schema: unknown, depth: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => structuralSchema(s, depth));
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  const cut = depth <= 0;
  for (const [k, v] of Object.entries(schema)) {
    if (!STRUCTURAL.has(k)) continue;
    if (k === "properties") {
      if (!cut) out.properties = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, structuralSchema(s, depth - 1)]));
    } else if (k === "items" || (k === "additionalProperties" && typeof v === "object")) {
      if (!cut) out[k] = structuralSchema(v, depth - 1);
    } else if (k === "required" || k === "additionalProperties") {
      if (!cut) out[k] = v;
    } else if (k === "anyOf" || k === "oneOf" || k === "allOf") {
      out[k] = structuralSchema(v, depth);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** The product's output as JSON Schema (what OpenAPI and the MCP tool publish, without `$schema`). */
function outputSchemaOf(product: AnyProduct): JsonSchema {
  const json = z.toJSONSchema(product.output, { target: "draft-2020-12", io: "output", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** One query parameter's JSON Schema on the HTTP surface (as OpenAPI writes it). */
function queryParamSchema(d: ParamDoc): JsonSchema {
  return {
    type: d.type,
    description: d.description,
    ...(d.default !== undefined ? { default: d.default } : {}),
    ...(d.minimum !== undefined ? { minimum: d.minimum } : {}),
    ...(d.maximum !== undefined ? { maximum: d.maximum } : {}),
    ...(d.enum ? { enum: d.enum } : {}),
    ...(d.pattern ? { pattern: d.pattern } : {}),
    ...(d.maxLength !== undefined ? { maxLength: d.maxLength } : {}),
  };
}

/** Example parameter values (what the Bazaar declares): each parameter's example, else its default; integers as numbers on HTTP, strings where the surface takes strings. */
export function exampleParams(product: AnyProduct, asStrings: boolean): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, p] of Object.entries(product.params) as Array<[string, { doc: ParamDoc }]>) {
    const v = p.doc.example ?? p.doc.default;
    if (v === undefined) continue;
    out[name] = asStrings ? String(v) : p.doc.type === "integer" ? Number(v) : v;
  }
  return out;
}

function queryParamsSchema(product: AnyProduct): JsonSchema {
  const docs = Object.entries(product.params) as Array<[string, { doc: ParamDoc }]>;
  const required = docs.filter(([, p]) => p.doc.required).map(([n]) => n);
  return { properties: Object.fromEntries(docs.map(([n, p]) => [n, queryParamSchema(p.doc)])), ...(required.length ? { required } : {}) };
}

/** The MCP tool's input schema as tools/list declares it (the credentials' wording follows the accepted methods). */
function toolInputSchema(product: AnyProduct): JsonSchema {
  const x402: string[] = [];
  const others: string[] = [];
  for (const m of usableMethods()) (m.requirement("0.01") ? x402 : others).push(m.facts().label);
  return inputSchemaFor(product.params, true, { x402, others });
}

/**
 * The JSON-RPC request (`POST /a2a/jsonrpc`, A2A's canonical binding) that runs the
 * product's skill: `message/send` with the parameters in a data part and the skill named
 * in the metadata; and its schema.
 */
function a2aBody(product: AnyProduct): { body: Record<string, unknown>; schema: JsonSchema } {
  const params = queryParamsSchema(product);
  const message = { kind: "message", role: "user", messageId: "00000000-0000-4000-8000-000000000000", parts: [{ kind: "data", data: exampleParams(product, false) }], metadata: { [META.skill]: product.id } };
  const body = { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } };
  const messageSchema = {
    type: "object",
    properties: {
      kind: { const: "message" },
      role: { const: "user" },
      messageId: { type: "string" },
      parts: { type: "array", items: { type: "object", properties: { kind: { type: "string" }, data: { type: "object", ...params } } } },
      metadata: { type: "object", properties: { [META.skill]: { const: product.id } }, required: [META.skill] },
    },
    required: ["role", "messageId", "parts", "metadata"],
  };
  const schema = {
    type: "object",
    properties: { jsonrpc: { const: "2.0" }, id: {}, method: { const: "message/send" }, params: { type: "object", properties: { message: messageSchema }, required: ["message"] } },
    required: ["jsonrpc", "method", "params"],
  };
  return { body, schema };
}

// ---- Declarations ----

/** The output schema depths tried, richest first (Infinity: the whole schema). */
const DEPTHS = [Number.POSITIVE_INFINITY, 4, 3, 2, 1, 0] as const;

function declare(product: AnyProduct, surface: Surface, depth: number): DiscoveryExtension {
  const output = { example: product.example, schema: depth === Number.POSITIVE_INFINITY ? outputSchemaOf(product) : (structuralSchema(outputSchemaOf(product), depth) as JsonSchema) };
  if (surface === "mcp") {
    const tool = product.tool;
    if (!tool) throw new Error(`${product.id} has no MCP tool`);
    const params = exampleParams(product, true);
    return declareDiscoveryExtension({ toolName: tool.name, description: product.description, transport: MCP_TRANSPORT, inputSchema: toolInputSchema(product), ...(Object.keys(params).length ? { example: params } : {}), output }).bazaar!;
  }
  if (surface === "a2a") {
    const { body, schema } = a2aBody(product);
    const declared = declareDiscoveryExtension({ bodyType: "json", input: body, inputSchema: schema, output }).bazaar!;
    return enrich(declared, "POST", A2A_JSONRPC_PATH);
  }
  const declared = declareDiscoveryExtension({ input: exampleParams(product, false), inputSchema: queryParamsSchema(product), output }).bazaar!;
  return enrich(declared, "GET", product.path);
}

/**
 * Sets the HTTP method as x402's resource server does when it answers a request (the
 * package's own enrichment, given the request's method and path; the paths here have no
 * parameter segments, so it adds no `routeTemplate`).
 */
function enrich(declared: DiscoveryExtension, method: string, path: string): DiscoveryExtension {
  const context = { method, adapter: { getPath: () => path } };
  return bazaarResourceServerExtension.enrichDeclaration!(declared, context) as DiscoveryExtension;
}

interface Declared {
  extension: DiscoveryExtension | null;
  bytes: number;
}

/** Declarations by product, surface, depth and payment-method version (the MCP input schema names the methods). */
const declarations = new Map<string, Declared>();

/** The product's Bazaar declaration at `depth`, checked once with the package's validators. */
function declaration(product: AnyProduct, surface: Surface, depth: number): Declared {
  const key = `${paymentMethodsVersion()}|${product.id}|${surface}|${depth}`;
  let d = declarations.get(key);
  if (!d) {
    const extension = declare(product, surface, depth);
    const problems = [...(validateDiscoveryExtensionSpec(extension as unknown as Record<string, unknown>).errors ?? []), ...(validateDiscoveryExtension(extension).errors ?? [])];
    if (problems.length) log.error("bazaar.invalid_declaration", { product: product.id, surface, problems: problems.slice(0, 3) });
    d = problems.length ? { extension: null, bytes: 0 } : { extension, bytes: Buffer.byteLength(JSON.stringify(extension)) };
    declarations.set(key, d);
  }
  return d;
}

const PAYMENT_ID = declarePaymentIdentifierExtension(false);

/**
 * The payment-identifier declaration of one requirement, with an id suggested for it.
 * Official x402 clients copy a requirement's extensions into the payment they sign and
 * keep the server's fields over their own, so every payment made from this requirement
 * carries this id even from a client that never heard of the extension. The id is what
 * makes a payment presented again trustworthy (lib/payments/answers.ts): it is never on
 * chain, so nobody who rebuilt a settled payment from the chain can present it with its
 * id, and a bundle's token in the kept answer is sealed under it. A client that sets
 * its own id keeps that one only if it writes the payload itself; either is fine. The
 * suggestion's prefix (SUGGESTED_ID_PREFIX) tells it from a client's own id: a
 * requirement reused for several payments gives them all the same suggestion.
 */
function paymentIdentifierOffer(): typeof PAYMENT_ID {
  return { ...PAYMENT_ID, info: { ...PAYMENT_ID.info, id: generatePaymentId(SUGGESTED_ID_PREFIX) } };
}

/** The surface whose call the Bazaar describes: MCP's tool when the call came over MCP (and the product has one), A2A's message, else the HTTP GET. */
function bazaarSurface(product: AnyProduct, surface: Surface): Surface {
  return surface === "mcp" && !product.tool ? "http" : surface;
}

/**
 * `required` with its `extensions` (bazaar and payment-identifier) and its resource named
 * for the Bazaar, the output schema as detailed as REQUIREMENT_HEADER_BUDGET allows.
 */
export function withExtensions(required: Omit<X402Required, "extensions">, product: AnyProduct, surface: Surface): X402Required {
  const resource = serviceResource(product, required.resource);
  const base: X402Required = { ...required, resource, extensions: { [PAYMENT_IDENTIFIER]: paymentIdentifierOffer() } };
  // The encoded size of everything but the Bazaar declaration, with room for the refusal's text.
  const fixed = Buffer.byteLength(JSON.stringify({ ...base, error: "" })) + ERROR_RESERVE + `,"bazaar":`.length;
  const on = bazaarSurface(product, surface);
  for (const depth of DEPTHS) {
    const d = declaration(product, on, depth);
    if (!d.extension) return base;
    if (base64Length(fixed + d.bytes) <= REQUIREMENT_HEADER_BUDGET || depth === 0) {
      return { ...base, extensions: { bazaar: d.extension, ...base.extensions } };
    }
  }
  return base;
}

/** Length of the base64 encoding of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/**
 * The x402 v1 form of the same declaration, for v1 clients' `accepts[].outputSchema`
 * (what v1 discovery reads: `input` with `discoverable`, `output` the example); undefined
 * when the requirement declares no HTTP input.
 */
export function v1OutputSchema(required: X402Required): Record<string, unknown> | undefined {
  const bazaar = required.extensions?.bazaar as DiscoveryExtension | undefined;
  const input = bazaar?.info.input;
  if (!input || input.type !== "http") return undefined;
  return { input: { ...input, discoverable: true }, ...(bazaar.info.output ? { output: bazaar.info.output.example } : {}) };
}
