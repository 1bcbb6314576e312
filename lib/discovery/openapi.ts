/**
 * /openapi.json: OpenAPI 3.1.0 generated from the catalog and nothing else.
 *
 * - One GET operation per catalog product: query parameters from `param.doc`, the 200
 *   schema from the product's zod output schema (JSON Schema 2020-12, OpenAPI 3.1's
 *   dialect), 402 (x402 v1 body + spec 2.2 fields, v2 `PAYMENT-REQUIRED` header), 422
 *   (spec 2.6) when it declares parameters, 429 when a free-tier key can hit its quota,
 *   503 with Retry-After.
 * - The spec 2.3 payment offer on each paid operation under `x-payment-info`, the
 *   operation extension public x402/MPP discovery tooling reads (protocols, price,
 *   offers[]).
 * - Security: each paid operation lists the credentials that satisfy it as alternatives
 *   (x402 v1 header, x402 v2 header, bundle token, and the free-tier key where the free
 *   tier covers the product); free operations declare `security: []`.
 * - The free endpoints, the discovery documents and the MCP endpoint.
 * - Every status an operation can answer is declared, 431 (headers over the server's
 *   limit, refused before routing) on all of them; `info.license` names the terms.
 */
import { z } from "zod";
import { ERROR_CODES } from "@/lib/errors/codes";
import type { AnyProduct } from "@/lib/catalog/types";
import { toolTitle } from "@/lib/catalog/types";
import type { ParamDoc, ParamSet } from "@/lib/catalog/params";
import { FREE_ENDPOINTS, type FreeEndpoint } from "@/lib/catalog/free";
import { FREE_KEY_PARAMS } from "@/lib/access/free-key";
import { sampleSnapshotSchema } from "@/lib/market/xlm/snapshot";
import { paymentOffer } from "@/lib/payments/offer";
import { paymentMethodsVersion } from "@/lib/payments/methods/registry";
import { usd6, usdLabel } from "@/lib/payments/price";
import { WEB_PAGES } from "@/lib/web/pages";
import { DISCOVERY_DOCUMENTS, docUrl, type DiscoveryDocument } from "@/lib/discovery/documents";
import { bundlePaths, freeEndpoint, productById } from "@/lib/catalog/lookup";
import { REST_MAX_LENGTH, REST_PATTERN } from "@/lib/discovery/oauth";
import { MCP_PATH_PARAM } from "@/lib/mcp/paths";
import { a2aOpenApiPaths } from "@/lib/a2a/info";
import { SERVICE, acceptedCredentials, freeQuota, paidProducts, paramDocs, paymentFacts, x402Phrase } from "@/lib/discovery/service";

type Json = Record<string, unknown>;

