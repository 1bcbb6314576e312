/**
 * The payment requirement (spec 2.2: endpoint, price, instruction) in the two forms the
 * surfaces need: an HTTP 402 that follows x402 for v2 clients (base64 PAYMENT-REQUIRED
 * header) and v1 clients (JSON body with `x402Version: 1` and `accepts[]`), and the
 * object an MCP tool returns as its result.
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import { ApiError, type ErrorCode } from "@/lib/errors";
import { base64Json, buildRequirements, toV1Requirement, type ResourceInfo } from "@/lib/payments/x402/codec";
import { usd6, usdLabel } from "@/lib/payments/price";
import { xlmOffer, type XlmOffer } from "@/lib/payments/xlm/quote";
import { FREE_TOOLS } from "@/lib/catalog/free";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { env } from "@/lib/config/env";

export function priceFor(product: AnyProduct, surface: Surface): string {
  if (surface === "mcp") {
    if (!product.tool) throw new Error(`${product.id} has no MCP tool`);
    return product.tool.price;
  }
  return product.httpPrice;
}

export interface Requirement {
  endpoint: string;
  price: string;
  price_usd: string;
  currency: "USD";
  instruction: string;
  x402: { x402Version: 2; error: string; resource: ResourceInfo; accepts: PaymentRequirements[] };
  x402_v1: { x402Version: 1; error: string; accepts: ReturnType<typeof toV1Requirement>[] };
  xlm: XlmOffer | null;
  alternatives: { bundle: string | null; free_key: string | null };
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

/** Builds the requirement for `product` on `surface`. */
export async function buildRequirement(product: AnyProduct, surface: Surface, resourceUrl: string, error: string): Promise<Requirement> {
  const price = priceFor(product, surface);
  const accepts = buildRequirements(price);
  const resource: ResourceInfo = { url: resourceUrl, description: product.description, mimeType: "application/json" };
  const xlm = await xlmOffer(product, surface, price).catch(() => null);
  return {
    endpoint: product.path,
    price,
    price_usd: usd6(price),
    currency: "USD",
    instruction: instructionFor(product, surface, price, accepts.map((a) => a.network), xlm !== null),
    x402: { x402Version: 2, error, resource, accepts },
    x402_v1: { x402Version: 1, error, accepts: accepts.map((r) => toV1Requirement(r, resource)) },
    xlm,
    alternatives: {
      bundle: product.kind === "data" ? productById("bundle").path : null,
      free_key: product.kind === "data" && product.freeTier ? freeEndpoint("/v1/free-key").path : null,
    },
  };
}

/**
 * An error that carries the payment requirement (402, or 429 for an exhausted free key
 * so the caller can still pay).
 */
export class PaymentRequiredError extends ApiError {
  readonly requirement: Requirement;
  constructor(code: ErrorCode, message: string, requirement: Requirement, headers: Record<string, string> = {}) {
    super(code, message, { headers });
    this.name = "PaymentRequiredError";
    this.requirement = requirement;
  }

  /** HTTP: x402 v1 JSON body (plus spec 2.2 fields) and the v2 header. */
  override httpBody(): Record<string, unknown> {
    const r = this.requirement;
    return {
      x402Version: 1,
      error: this.message,
      code: this.code,
      accepts: r.x402_v1.accepts,
      endpoint: r.endpoint,
      price: r.price,
      price_usd: r.price_usd,
      currency: r.currency,
      instruction: r.instruction,
      x402: r.x402,
      xlm: r.xlm,
      alternatives: r.alternatives,
    };
  }

  override httpHeaders(): Record<string, string> {
    return { ...this.headers, "PAYMENT-REQUIRED": base64Json({ ...this.requirement.x402, error: this.message }) };
  }

  /** MCP: the requirement as the tool's result. */
  toolResult(): Record<string, unknown> {
    const r = this.requirement;
    return {
      payment_required: true,
      error: this.message,
      code: this.code,
      endpoint: r.endpoint,
      price: r.price,
      price_usd: r.price_usd,
      currency: r.currency,
      instruction: r.instruction,
      x402Version: 2,
      accepts: r.x402.accepts,
      resource: r.x402.resource,
      xlm: r.xlm,
      alternatives: r.alternatives,
    };
  }
}
