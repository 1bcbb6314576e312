/**
 * The HTTP rendering of the gate's typed outcome, the only place where it becomes
 * header strings: receipt and settlement (PAYMENT-RESPONSE, X-PAYMENT-RESPONSE,
 * X-Receipt-Id), quota (X-Quota-*, RateLimit-*), bundle credits (X-Bundle-Credits-*),
 * the 402's x402 v2 header (PAYMENT-REQUIRED) and v1 body, and Server-Timing.
 *
 * `renderRefusal` is the hook for other media types: it answers JSON today; a caller
 * that prefers HTML (a browser opening a paid URL) can be given a paywall page there.
 */
import type { Granted, QuotaState, Refused } from "@/lib/access/outcome";
import { secondsUntil } from "@/lib/access/outcome";
import type { PaymentResponse } from "@/lib/payments/types";
import { base64Json, toV1Network } from "@/lib/payments/x402/codec";

const JSON_TYPE = "application/json; charset=utf-8";

function quotaHeaders(q: QuotaState): Record<string, string> {
  const resetIn = String(secondsUntil(q.resetAt));
  return {
    "X-Quota-Limit": String(q.limit),
    "X-Quota-Remaining": String(q.remaining),
    "X-Quota-Reset": resetIn,
    "RateLimit-Limit": String(q.limit),
    "RateLimit-Remaining": String(q.remaining),
    "RateLimit-Reset": resetIn,
    "RateLimit-Policy": `${q.limit};w=86400`,
  };
}

/** PAYMENT-RESPONSE (v2, CAIP-2 network) and X-PAYMENT-RESPONSE (v1 network name), base64 JSON. */
export function paymentResponseHeaders(p: PaymentResponse): Record<string, string> {
  return { "PAYMENT-RESPONSE": base64Json(p), "X-PAYMENT-RESPONSE": base64Json({ ...p, network: toV1Network(p.network) }) };
}

/** Headers of a granted call. */
export function grantedHeaders(g: Granted): Record<string, string> {
  const h: Record<string, string> = {};
  if (g.quota) Object.assign(h, quotaHeaders(g.quota));
  if (g.credits) {
    h["X-Bundle-Credits-Remaining"] = String(g.credits.remaining);
    if (g.credits.charged !== null) h["X-Bundle-Credits-Charged"] = String(g.credits.charged);
  }
  if (g.payment) Object.assign(h, paymentResponseHeaders(g.payment));
  if (g.settlement) h["X-Payment-Settlement"] = g.settlement;
  if (g.receiptId) h["X-Receipt-Id"] = g.receiptId;
  return h;
}

/** Headers of a refusal: the x402 v2 requirement (when an x402 method is accepted), quota or credits, Retry-After. */
export function refusalHeaders(r: Refused): Record<string, string> {
  const h: Record<string, string> = {};
  if (r.quota) Object.assign(h, quotaHeaders(r.quota));
  if (r.credits) h["X-Bundle-Credits-Remaining"] = String(r.credits.remaining);
  if (r.retryAfterSeconds !== null) h["Retry-After"] = String(r.retryAfterSeconds);
  if (r.requirement.x402) h["PAYMENT-REQUIRED"] = base64Json({ ...r.requirement.x402, error: r.message });
  return h;
}

/**
 * JSON body of a refusal: the x402 v1 PaymentRequired (when an x402 method is accepted)
 * plus spec 2.2's endpoint, price and instruction, the XLM offer and the alternatives.
 */
export function refusalBody(r: Refused): Record<string, unknown> {
  const q = r.requirement;
  const x402 = q.x402_v1 ? { x402Version: 1, error: r.message, code: r.code, accepts: q.x402_v1.accepts, extensions: q.x402_v1.extensions } : { error: r.message, code: r.code };
  return {
    ...x402,
    ...(r.reason ? { reason: r.reason } : {}),
    endpoint: q.endpoint,
    price: q.price,
    price_usd: q.price_usd,
    currency: q.currency,
    instruction: q.instruction,
    ...(q.x402 ? { x402: { ...q.x402, error: r.message } } : {}),
    xlm: q.xlm,
    alternatives: q.alternatives,
  };
}

/** The same timing as a JSON object (MCP `_meta`, A2A task metadata): ms per phase that ran, one decimal. */
export function timingRecord(t: { verify?: number; handler?: number; settle?: number }): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ["verify", "handler", "settle"] as const) if (t[k] !== undefined) out[`${k}_ms`] = Math.round(t[k] * 10) / 10;
  return out;
}

/** Server-Timing of a gated call: where its time went (ms), phases that ran only. */
export function serverTiming(t: { verify?: number; handler?: number; settle?: number }): string {
  const parts: string[] = [];
  if (t.verify !== undefined) parts.push(`verify;desc="credential check";dur=${t.verify.toFixed(1)}`);
  if (t.handler !== undefined) parts.push(`handler;dur=${t.handler.toFixed(1)}`);
  if (t.settle !== undefined) parts.push(`settle;desc="settlement";dur=${t.settle.toFixed(1)}`);
  return parts.join(", ");
}

/**
 * The HTTP response of a refusal. `request` lets a renderer choose the representation
 * (a browser paywall page would be chosen here); a HEAD gets the headers only.
 */
export function renderRefusal(r: Refused, request: Request | null, extraHeaders: Record<string, string> = {}): Response {
  const head = request?.method === "HEAD";
  return new Response(head ? null : JSON.stringify(refusalBody(r)), {
    status: r.status,
    headers: { "Content-Type": JSON_TYPE, "Cache-Control": "no-store", ...refusalHeaders(r), ...extraHeaders },
  });
}
