/**
 * Tool results. Success: the JSON in a text content (what older clients read) and the
 * same object as `structuredContent` (checked against the advertised `outputSchema`).
 * Failures are `isError` results, never JSON-RPC errors, so an agent sees why:
 * - the payment requirement (spec 5.5: "returns a payment requirement", x402 MCP binding:
 *   PaymentRequired JSON in content[0].text);
 * - 422 `{detail: [...]}` (spec 2.6) for bad arguments;
 * - `{error: {code, message, status}}` for anything else (upstream down, quota...).
 * Error results carry no `structuredContent`: SDK clients validate any structured
 * content against the tool's output schema, error or not, and would throw.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { PaymentRequiredError } from "@/lib/access/payment-required";
import { toApiError, ValidationError } from "@/lib/errors";
import { asArgumentIssues } from "@/lib/mcp/arguments";

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

/** Any thrown value as a tool result; unexpected errors are logged and reported generically. */
export function resultForError(err: unknown, context: Record<string, unknown>): CallToolResult {
  if (err instanceof PaymentRequiredError) return errorResult(err.toolResult());
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
