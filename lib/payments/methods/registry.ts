/**
 * The payment methods this instance accepts, registered once from configuration (the
 * way x402's `x402ResourceServer.register(network, scheme)` does upstream) and read by
 * every surface: the gate decodes a payment and asks `methodFor`; the 402, the MCP
 * requirement and the discovery documents ask `x402Requirements`, `discoveryOffers`
 * and `methodFacts`. Nothing outside lib/payments/methods names a chain.
 *
 * Built on first use, never at import time (`next build` imports every module), and
 * rebuilt when the configuration object changes (tests reset it).
 */
import type { PaymentRequirements } from "@x402/core/types";
import { env, type Env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { processState } from "@/lib/process-state";
import type { DecodedPayment } from "@/lib/payments/x402/codec";
import { evmConfigured, evmExactMethod } from "@/lib/payments/methods/evm-exact";
import { svmConfigured, svmExactMethod } from "@/lib/payments/methods/svm-exact";
import { xlmMemoMethod } from "@/lib/payments/methods/xlm-memo";
import type { DiscoveryOffer, MethodFacts, MethodId, PaymentMethod, PriceContext } from "@/lib/payments/methods/types";
import type { Surface } from "@/lib/access/credentials";

export type { DiscoveryOffer, MethodFacts, MethodId, PaymentMethod, PriceContext } from "@/lib/payments/methods/types";

/** Every method and when the configuration enables it, in the order offers are listed. */
const CANDIDATES: Array<{ enabled: (cfg: Env) => boolean; make: () => PaymentMethod }> = [
  { enabled: () => evmConfigured(), make: evmExactMethod },
  { enabled: () => svmConfigured(), make: svmExactMethod },
  { enabled: (cfg) => Boolean(cfg.STELLAR_PAY_TO_ADDRESS), make: xlmMemoMethod },
];

const registry = () => processState<{ cfg: Env | null; methods: readonly PaymentMethod[]; generation: number }>("payments.methods", () => ({ cfg: null, methods: [], generation: 0 }));

/** The registered methods (configured; some may not be usable yet, see `usable()`). */
export function paymentMethods(): readonly PaymentMethod[] {
  const r = registry();
  const cfg = env();
  if (r.cfg !== cfg) {
    r.methods = CANDIDATES.filter((c) => c.enabled(cfg)).map((c) => c.make());
    r.cfg = cfg;
    r.generation++;
  }
  return r.methods;
}

/** Methods that can take a payment now. */
export function usableMethods(): PaymentMethod[] {
  return paymentMethods().filter((m) => m.usable());
}

/** The usable method `id`, or null (a page that pays with one method asks for its facts). */
export function usableMethod(id: MethodId): PaymentMethod | null {
  return usableMethods().find((m) => m.id === id) ?? null;
}

/**
 * What the registry offers right now, as a short string: it changes when the
 * configuration is read again or a method turns usable (Solana through a remote
 * facilitator, once its /supported answer named the fee payer). Documents built from the
 * registry and kept for reuse (OpenAPI, the PDF, the MCP tool list) are keyed on it, so
 * none keeps describing an older set of methods than the 402 offers.
 */
export function paymentMethodsVersion(): string {
  const usable = usableMethods();
  return `${registry().generation}:${usable.map((m) => m.id).join(",")}`;
}

/** Whether any per-call payment is accepted (otherwise only bundles and keys are). */
export function perCallPaymentAccepted(): boolean {
  return usableMethods().length > 0;
}

/** The x402 `accepts[]` for a price: one entry per usable x402 method. */
export function x402Requirements(priceUsd: string): PaymentRequirements[] {
  return usableMethods().flatMap((m) => m.requirement(priceUsd) ?? []);
}

/** The spec 2.3 offers for a price: the same methods as `x402Requirements`, in the same order. */
export function discoveryOffers(priceUsd: string): DiscoveryOffer[] {
  return usableMethods().flatMap((m) => (m.requirement(priceUsd) ? (m.discoveryOffer(priceUsd) ?? []) : []));
}

/**
 * Whether `surface` can carry payments of methods outside `accepts[]` (XLM's signed
 * quote and envelope). A2A cannot: the a2a-x402 extension moves an x402 PaymentRequired
 * and a PaymentPayload signed for one of its `accepts[]`, nothing else, so A2A is
 * neither offered such a method nor does it take one.
 */
export function takesOutOfBand(surface: Surface): boolean {
  return surface !== "a2a";
}

/** Out-of-band offers (methods outside `accepts[]`), keyed by method id; built lazily (they may need I/O). */
export async function extraOffers(ctx: PriceContext): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (!takesOutOfBand(ctx.surface)) return out;
  for (const m of usableMethods()) {
    if (!m.offer) continue;
    out[m.id] = await m.offer(ctx).catch(() => null);
  }
  return out;
}

/** What documents for people say about each usable method. */
export function methodFacts(): MethodFacts[] {
  return usableMethods().map((m) => m.facts());
}

/**
 * The method that handles a decoded payment; refuses clearly (402 payment_invalid) when
 * none does. Never names a chain itself: the message lists the registered networks.
 */
export function methodFor(decoded: DecodedPayment): PaymentMethod {
  const methods = usableMethods();
  if (methods.length === 0) throw new ApiError("payment_invalid", "Per-call payments are not configured on this instance; use a bundle or a free-tier key.");
  const m = methods.find((x) => x.matches(decoded));
  if (m) return m;
  const accepted = methods.map((x) => x.facts().network).join(", ");
  throw new ApiError("payment_invalid", `Wrong network ${decoded.network}; accepted: ${accepted}.`);
}
