/**
 * The payment requirement (spec 2.2: endpoint, price, instruction) built from the
 * payment-method registry, and the error that carries a refusal through the gate.
 * With at least one x402 method the requirement includes the x402 v2 PaymentRequired
 * (and its v1 form); without one it has no x402 part at all (an empty `accepts[]` is
 * not a valid x402 document), only spec 2.2's fields, the XLM offer when XLM is
 * accepted, and the alternatives. How a surface shows it: lib/http/access-render.ts
 * (HTTP), lib/mcp/results.ts (MCP).
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import type { Refused, Requirement } from "@/lib/access/outcome";
import { ApiError } from "@/lib/errors";
import { resourceInfo, toV1Requirement } from "@/lib/payments/x402/codec";
import { usd6, usdLabel } from "@/lib/payments/price";
import type { XlmOffer } from "@/lib/payments/xlm/quote";
import { extraOffers, x402Requirements } from "@/lib/payments/methods/registry";
import { FREE_TOOLS } from "@/lib/catalog/free";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { env } from "@/lib/config/env";

export type { Requirement, X402Required } from "@/lib/access/outcome";

export function priceFor(product: AnyProduct, surface: Surface): string {
  if (surface === "mcp") {
    if (!product.tool) throw new Error(`${product.id} has no MCP tool`);
    return product.tool.price;
  }
  return product.httpPrice;
}

function instructionFor(product: AnyProduct, surface: Surface, price: string, networks: string[], xlm: boolean): string {
  const parts: string[] = [];
  const hasX402 = networks.length > 0;
  if (hasX402) {
    const on = networks.join(" or ");
    parts.push(
      surface === "http"
        ? `Pay ${usdLabel(price)} in USDC on ${on} with the x402 "exact" scheme: sign the requirement from the PAYMENT-REQUIRED header (v2, send PAYMENT-SIGNATURE) or from this body's accepts[] (v1, send X-PAYMENT) and repeat the request.`
        : `Pay ${usdLabel(price)} in USDC on ${on} with the x402 "exact" scheme: sign one of accepts[] and call the tool again with the base64 payment payload in the "payment" argument (or in _meta["x402/payment"]).`,
    );
  }
  if (xlm) parts.push(`Or pay in native XLM with the memo given under "xlm" (see xlm.instruction).`);
  if (product.kind === "data") {
    parts.push(surface === "http" ? "Or send a prepaid bundle token (X-Bundle-Token or Authorization: Bearer)." : 'Or pass a prepaid bundle token as "bundle_token".');
    if (product.freeTier) {
      const quota = `${env().FREE_KEY_DAILY_QUOTA} calls per UTC day`;
      parts.push(
        surface === "http"
          ? `Or send a free-tier key as X-Api-Key (GET ${freeEndpoint("/v1/free-key").path} mints one, ${quota}).`
          : `Or pass a free-tier key as "api_key" (the ${FREE_TOOLS.freeKey} tool mints one, ${quota}).`,
      );
    }
  }
  if (!hasX402 && !xlm) parts.unshift("Per-call payment is not configured on this instance.");
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
  const x402 = accepts.length > 0;
  return {
    endpoint: product.path,
    price,
    price_usd: usd6(price),
    currency: "USD",
    instruction: instructionFor(product, surface, price, accepts.map((a) => a.network), xlm !== null),
    x402: x402 ? { x402Version: 2, error, resource, accepts } : null,
    x402_v1: x402 ? { x402Version: 1, error, accepts: accepts.map((r) => toV1Requirement(r, resource)) } : null,
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
