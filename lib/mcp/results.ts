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
import { secondsUntil, type Granted, type Refused } from "@/lib/access/outcome";
import type { CallResult } from "@/lib/access/call";
import { toApiError, ValidationError } from "@/lib/errors";
import { asArgumentIssues, type JsonSchema } from "@/lib/mcp/arguments";
import { serverTiming, timingRecord } from "@/lib/http/access-render";

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
    resource: {
      type: "object",
      required: ["url"],
      properties: { url: { type: "string" }, description: { type: "string" }, mimeType: { type: "string" }, serviceName: { type: "string" }, tags: { type: "array", items: { type: "string" } }, iconUrl: { type: "string" } },
    },
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
    extensions: { type: "object", description: "x402 extensions: bazaar (discovery) and payment-identifier." },
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

/**
 * The requirement of a refusal as the tool's result: spec 2.2's fields and, when an x402
 * method is accepted, the x402 v2 PaymentRequired (`x402Version`, `resource`,
 * `accepts[]`, `extensions`). Without an x402 method there is no PaymentRequired to offer (an empty
 * `accepts[]` is not one), so the result carries no structured content.
 */
export function refusalResult(r: Refused): CallToolResult {
  const q = r.requirement;
  const body: Record<string, unknown> = {
    payment_required: true,
    error: r.message,
    code: r.code,
    ...(r.reason ? { reason: r.reason } : {}),
    endpoint: q.endpoint,
    price: q.price,
    price_usd: q.price_usd,
    currency: q.currency,
    instruction: q.instruction,
    ...(q.x402 ? { x402Version: 2, accepts: q.x402.accepts, resource: q.x402.resource, ...(q.x402.extensions ? { extensions: q.x402.extensions } : {}) } : {}),
    xlm: q.xlm,
    alternatives: q.alternatives,
  };
  const text = [{ type: "text" as const, text: JSON.stringify(body) }];
  return q.x402 ? { content: text, structuredContent: body, isError: true } : { content: text, isError: true };
}

/** Any thrown value as a tool result; unexpected errors are logged and reported generically. */
export function resultForError(err: unknown, context: Record<string, unknown>): CallToolResult {
  if (err instanceof PaymentRequiredError) return refusalResult(err.refusal);
  if (err instanceof ValidationError) return errorResult({ detail: asArgumentIssues(err) });
  const known = toApiError(err, { surface: "mcp", ...context });
  const body = known.httpBody() as { error?: Record<string, unknown> };
  return errorResult({ error: { ...body.error, status: known.status } });
}

/**
 * `_meta` of a charged call: the x402 settlement receipt under the binding's key
 * `x402/payment-response`, and what the call used (receipt id, quota or bundle credits
 * left) under `echo/access`.
 */
export function accessMeta(g: Granted): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (g.payment) meta["x402/payment-response"] = g.payment;
  const access: Record<string, unknown> = { credential: g.credential, receipt_id: g.receiptId };
  if (g.quota) access.quota = { limit: g.quota.limit, remaining: g.quota.remaining, reset_seconds: secondsUntil(g.quota.resetAt) };
  if (g.credits) access.bundle = { credits_charged: g.credits.charged, credits_remaining: g.credits.remaining };
  meta["echo/access"] = access;
  return meta;
}

/** Marks the answer of a payment presented again, sent as it was (HTTP's Idempotent-Replayed). */
export const REPLAYED_META_KEY = "echo/replayed";

/** Where a paid tool result carries its call's timing (ms per phase); lib/mcp/http.ts turns it into Server-Timing. */
export const TIMING_META_KEY = "echo/timing";

/** A tool result's call timing as a Server-Timing value, as on GET /v1/* ("" when it carries none). */
export function toolServerTiming(result: { _meta?: Record<string, unknown> } | undefined): string {
  const timing = result?._meta?.[TIMING_META_KEY] as Record<string, number> | undefined;
  return timing ? serverTiming({ verify: timing.verify_ms, handler: timing.handler_ms, settle: timing.settle_ms }) : "";
}

/**
 * The tool result of a call's result (lib/access/call.ts), with where the call's time
 * went under `_meta["echo/timing"]` whenever the gate ran (granted, refused or failed).
 */
export function renderToolCall(result: CallResult, context: Record<string, unknown>): CallToolResult {
  const rendered =
    result.kind === "granted"
      ? okResult(result.value, { ...accessMeta(result.outcome), ...(result.replayed ? { [REPLAYED_META_KEY]: true } : {}) })
      : result.kind === "refused"
        ? refusalResult(result.refusal)
        : resultForError(result.error, context);
  const timing = timingRecord(result.timing);
  if (Object.keys(timing).length) rendered._meta = { ...rendered._meta, [TIMING_META_KEY]: timing };
  return rendered;
}