/** "/v1/bundle/enterprise" → "getBundleEnterprise". */
export function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, "/")
    .replace(/^\/\.well-known\//, "/well-known/")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

function schemaName(p: AnyProduct): string {
  return p.id.split(/[^A-Za-z0-9]+/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") + "Output";
}

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect), embeddable under components. */
export function jsonSchemaOf(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output", unrepresentable: "any" }) as Json;
  delete out.$schema;
  if (JSON.stringify(out).includes('"$ref"')) throw new Error("output schema uses $ref; inline it before embedding it in OpenAPI");
  return out;
}

function parameterOf(name: string, d: ParamDoc): Json {
  const schema: Json = { type: d.type };
  if (d.default !== undefined) schema.default = d.default;
  if (d.minimum !== undefined) schema.minimum = d.minimum;
  if (d.maximum !== undefined) schema.maximum = d.maximum;
  if (d.enum) schema.enum = d.enum;
  if (d.pattern) schema.pattern = d.pattern;
  if (d.maxLength !== undefined) schema.maxLength = d.maxLength;
  return { name, in: "query", required: d.required, description: d.description, schema, ...(d.example !== undefined ? { example: d.example } : {}) };
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: Json) => ({ "application/json": { schema } });

type PaymentFacts = ReturnType<typeof paymentFacts>;

/**
 * The credentials a paid operation accepts. An operation only a per-call payment can
 * satisfy (a bundle purchase) still declares that payment on an instance that takes none:
 * `security: []` would say it needs no credential, yet it always answers 402. The x402
 * scheme's description then says this instance refuses every payment (paymentSchemes).
 */
function securityOf(p: AnyProduct, pay: PaymentFacts): Json[] {
  const alts: Json[] = [];
  if (pay.perCall) alts.push({ x402: [] });
  if (pay.x402.length > 0) alts.push({ x402v2: [] });
  if (p.kind === "data") alts.push({ BundleToken: [] });
  if (p.kind === "data" && p.freeTier) alts.push({ ApiKeyAuth: [] });
  return alts.length > 0 ? alts : [{ x402: [] }];
}

function paidOperation(p: AnyProduct, pay: PaymentFacts): Json {
  const params = paramDocs(p.params as ParamSet);
  const lines = [
    p.description,
    "",
    `**Price:** ${usdLabel(p.httpPrice)} per call (HTTP declaration)${p.tool ? `; MCP tool \`${p.tool.name}\`: ${usdLabel(p.tool.price)}` : "; no MCP tool"}.`,
    `**Accepted credentials:** ${acceptedCredentials(p).join(", ")}.`,
  ];
  if (p.kind === "data") lines.push(`**Bundle cost:** ${p.credits} credit${p.credits === 1 ? "" : "s"} per call.`);
  if (p.cacheTtlSeconds > 0) lines.push(`**Cache:** identical requests reuse a result for ${p.cacheTtlSeconds} s.`);
  const responses: Json = {
    "200": {
      description: `${p.title}.`,
      headers: {
        "X-Receipt-Id": ref("headers", "ReceiptId"),
        ...(pay.perCall ? { "PAYMENT-RESPONSE": ref("headers", "PaymentResponse"), "X-PAYMENT-RESPONSE": ref("headers", "XPaymentResponse") } : {}),
      },
      content: json(ref("schemas", schemaName(p))),
    },
    "402": ref("responses", "PaymentRequired"),
  };
  if (params.length) responses["422"] = ref("responses", "ValidationFailed");
  if (p.kind === "data" && p.freeTier) responses["429"] = ref("responses", "QuotaExhausted");
  responses["503"] = ref("responses", p.kind === "data" ? "UpstreamUnavailable" : "ServiceUnavailable");
  return {
    operationId: operationId("get", p.path),
    summary: p.title,
    description: lines.join("\n"),
    tags: p.tags,
    parameters: params.map(([name, d]) => parameterOf(name, d)),
    security: securityOf(p, pay),
    responses,
    "x-payment-info": paymentOffer(p.httpPrice),
    ...(p.tool ? { "x-mcp-tool": { name: p.tool.name, title: toolTitle(p.tool), price: usd6(p.tool.price) } } : {}),
    "x-credits": p.credits,
    "x-free-tier": p.kind === "data" && p.freeTier,
  };
}

const FREE_KEY_RESPONSES: Json = {
  "200": { description: "The new key (shown once), its quota and the paths it covers.", content: json({ type: "object", required: ["api_key", "daily_quota"], properties: { api_key: { type: "string" }, daily_quota: { type: "integer" }, remaining_today: { type: "integer" }, resets_at: { type: "string", format: "date-time" }, covers: { type: "array", items: { type: "string" } } } }) },
  "422": ref("responses", "ValidationFailed"),
  "429": ref("responses", "RateLimited"),
  "503": ref("responses", "ServiceUnavailable"),
};

/** POST form of the free-key endpoint: the same parameters in a JSON or form body (kept out of URLs and logs). */
function freeKeyPost(): Json {
  const e = freeEndpoint("/v1/free-key");
  const properties = Object.fromEntries(paramDocs(FREE_KEY_PARAMS).map(([name, d]) => [name, { ...(parameterOf(name, d).schema as Json), description: d.description }]));
  const schema = { type: "object", additionalProperties: false, properties };
  return {
    operationId: operationId("post", e.path),
    summary: `${e.title} (body)`,
    description: `${e.description} Same as GET with the parameters in a JSON or form body, so an e-mail stays out of URLs and access logs; a bad body answers 422 at ["body", …].`,
    tags: ["free"],
    security: [],
    requestBody: { required: false, content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } } },
    responses: { ...FREE_KEY_RESPONSES, "413": ref("responses", "PayloadTooLarge") },
  };
}

/** Per-path details of the free endpoints; every key must be one of FREE_ENDPOINTS. */
const FREE_DETAILS: Record<string, (e: FreeEndpoint) => Json> = {
  "/v1/sample": () => ({
    responses: {
      "200": { description: "Reduced sentiment snapshot.", headers: { "RateLimit-Limit": ref("headers", "RateLimitLimit"), "RateLimit-Remaining": ref("headers", "RateLimitRemaining") }, content: json(ref("schemas", "SampleSnapshot")) },
      "429": ref("responses", "RateLimited"),
      "503": ref("responses", "UpstreamUnavailable"),
    },
  }),
  "/v1/manifest": () => ({ responses: { "200": { description: "Catalog of the paid endpoints with live prices; always 200.", content: json(ref("schemas", "Manifest")) } } }),
  "/v1/free-key": () => ({
    parameters: paramDocs(FREE_KEY_PARAMS).map(([name, d]) => parameterOf(name, d)),
    responses: FREE_KEY_RESPONSES,
  }),
  "/health/live": () => ({ responses: { "200": { description: "The process serves requests.", content: json({ type: "object", required: ["status"], properties: { status: { const: "live" } } }) } } }),
  "/health/ready": () => ({
    responses: {
      "200": { description: "The database answers.", content: json({ type: "object", required: ["status"], properties: { status: { const: "ready" } } }) },
      "503": { description: "The database does not answer.", headers: { "Retry-After": ref("headers", "RetryAfter") }, content: json({ type: "object", required: ["status"], properties: { status: { const: "not_ready" } } }) },
    },
  }),
  "/v1/usage": () => ({
    security: [{ ApiKeyAuth: [] }, { BundleToken: [] }],
    responses: {
      "200": { description: "Quota or credits left and the recent charged calls of the credential sent.", content: json({ type: "object", required: ["kind"], properties: { kind: { type: "string", enum: ["api_key", "bundle"] } } }) },
      "400": { description: "No API key or bundle token in the request.", content: json(ref("schemas", "ErrorResponse")) },
      "404": ref("responses", "NotFound"),
      "503": ref("responses", "ServiceUnavailable"),
    },
  }),
  "/health": () => ({
    responses: {
      "200": { description: "Database reachable; upstream status (status ok or degraded).", content: json({ type: "object", required: ["status"], properties: { status: { type: "string", enum: ["ok", "degraded", "down"] } } }) },
      "503": { description: "The database is down (status down).", headers: { "Retry-After": ref("headers", "RetryAfter") }, content: json({ type: "object" }) },
    },
  }),
  "/v1/bundles/debug": () => ({
    security: [{ AdminBearer: [] }],
    "x-internal": true,
    responses: { "200": { description: "Ledger counts and health.", content: json({ type: "object" }) }, "404": ref("responses", "NotFound"), "503": ref("responses", "ServiceUnavailable") },
  }),
};

function freeOperation(e: FreeEndpoint): Json {
  const detail = FREE_DETAILS[e.path];
  if (!detail) throw new Error(`no OpenAPI details for free endpoint ${e.path}`);
  const d = detail(e);
  return {
    operationId: operationId("get", e.path),
    summary: e.title,
    description: e.description,
    tags: ["free"],
    parameters: [],
    security: [],
    ...d,
  };
}

const TEXT_TYPES = new Set(["text/plain", "text/markdown", "application/xml"]);

function discoveryOperation(d: DiscoveryDocument): Json {
  const templated = d.path.includes("{");
  const schema: Json = d.mediaType === "application/pdf" ? { type: "string", format: "binary" } : TEXT_TYPES.has(d.mediaType) ? { type: "string" } : { type: "object" };
  const content: Json = { [d.mediaType]: { schema } };
  const responses: Json = { "200": { description: d.title, headers: { "Cache-Control": ref("headers", "CacheControl") }, content } };
  if (templated) {
    responses["404"] = ref("responses", "NotFound");
    responses["422"] = ref("responses", "ValidationFailed");
  }
  return {
    operationId: operationId("get", d.path),
    summary: d.title,
    description: d.description,
    tags: ["discovery"],
    parameters: templated
      ? [{ name: "rest", in: "path", required: true, description: "Resource path under this service, e.g. `v1/quote` or `mcp` (slashes allowed).", schema: { type: "string", pattern: REST_PATTERN, maxLength: REST_MAX_LENGTH }, example: "v1/quote" }]
      : [],
    security: [],
    responses,
  };
}

/** /mcp and /mcp/{path} as lib/mcp/http.ts serves them (spec 4.4: every method answers 200 JSON or 422). */
function mcpOperations(templated: boolean): Json {
  const d = MCP_PATH_PARAM.doc;
  const mcp = SERVICE.mcpPath;
  const parameter = templated
    ? { name: "path", in: "path", required: true, description: `${d.description} (slashes allowed).`, schema: { type: "string", pattern: d.pattern, maxLength: d.maxLength }, example: d.example }
    : { ...parameterOf("path", d), description: `${d.description} Empty: the MCP transport itself.` };
  const transport = `The MCP tool interface: ${SERVICE.mcpTransport} transport (protocol ${SERVICE.mcpProtocolVersion}, server ${SERVICE.mcpServerVersion}), stateless. Paid tools take the credential as the tool argument payment, bundle_token or api_key and return the payment requirement as their result when it is missing; /.well-known/mcp.json lists the tools with prices.`;
  const view = (what: string) => ({ description: what, content: json({ type: "object" }) });
  const op = (m: string, summary: string, description: string, responses: Json, extra: Json = {}) => ({
    operationId: `mcp${templated ? "Path" : ""}${m[0]!.toUpperCase()}${m.slice(1)}`,
    summary,
    description: `${description}\n\n${transport}`,
    tags: ["mcp"],
    parameters: [parameter],
    security: [],
    ...extra,
    responses: { ...responses, "404": ref("responses", "NotFound"), "422": ref("responses", "ValidationFailed") },
  });
  const viewText = `The JSON view named by \`path\`: "tools" (every tool with its schemas, price and credentials) or "tools/{name}" (one tool with a ready-to-send tools/call body). Unknown views answer 404.`;
  if (templated) {
    const out: Json = {};
    for (const m of ["get", "put", "patch", "delete"]) {
      out[m] = op(m, `MCP JSON view (${m.toUpperCase()})`, `${viewText} Every method answers the same read-only view; nothing is changed.`, { "200": view("The JSON view.") });
    }
    out.post = op("post", "MCP JSON view (POST)", `${viewText} A JSON-RPC message POSTed here is answered with a JSON-RPC error (-32600) naming the transport URL ${mcp}; any other body gets the view.`, {
      "200": view("The JSON view, or a JSON-RPC error object for a JSON-RPC message."),
    });
    return { get: out.get, post: out.post, put: out.put, patch: out.patch, delete: out.delete };
  }
  const description = view("JSON description of the MCP server (name, version, transport, URL, tools with prices); with a non-empty `path`, that JSON view.");
  return {
    get: op("get", "MCP server description", "Describes the server (or, with `path`, a JSON view). An MCP client opening the optional standalone SSE stream (Accept: text/event-stream) gets 405: this stateless server offers none.", {
      "200": description,
      "405": { description: "Sent with Accept: text/event-stream: no standalone SSE stream on this stateless server (MCP clients carry on without one).", content: json(ref("schemas", "ErrorResponse")) },
    }),
    post: op(
      "post",
      "MCP JSON-RPC (streamable HTTP)",
      "JSON-RPC 2.0 messages of the MCP protocol (initialize, tools/list, tools/call). With a non-empty `path`, the JSON view (a JSON-RPC message gets a -32600 error naming this URL).",
      {
        "200": { description: "JSON-RPC response: application/json for a single request, text/event-stream for a batch or when notifications precede the answer. A failure inside the transport is a JSON-RPC error -32603 with this status; nothing is charged.", content: { ...json({ type: "object" }), "text/event-stream": { schema: { type: "string" } } } },
        "202": { description: "Notification accepted (no response body)." },
        "400": { description: "Not JSON or not a JSON-RPC 2.0 message (JSON-RPC error -32700 / -32600).", content: json({ type: "object" }) },
        "406": { description: "The Accept header does not list both application/json and text/event-stream, as streamable HTTP requires of clients (JSON-RPC error).", content: json({ type: "object" }) },
        "413": { description: "Body larger than the transport accepts (JSON-RPC error -32600).", content: json({ type: "object" }) },
        "415": { description: "Content-Type is not application/json (JSON-RPC error).", content: json({ type: "object" }) },
      },
      { requestBody: { required: true, description: "JSON-RPC 2.0 message or batch (initialize, tools/list, tools/call).", content: json({ type: ["object", "array"] }) } },
    ),
    put: op("put", "MCP server description (PUT)", "Nothing to replace: answers the same description as GET (or the JSON view named by `path`).", { "200": description }),
    patch: op("patch", "MCP server description (PATCH)", "Nothing to modify: answers the same description as GET (or the JSON view named by `path`).", { "200": description }),
    delete: op("delete", "End an MCP session (none to end)", "The server is stateless and issues no Mcp-Session-Id, so there is no session to terminate: the answer says so and nothing changes. With a non-empty `path`, the JSON view.", {
      "200": view("Acknowledgement: `stateless: true`, `session_terminated: false`, a message (or the JSON view named by `path`)."),
    }),
  };
}

/**
 * The payment headers as security schemes, each naming the methods it carries. Without
 * any per-call method only `x402` remains, saying so: the operations that nothing else
 * pays (securityOf) reference it, and it tells a client not to try.
 */
function paymentSchemes(pay: PaymentFacts): Json {
  const out: Json = {};
  if (!pay.perCall) {
    out.x402 = { type: "apiKey", in: "header", name: "X-PAYMENT", description: "Per-call payment is not configured on this instance: every payment is refused with 402. Operations that only a payment satisfies (a bundle purchase) cannot be paid here; data operations take a bundle token or a free-tier key." };
  } else {
    const x402 = pay.x402.length > 0 ? `signed for one of the \`accepts[]\` of the 402 body (scheme exact: ${pay.x402.map((m) => m.label).join(" or ")})` : "";
    const others = pay.others.map((m) => `${m.label} (scheme ${m.scheme}, offered in the 402 body)`);
    out.x402 = { type: "apiKey", in: "header", name: "X-PAYMENT", description: `x402 v1 payment: base64 payment payload ${[x402, ...others].filter(Boolean).join("; or ")}. Satisfies any paid operation.` };
  }
  if (pay.x402.length > 0) {
    out.x402v2 = { type: "apiKey", in: "header", name: "PAYMENT-SIGNATURE", description: `x402 v2 payment: base64 payment payload signed for the requirement in the 402 \`PAYMENT-REQUIRED\` header (${pay.x402.map((m) => m.label).join(" or ")}). Satisfies any paid operation.` };
  }
  return out;
}

function components(products: readonly AnyProduct[], pay: PaymentFacts): Json {
  const outputs: Json = {};
  for (const p of products) outputs[schemaName(p)] = jsonSchemaOf(p.output);
  const errorCodes = Object.keys(ERROR_CODES);
  const str = { type: "string" };
  // /v1/manifest's network: the first x402 method's CAIP-2 network, null when no x402 method is accepted.
  const nullableNetwork = { type: ["string", "null"], description: "CAIP-2 network of the first accepted x402 method (e.g. eip155:8453); null when this instance accepts no x402 payment." };
  return {
    securitySchemes: {
      ...paymentSchemes(pay),
      ApiKeyAuth: { type: "apiKey", in: "header", name: "X-Api-Key", description: `Free-tier API key from GET ${freeEndpoint("/v1/free-key").path} (${freeQuota()} calls per UTC day); covers the operations marked x-free-tier.` },
      BundleToken: { type: "apiKey", in: "header", name: "X-Bundle-Token", description: `Prepaid bundle token from GET ${bundlePaths().join(" or ")} (also accepted as \`Authorization: Bearer <token>\`); each call consumes x-credits credits.` },
      AdminBearer: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN of the instance (internal endpoints only)." },
    },
    headers: {
      PaymentRequired: { description: "x402 v2 payment requirement: base64 JSON `{x402Version: 2, error, resource, accepts[]}`.", schema: str },
      PaymentResponse: { description: "x402 v2 settlement receipt (base64 JSON) after a paid call.", schema: str },
      XPaymentResponse: { description: "x402 v1 settlement receipt (base64 JSON) after a paid call.", schema: str },
      ReceiptId: { description: "Id of the receipt recorded for a charged call.", schema: str },
      RetryAfter: { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
      RateLimitLimit: { description: "Calls allowed in the window.", schema: { type: "integer" } },
      RateLimitRemaining: { description: "Calls left in the window.", schema: { type: "integer" } },
      QuotaRemaining: { description: "Free-tier calls left today.", schema: { type: "integer" } },
      CacheControl: { description: "Caching policy of the document.", schema: str },
    },
    responses: {
      PaymentRequired: {
        description:
          pay.x402.length > 0
            ? "Payment required: no valid payment, bundle token or API key (or the one sent was refused). The body follows x402 v1 (accepts[]) and adds the spec 2.2 fields endpoint, price and instruction; the PAYMENT-REQUIRED header carries the x402 v2 requirement."
            : "Payment required: no valid credential (or the one sent was refused). The body carries the spec 2.2 fields endpoint, price and instruction (this instance takes no x402 payment, so there is no accepts[] and no PAYMENT-REQUIRED header).",
        ...(pay.x402.length > 0 ? { headers: { "PAYMENT-REQUIRED": ref("headers", "PaymentRequired") } } : {}),
        content: {
          ...json(ref("schemas", "PaymentRequired")),
          // Same status and header; the body a browser navigation gets (Accept lists text/html and not JSON).
          "text/html": { schema: { type: "string", description: "A page naming the product and price that forwards the browser to its paywall at /pay/<path> (connect a wallet, pay one call)." } },
        },
      },
      QuotaExhausted: {
        description: "The free-tier key used up its daily quota (code quota_exhausted); the body still carries the payment requirement so the caller can pay instead.",
        headers: { "Retry-After": ref("headers", "RetryAfter"), "X-Quota-Remaining": ref("headers", "QuotaRemaining"), ...(pay.x402.length > 0 ? { "PAYMENT-REQUIRED": ref("headers", "PaymentRequired") } : {}) },
        content: json(ref("schemas", "PaymentRequired")),
      },
      RateLimited: {
        description: "Per-client rate limit exceeded (code rate_limited).",
        headers: { "Retry-After": ref("headers", "RetryAfter"), "RateLimit-Limit": ref("headers", "RateLimitLimit"), "RateLimit-Remaining": ref("headers", "RateLimitRemaining") },
        content: json(ref("schemas", "ErrorResponse")),
      },
      ValidationFailed: { description: "Invalid parameter (spec 2.6).", content: json(ref("schemas", "HTTPValidationError")) },
      UpstreamUnavailable: {
        description: "An upstream data source failed (code upstream_unavailable); nothing was charged.",
        headers: { "Retry-After": ref("headers", "RetryAfter") },
        content: json(ref("schemas", "ErrorResponse")),
      },
      ServiceUnavailable: {
        description: "The service could not complete the call (code service_unavailable); nothing was charged.",
        headers: { "Retry-After": ref("headers", "RetryAfter") },
        content: json(ref("schemas", "ErrorResponse")),
      },
      NotFound: { description: "Not found (code not_found).", content: json(ref("schemas", "ErrorResponse")) },
      PayloadTooLarge: { description: "The request body is larger than this operation accepts (code payload_too_large).", content: json(ref("schemas", "ErrorResponse")) },
      HeadersTooLarge: { description: "The request headers exceed the server's limit (code headers_too_large); answered before any operation runs (bare, without a body, behind plain next start).", content: json(ref("schemas", "ErrorResponse")) },
      RequestTimeout: { description: "The request was not received within 60 s (code request_timeout); answered before any operation runs (bare, without a body, behind plain next start).", content: json(ref("schemas", "ErrorResponse")) },
    },
    schemas: {
      ValidationError: {
        type: "object",
        title: "ValidationError",
        required: ["loc", "msg", "type"],
        properties: {
          loc: { type: "array", title: "Location", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
          msg: { type: "string", title: "Message" },
          type: { type: "string", title: "Error Type" },
          input: { title: "Input" },
          ctx: { type: "object", title: "Context" },
        },
      },
      HTTPValidationError: { type: "object", title: "HTTPValidationError", properties: { detail: { type: "array", title: "Detail", items: ref("schemas", "ValidationError") } } },
      ErrorResponse: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "string", enum: errorCodes, description: "Stable machine-readable code." },
              message: str,
              retry_after: { type: "integer", description: "Seconds to wait (429, 503)." },
              sources: { type: "array", items: str, description: "Upstream providers involved (503)." },
            },
          },
        },
      },
      X402ResourceInfo: { type: "object", required: ["url"], properties: { url: str, description: str, mimeType: str } },
      X402RequirementV2: {
        type: "object",
        required: ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"],
        properties: { scheme: { type: "string", enum: ["exact"] }, network: { type: "string", description: "CAIP-2 network, e.g. eip155:8453" }, amount: { type: "string", description: "Amount in the asset's base units" }, asset: str, payTo: str, maxTimeoutSeconds: { type: "integer" }, extra: { type: "object" } },
      },
      X402RequirementV1: {
        type: "object",
        required: ["scheme", "network", "maxAmountRequired", "resource", "payTo", "asset"],
        properties: { scheme: str, network: { type: "string", description: "x402 v1 network name, e.g. base" }, maxAmountRequired: str, resource: str, description: str, mimeType: str, outputSchema: { type: "object" }, payTo: str, maxTimeoutSeconds: { type: "integer" }, asset: str, extra: { type: "object" } },
      },
      PaymentRequired: {
        type: "object",
        // The x402 members exist only when an x402 method is accepted (an empty accepts[] is not x402).
        required: pay.x402.length > 0 ? ["x402Version", "error", "code", "accepts", "endpoint", "price", "instruction"] : ["error", "code", "endpoint", "price", "instruction"],
        properties: {
          x402Version: { type: "integer", const: 1 },
          error: { type: "string", description: "Why payment is required" },
          code: { type: "string", enum: errorCodes.filter((c) => ERROR_CODES[c as keyof typeof ERROR_CODES].status === 402 || c === "quota_exhausted") },
          accepts: { type: "array", items: ref("schemas", "X402RequirementV1"), description: "x402 v1 requirements (empty when per-call payment is not configured on this instance)" },
          endpoint: { type: "string", description: "Path of the operation (spec 2.2)" },
          price: { type: "string", description: "Price in USD as declared (spec 2.2)" },
          price_usd: { type: "string", description: "Price in USD with 6 decimals" },
          currency: { type: "string", const: "USD" },
          instruction: { type: "string", description: "How to pay or which alternative credential to use (spec 2.2)" },
          x402: {
            type: "object",
            description: "The x402 v2 requirement (same as the PAYMENT-REQUIRED header)",
            properties: { x402Version: { type: "integer", const: 2 }, error: str, resource: ref("schemas", "X402ResourceInfo"), accepts: { type: "array", items: ref("schemas", "X402RequirementV2") } },
          },
          xlm: { type: ["object", "null"], description: "Native XLM payment offer with memo, when configured" },
          alternatives: { type: "object", properties: { bundle: { type: ["string", "null"] }, free_key: { type: ["string", "null"] } } },
        },
      },
      SampleSnapshot: jsonSchemaOf(sampleSnapshotSchema),
      Manifest: {
        type: "object",
        required: ["endpoints", "attestation_public_key"],
        properties: {
          name: str,
          version: str,
          network: nullableNetwork,
          endpoints: { type: "array", items: { type: "object", required: ["path", "price_usd", "network"], properties: { path: str, method: str, price_usd: str, network: nullableNetwork, tags: { type: "array", items: str }, tool: { type: ["object", "null"] }, params: { type: "array", items: { type: "object" } } } } },
          attestation_public_key: { type: ["object", "string", "null"], description: `Ed25519 public key verifying ${productById("attested-quote").path} signatures (null when the database is unreachable)` },
        },
      },
      ...outputs,
    },
  };
}

