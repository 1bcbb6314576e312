/**
 * HTTP surface of a catalog product: read the query and the credential, run the call
 * path (lib/access/call.ts: validate → gate → run → commit or release) and render its
 * typed result as HTTP (lib/http/access-render.ts). Thin by design: every decision
 * lives in the catalog, the gate or the handler. HEAD runs the same path without
 * running the handler or charging anything.
 */
import { credentialFromHeaders } from "@/lib/access/credentials";
import { callProduct, type CallResult } from "@/lib/access/call";
import type { AnyProduct } from "@/lib/catalog/types";
import { errorResponse, jsonResponse } from "@/lib/errors";
import { clientIp } from "@/lib/http/client-ip";
import { baseUrl } from "@/lib/http/base-url";
import { queryRecord } from "@/lib/http/query";
import { grantedHeaders, renderRefusal, serverTiming } from "@/lib/http/access-render";
import { paywallResponse, wantsPaywall } from "@/lib/web/paywall";
import { failpoint } from "@/lib/failpoints";

/** The HTTP response of a call's result. */
export function renderCall(result: CallResult, req: Request): Response {
  const timing = serverTiming(result.timing);
  const extra: Record<string, string> = timing ? { "Server-Timing": timing } : {};
  if (result.kind === "refused") return renderRefusal(result.refusal, req, extra);
  if (result.kind === "failed") {
    const res = errorResponse(result.error);
    for (const [k, v] of Object.entries(extra)) res.headers.set(k, v);
    return req.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
  }
  // A payment presented again gets the answer it got, as it was; this header says so (as
  // Stripe's idempotent requests do), nothing else differs but Server-Timing.
  if (result.replayed) extra["Idempotent-Replayed"] = "true";
  const headers = { "Cache-Control": "no-store", ...grantedHeaders(result.outcome), ...extra };
  if (req.method === "HEAD") return new Response(null, { status: 200, headers: { "Content-Type": "application/json; charset=utf-8", ...headers } });
  return jsonResponse(result.value, { headers });
}

export async function serveProduct(req: Request, product: AnyProduct): Promise<Response> {
  try {
    const result = await callProduct({
      product,
      surface: "http",
      credential: credentialFromHeaders(req.headers),
      params: queryRecord(new URL(req.url), Object.keys(product.params)),
      paramsAt: "query",
      resource: `${baseUrl(req)}${product.path}`,
      clientIp: clientIp(req),
      head: req.method === "HEAD",
    });
    const res = renderCall(result, req);
    // A person opening the paid URL in a browser gets the paywall; agents keep the JSON.
    if (result.kind === "refused" && result.refusal.status === 402 && wantsPaywall(req)) return paywallResponse(res, req, product);
    // A browser that opened it without a required parameter gets the paywall's form for it.
    if (result.kind === "failed" && result.error.status === 422 && wantsPaywall(req)) return paywallResponse(res, req, product);
    if (result.kind === "refused") res.headers.append("Vary", "Accept");
    if (result.kind === "granted" && result.outcome.payment) failpoint("before_response");
    return res;
  } catch (err) {
    return errorResponse(err, { product: product.id });
  }
}
