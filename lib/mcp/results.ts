/**
 * Tool results. Success: the JSON in a text content (what older clients read) and the
 * same object as `structuredContent` (checked against the advertised `outputSchema`).
 * Failures are `isError` results, never JSON-RPC errors, so an agent sees why:
 * - the payment requirement (spec 5.5: "returns a payment requirement"; x402 MCP
 *   transport: an x402 v2 PaymentRequired in content[0].text and as structuredContent).
 *   SDK clients validate structured content against the tool's output schema even on
 *   error results, so every paid tool's output schema admits its data or this object
 *   (paidOutputSchema below);
 * - 422 `{detail: [...]}` (spec 2.6) for bad arguments;
 * - `{error: {code, message, status}}` for anything else (upstream down, quota...).
 * Those last two carry no `structuredContent`, so clients have nothing to validate.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { PaymentRequiredError } from "@/lib/access/payment-required";
import { toApiError, ValidationError } from "@/lib/errors";
import { asArgumentIssues, type JsonSchema } from "@/lib/mcp/arguments";

/** A successful tool result carrying `value` as text and as structured content. */
export function okResult(value: unknown, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
    ...(meta && Object.keys(meta).length ? { _meta: meta } : {}),
  };
}

/** An `isError` result whose text is `body` as JSON. */
export function errorResult(body: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(body) }], isError: true };
}

/**
 * JSON Schema of the payment-requirement result (PaymentRequiredError.toolResult()): an
 * x402 v2 PaymentRequired (`x402Version`, `error`, `resource`, `accepts[]`) plus the
 * spec 2.2 fields. `payment_required: true` and `x402Version: 2` are required constants,
 * so no data object of a tool can pass for one.
 */
export const PAYMENT_REQUIRED_SCHEMA: JsonSchema = {
  type: "object",
  title: "PaymentRequired",
  description: "Returned with isError: true when the call needs a credential (nothing was charged): the x402 v2 PaymentRequired plus endpoint, price and instruction.",
  required: ["payment_required", "x402Version", "error", "code", "endpoint", "price", "instruction", "resource", "accepts"],
  properties: {
    payment_required: { const: true },
    x402Version: { const: 2 },
    error: { type: "string" },
    code: { type: "string" },
    endpoint: { type: "string" },
    price: { type: "string" },
    price_usd: { type: "string" },
    currency: { const: "USD" },
    instruction: { type: "string" },
    resource: { type: "object", required: ["url"], properties: { url: { type: "string" }, description: { type: "string" }, mimeType: { type: "string" } } },
    accepts: {
      type: "array",
      items: {
        type: "object",
        required: ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"],
        properties: {
          scheme: { type: "string" },
          network: { type: "string" },
          amount: { type: "string" },
          asset: { type: "string" },
          payTo: { type: "string" },
          maxTimeoutSeconds: { type: "integer" },
          extra: { type: "object" },
        },
      },
    },
    xlm: { type: ["object", "null"] },
    alternatives: { type: "object" },
  },
};

/**
 * Output schema of a paid tool: its data object (the precise schema from the catalog) or
 * the payment requirement. Top-level `type: "object"` as MCP requires.
 */
export function paidOutputSchema(data: JsonSchema): JsonSchema {
  return {
    type: "object",
    description: "The tool's data; or, in an isError result, the payment requirement.",
    anyOf: [data, PAYMENT_REQUIRED_SCHEMA],
  };
}

/** The payment requirement as an isError result: JSON text and the same object as structuredContent (x402 MCP transport). */
function paymentRequiredResult(err: PaymentRequiredError): CallToolResult {
  const body = err.toolResult();
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/** Any thrown value as a tool result; unexpected errors are logged and reported generically. */
export function resultForError(err: unknown, context: Record<string, unknown>): CallToolResult {
  if (err instanceof PaymentRequiredError) return paymentRequiredResult(err);
  if (err instanceof ValidationError) return errorResult({ detail: asArgumentIssues(err) });
  const known = toApiError(err, { surface: "mcp", ...context });
  const body = known.httpBody() as { error?: Record<string, unknown> };
  return errorResult({ error: { ...body.error, status: known.status } });
}

const fromBase64Json = (v: string): unknown => {
  try {
    return JSON.parse(Buffer.from(v, "base64").toString("utf8"));
  } catch {
    return null;
  }
};

/**
 * `_meta` of a charged call, from the gate's response headers: the x402 settlement
 * receipt under the binding's key `x402/payment-response`, and what the call used
 * (receipt id, quota or bundle credits left) under `echo/access`.
 */
export function accessMeta(headers: Record<string, string>, credential: string): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const settled = headers["PAYMENT-RESPONSE"];
  if (settled) meta["x402/payment-response"] = fromBase64Json(settled);
  const num = (k: string) => (headers[k] !== undefined ? Number(headers[k]) : undefined);
  const access: Record<string, unknown> = { credential, receipt_id: headers["X-Receipt-Id"] ?? null };
  if (headers["X-Quota-Limit"] !== undefined) {
    access.quota = { limit: num("X-Quota-Limit"), remaining: num("X-Quota-Remaining"), reset_seconds: num("X-Quota-Reset") };
  }
  if (headers["X-Bundle-Credits-Remaining"] !== undefined) {
    access.bundle = { credits_charged: num("X-Bundle-Credits-Charged") ?? null, credits_remaining: num("X-Bundle-Credits-Remaining") };
  }
  meta["echo/access"] = access;
  return meta;
}