function tags(products: readonly AnyProduct[]): Json[] {
  const seen = new Set<string>();
  for (const p of products) for (const t of p.tags) seen.add(t);
  return [
    ...[...seen].map((t) => ({ name: t, description: `Paid operations tagged ${t}.` })),
    { name: "free", description: "Free endpoints (no payment)." },
    { name: "discovery", description: "Discovery documents for agents (free)." },
    { name: "mcp", description: `MCP tool interface (${SERVICE.mcpTransport}).` },
    { name: "a2a", description: `A2A agent interface (protocol ${SERVICE.a2aProtocolVersion}; see the agent card).` },
  ];
}

function infoDescription(): string {
  const pay = paymentFacts();
  const x402 = x402Phrase();
  const perCall = [
    ...(x402 ? [`Pay per call with x402 (scheme \`exact\`, ${x402}): sign the requirement from the \`PAYMENT-REQUIRED\` header and repeat with \`PAYMENT-SIGNATURE\` (v2), or sign one of the body's \`accepts[]\` and repeat with \`X-PAYMENT\` (v1).`] : []),
    ...pay.others.map((m) => `Or pay with ${m.howTo}`),
  ];
  return [
    SERVICE.description,
    "",
    "## Paying",
    `Paid operations answer **402** without a credential. ${perCall.length > 0 ? perCall.join(" ") : "Per-call payment is not configured on this instance."} Alternatives: a prepaid bundle token (\`X-Bundle-Token\`) or a free-tier key (\`X-Api-Key\`, GET ${freeEndpoint("/v1/free-key").path}).`,
    "",
    "Each paid operation declares its offer under `x-payment-info` (protocols, price with 6 decimals, offers[] with the amount in the asset's base units; empty when no x402 method is accepted), its MCP tool under `x-mcp-tool` and its bundle cost under `x-credits`.",
    "",
    "## Errors",
    "422 bodies follow `HTTPValidationError`; other errors are `{error: {code, message}}` with a stable code. Nothing is charged when a call fails.",
    "",
    "Outside the operations: every path answers `OPTIONS` with **204** and an `Allow` header naming the methods it serves (`HEAD` with `GET`); any other method answers **405** `method_not_allowed` with the same `Allow`. Requests the HTTP parser rejects before any route sees them get the same error shape (`npm start`, the container's `serve.js` and plain `next start` alike): **431** `headers_too_large` and **408** `request_timeout` (declared on every operation), and **400** `bad_request` for a request line that is not HTTP/1.1 (no operation can be named).",
  ].join("\n");
}

