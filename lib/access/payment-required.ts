/**
 * The payment requirement (spec 2.2: endpoint, price, instruction) built from the
 * payment-method registry, and the error that carries a refusal through the gate.
 * With at least one x402 method the requirement includes the x402 v2 PaymentRequired
 * (and its v1 form); without one it has no x402 part at all (an empty `accepts[]` is
 * not a valid x402 document), only spec 2.2's fields, the XLM offer when XLM is
 * accepted, and the alternatives. The x402 parts carry the extensions every requirement
 * declares (Bazaar discovery, payment identifier: lib/access/x402-extensions.ts). How a
 * surface shows it: lib/http/access-render.ts (HTTP), lib/mcp/results.ts (MCP).
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import type { Refused, Requirement } from "@/lib/access/outcome";
import { ApiError } from "@/lib/errors";
import { resourceInfo, toV1Requirement } from "@/lib/payments/x402/codec";
import { usd6, usdLabel } from "@/lib/payments/price";
import type { XlmOffer } from "@/lib/payments/xlm/quote";
import { extraOffers, takesOutOfBand, usableMethods, x402Requirements } from "@/lib/payments/methods/registry";
import { FREE_TOOLS } from "@/lib/catalog/free";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { env } from "@/lib/config/env";
import { priceSurfaceOf } from "@/lib/catalog/surfaces";
import { META } from "@/lib/a2a/protocol";
import { brand } from "@/lib/errors/brand";
import { v1OutputSchema, withExtensions } from "@/lib/access/x402-extensions";

export type { Requirement, X402Required } from "@/lib/access/outcome";

/** The price of `product` on `surface` (A2A pays the declaration lib/catalog/surfaces.ts names). */
export function priceFor(product: AnyProduct, surface: Surface): string {
  if (priceSurfaceOf(surface) === "mcp") {
    if (!product.tool) throw new Error(`${product.id} has no MCP tool`);
    return product.tool.price;
  }
  return product.httpPrice;
}

/** How each surface carries a per-call payment, a bundle token and a free-tier key. */
const WORDING: Record<Surface, { pay: string; bundle: string; key: (quota: string) => string }> = {
  http: {
    pay: "sign the requirement from the PAYMENT-REQUIRED header (v2, send PAYMENT-SIGNATURE) or from this body's accepts[] (v1, send X-PAYMENT) and repeat the request.",
    bundle: "Or send a prepaid bundle token (X-Bundle-Token or Authorization: Bearer).",
    key: (quota) => `Or send a free-tier key as X-Api-Key (GET ${freeEndpoint("/v1/free-key").path} mints one, ${quota}).`,
  },
  mcp: {
    pay: 'sign one of accepts[] and call the tool again with the base64 payment payload in the "payment" argument (or in _meta["x402/payment"]).',
    bundle: 'Or pass a prepaid bundle token as "bundle_token".',
    key: (quota) => `Or pass a free-tier key as "api_key" (the ${FREE_TOOLS.freeKey} tool mints one, ${quota}).`,
  },
  a2a: {
    pay: `sign one of metadata["${META.paymentRequired}"].accepts and send the PaymentPayload in metadata["${META.paymentPayload}"] (with "${META.paymentStatus}": "payment-submitted") in a message on this task (its taskId).`,
    bundle: `Or put a prepaid bundle token in message metadata["${META.bundleToken}"].`,
    key: (quota) => `Or put a free-tier key in message metadata["${META.apiKey}"] (the ${FREE_TOOLS.freeKey} skill mints one, ${quota}).`,
  },
};

/**
 * `networks`: the x402 networks offered; `xlm`: whether the XLM offer is included;
 * `elsewhere`: labels of methods this surface cannot carry (A2A and XLM).
 */
function instructionFor(product: AnyProduct, surface: Surface, price: string, networks: string[], xlm: boolean, elsewhere: string[]): string {
  const words = WORDING[surface];
  const parts: string[] = [];
  const hasX402 = networks.length > 0;
  if (hasX402) parts.push(`Pay ${usdLabel(price)} in USDC on ${networks.join(" or ")} with the x402 "exact" scheme: ${words.pay}`);
  if (xlm) parts.push(`Or pay in native XLM with the memo given under "xlm" (see xlm.instruction).`);
  const alternatives = product.kind === "data";
  if (alternatives) {
    parts.push(words.bundle);
    if (product.freeTier) parts.push(words.key(`${env().FREE_KEY_DAILY_QUOTA} calls per UTC day`));
  }
  if (!hasX402 && !xlm) {
    const also = elsewhere.length ? ` (${elsewhere.join(" and ")} ${elsewhere.length === 1 ? "is" : "are"} accepted over HTTP and MCP only)` : "";
    parts.unshift(
      elsewhere.length
        ? `Per-call payment is not available over ${surface.toUpperCase()} on this instance${also}.${alternatives ? "" : ` Buy ${product.path} over HTTP or MCP.`}`
        : "Per-call payment is not configured on this instance.",
    );
  } else if (elsewhere.length) {
    parts.push(`(${elsewhere.join(" and ")} ${elsewhere.length === 1 ? "is" : "are"} accepted over HTTP and MCP only.)`);
  }
  return parts.join(" ");
}

export interface RequirementOptions {
  /** False when answering the refusal of a presented credential other than an XLM payment: no rate is fetched for the XLM offer. */
  fetchRate?: boolean;
}

/** Builds the requirement for `product` on `surface` from the registered payment methods. */
export async function buildRequirement(product: AnyProduct, surface: Surface, resourceUrl: string, error: string, opts: RequirementOptions = {}): Promise<Requirement> {
  const price = priceFor(product, surface);
  const accepts = x402Requirements(price);
  const resource = resourceInfo(resourceUrl, product.description);
  const extra = await extraOffers({ product, surface, priceUsd: price, fetchRate: opts.fetchRate ?? true });
  const xlm = (extra["xlm-memo"] as XlmOffer | null | undefined) ?? null;
  const elsewhere = takesOutOfBand(surface) ? [] : usableMethods().filter((m) => m.requirement(price) === null).map((m) => m.facts().label);
  const x402 = accepts.length > 0 ? withExtensions({ x402Version: 2, error, resource, accepts }, product, surface) : null;
  const outputSchema = x402 ? v1OutputSchema(x402) : undefined;
  return {
    endpoint: product.path,
    price,
    price_usd: usd6(price),
    currency: "USD",
    instruction: instructionFor(product, surface, price, accepts.map((a) => a.network), xlm !== null, elsewhere),
    x402,
    x402_v1: x402 ? { x402Version: 1, error, accepts: accepts.map((r) => toV1Requirement(r, resource, outputSchema)), extensions: x402.extensions } : null,
    xlm,
    alternatives: {
      bundle: product.kind === "data" ? productById("bundle").path : null,
      free_key: product.kind === "data" && product.freeTier ? freeEndpoint("/v1/free-key").path : null,
    },
  };
}

/**
 * Carries a refusal out of the gate (402, or 429 for an exhausted free key so the caller
 * can still pay). `refusal` is the typed outcome; each surface renders it itself
 * (lib/http/access-render.ts, lib/mcp/results.ts, lib/a2a/call.ts): this module knows no
 * header or body format.
 */
export class PaymentRequiredError extends ApiError {
  readonly refusal: Refused;
  constructor(refusal: Refused) {
    super(refusal.code, refusal.message);
    this.name = "PaymentRequiredError";
    this.refusal = refusal;
  }

  get requirement(): Requirement {
    return this.refusal.requirement;
  }
}
brand(PaymentRequiredError, "PaymentRequiredError");
