/**
 * The two x402 discovery documents. /.well-known/x402 follows the discovery-document
 * shape x402 indexers read (`version`, `resources[]` of payable URLs, `instructions`);
 * /.well-known/x402-manifest.json adds per resource the price, the exact v2 payment
 * requirements this instance would answer with, the spec 2.3 offer and the query
 * parameters (Bazaar-style `input`). Both list the catalog's paid paths, at the HTTP
 * price, like /v1/manifest (the discovery document only while an x402 method is
 * accepted, see below).
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { paymentOffer } from "@/lib/payments/offer";
import { x402Requirements } from "@/lib/payments/methods/registry";
import { usd6 } from "@/lib/payments/price";
import { SERVICE, paidProducts, paramDocs, paymentFacts, x402Phrase } from "@/lib/discovery/service";
import { docUrl } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";

function instructions(base: string): string {
  const pay = paymentFacts();
  const x402 = x402Phrase();
  const perCall = [
    ...(x402 ? [`Pay per call with x402 (scheme exact, ${x402}): sign the requirement from the PAYMENT-REQUIRED header and repeat the request with PAYMENT-SIGNATURE (v2), or sign one of the body's accepts[] and send X-PAYMENT (v1).`] : []),
    ...pay.others.map((m) => `Or pay with ${m.howTo}`),
  ];
  return `Every resource is a GET that answers HTTP 402 until paid (after its query parameters validate). ${perCall.length > 0 ? perCall.join(" ") : "Per-call payment is not configured on this instance."} Prices and requirements: ${docUrl(base, "/.well-known/x402-manifest.json")}. Alternatives: prepaid bundle token (X-Bundle-Token) or free-tier key (X-Api-Key from ${base}${freeEndpoint("/v1/free-key").path}).`;
}

/**
 * /.well-known/x402. x402 indexers take every listed resource as payable with x402 and
 * expect its 402 to carry an `accepts[]` they can sign, so a resource is listed only
 * while an x402 method is accepted: an instance without one (or with only XLM, which no
 * x402 client pays) lists none, and its instructions say how to get access instead.
 */
export function x402Discovery(base: string): Record<string, unknown> {
  const payable = paymentFacts().x402.length > 0;
  return {
    version: 1,
    x402Version: 2,
    resources: payable ? paidProducts().map((p) => `${base}${p.path}`) : [],
    instructions: instructions(base),
    manifest: docUrl(base, "/.well-known/x402-manifest.json"),
    openapi: docUrl(base, "/openapi.json"),
  };
}

function queryParams(p: AnyProduct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, d] of paramDocs(p.params)) {
    out[name] = { type: d.type, description: d.description, required: d.required, ...(d.default !== undefined ? { default: d.default } : {}), ...(d.enum ? { enum: d.enum } : {}) };
  }
  return out;
}

/** /.well-known/x402-manifest.json */
export function x402Manifest(base: string): Record<string, unknown> {
  const pay = paymentFacts();
  return {
    name: SERVICE.name,
    description: SERVICE.description,
    version: SERVICE.apiVersion,
    x402Version: 2,
    base_url: base,
    network: pay.network,
    asset: pay.asset,
    pay_to: pay.pay_to,
    schemes: pay.x402.length > 0 ? ["exact"] : [],
    methods: pay.methods.map((m) => ({ id: m.id, network: m.network, asset: m.asset, pay_to: m.payTo })),
    headers: { payment_v2: "PAYMENT-SIGNATURE", payment_v1: "X-PAYMENT", requirement_v2: "PAYMENT-REQUIRED", receipt_v2: "PAYMENT-RESPONSE", receipt_v1: "X-PAYMENT-RESPONSE" },
    resources: paidProducts().map((p) => ({
      resource: `${base}${p.path}`,
      path: p.path,
      method: "GET",
      title: p.title,
      description: p.description,
      mimeType: "application/json",
      price_usd: usd6(p.httpPrice),
      network: pay.network,
      accepts: x402Requirements(p.httpPrice),
      payment_offer: paymentOffer(p.httpPrice),
      input: { type: "http", method: "GET", queryParams: queryParams(p) },
      output_schema: `${docUrl(base, "/openapi.json")}#/paths/${p.path.replaceAll("~", "~0").replaceAll("/", "~1")}/get/responses/200`,
      tool: p.tool ? { name: p.tool.name, price_usd: usd6(p.tool.price) } : null,
      tags: p.tags,
    })),
    documents: { discovery: docUrl(base, "/.well-known/x402"), manifest: `${base}${freeEndpoint("/v1/manifest").path}`, openapi: docUrl(base, "/openapi.json") },
  };
}