/** Everything but `servers`: the catalog and the payment methods usable now. */
function buildCore(): Json {
  const products = paidProducts();
  const pay = paymentFacts();
  const paths: Json = {};
  for (const p of products) paths[p.path] = { get: paidOperation(p, pay) };
  for (const e of FREE_ENDPOINTS) paths[e.path] = { get: freeOperation(e) };
  (paths[freeEndpoint("/v1/free-key").path] as Json).post = freeKeyPost();
  paths["/"] = {
    get: {
      operationId: "getServiceInfo",
      summary: "Service info",
      description: "Service info as JSON for agents (`Accept: application/json`); the home page for browsers.",
      tags: ["free"],
      security: [],
      responses: { "200": { description: "Service info or home page.", content: { ...json({ type: "object" }), "text/html": { schema: { type: "string" } } } } },
    },
  };
  // The pages people open (the sitemap lists them): HTML, for browsers.
  for (const page of WEB_PAGES.filter((w) => w.path !== "/")) {
    paths[page.path] = {
      get: {
        operationId: `getPage${page.path.replace(/(^|[/-])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`,
        summary: `${page.label} (web page)`,
        description: `The ${page.label.toLowerCase()} page, for people in a browser (HTML; agents use the JSON operations).`,
        tags: ["free"],
        security: [],
        responses: { "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } } },
      },
    };
  }
  for (const d of DISCOVERY_DOCUMENTS) paths[d.path] = { get: discoveryOperation(d) };
  paths[SERVICE.mcpPath] = mcpOperations(false);
  paths[`${SERVICE.mcpPath}/{path}`] = mcpOperations(true);
  Object.assign(paths, a2aOpenApiPaths());
  // The server refuses oversized headers and slow requests before routing (lib/server/client-error.ts), so any operation can answer 431 or 408.
  for (const item of Object.values(paths) as Json[]) {
    for (const op of Object.values(item) as Array<{ responses: Json }>) {
      op.responses["408"] = ref("responses", "RequestTimeout");
      op.responses["431"] = ref("responses", "HeadersTooLarge");
    }
  }
  return {
    openapi: SERVICE.openapiVersion,
    info: { title: SERVICE.title, version: SERVICE.apiVersion, summary: SERVICE.summary, description: infoDescription() },
    tags: tags(products),
    paths,
    components: components(products, pay),
  };
}

/** The document without `servers`, for one version of the payment-method registry. */
let core: { version: string; doc: Json } | undefined;

/**
 * The OpenAPI document for the instance at `base`. Only `servers` depends on the base
 * URL, so the rest (about 175 KB) is built once per set of usable payment methods and
 * shared: a caller sending many different Host headers cannot make the process hold one
 * copy per host, and a method that turns usable later (Solana, once the remote
 * facilitator named its fee payer) appears in the next document served.
 * Callers must not mutate the result.
 */
export function buildOpenApi(base: string): Json {
  const version = paymentMethodsVersion();
  if (core?.version !== version) core = { version, doc: buildCore() };
  const { openapi, info, ...rest } = core.doc;
  return { openapi, info: { ...(info as Json), license: { name: SERVICE.license, url: docUrl(base, "/auth.md") } }, servers: [{ url: base, description: "This instance" }], ...rest };
}
