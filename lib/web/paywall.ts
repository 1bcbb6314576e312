/**
 * A person who opens a paid URL in a browser gets a paywall instead of the agents' JSON:
 * the 402 stays a 402 (same status and PAYMENT-REQUIRED header, `Vary: Accept`), but its
 * body is a small HTML page naming the product and price that forwards the browser to
 * the interactive paywall at /pay/<path> (connect a wallet, pay with the official x402
 * client, see the result); a 422 for a missing or wrong parameter likewise forwards to
 * the paywall's form for it. Agents, whose Accept names JSON, anything (`*\/*`) or nothing,
 * keep the JSON 402; HEAD and other methods too.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { usdLabel } from "@/lib/payments/price";
import { usableFactsOf } from "@/lib/payments/methods/facts";

import { PAYWALL_PREFIX } from "@/lib/web/pages";

export { PAYWALL_PREFIX };

/** A browser navigation: a GET whose Accept lists HTML and does not ask for JSON. */
export function wantsPaywall(req: Request): boolean {
  if (req.method !== "GET") return false;
  const accept = (req.headers.get("accept") ?? "").toLowerCase();
  return accept.includes("text/html") && !accept.includes("application/json");
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The HTML body of a refusal for a browser; `refused` is the JSON answer whose status and
 * headers it keeps: a 402 (the call must be paid) or a 422 (a parameter is missing or
 * wrong: the paywall shows a form for it). Either way the browser is forwarded to the
 * paywall with the query it sent.
 */
export function paywallResponse(refused: Response, req: Request, product: AnyProduct): Response {
  const url = new URL(req.url);
  const target = `${PAYWALL_PREFIX}${url.pathname}${url.search}`;
  const params = refused.status === 422;
  const title = params ? `${product.title}: parameters needed` : `Payment required: ${product.title}: ${usdLabel(product.httpPrice)} per call`;
  const lead = params
    ? `<p>${escape(product.title)} (<code>${escape(url.pathname)}</code>) needs parameters this request did not give or gave wrong: <a href="${escape(target)}">fill them in on its page</a>.</p>`
    : `<p>${escape(product.title)} (<code>${escape(url.pathname)}</code>) costs ${escape(usdLabel(product.httpPrice))} per call.</p>
<p><a href="${escape(target)}">${usableFactsOf("evm-exact") || usableFactsOf("svm-exact") ? "Pay for this call with a browser wallet" : "See how to pay for this call"}</a>, or use a prepaid bundle token or a free API key (<a href="/wallet">wallet &amp; bundles</a>, <a href="/free-key">free key</a>).</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0; url=${escape(target)}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escape(title)}</title></head>
<body><main><h1>${params ? "Parameters needed" : "Payment required"}</h1>
${lead}
</main></body></html>`;
  const headers = new Headers(refused.headers);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Vary", "Accept");
  return new Response(html, { status: refused.status, headers });
}
