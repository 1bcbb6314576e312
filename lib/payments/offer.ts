/**
 * The per-operation payment offer of spec 2.3, derived from a catalog price and the
 * payment-method registry: one `offers[]` entry per x402 method this instance accepts,
 * in the order of the 402's `accepts[]`. Without one, `protocols` and `offers` are empty
 * and only the price remains. Used by /openapi.json, the x402 manifest and the
 * protected-resource metadata so the figures agree everywhere.
 */
import { usd6 } from "@/lib/payments/price";
import { discoveryOffers, type DiscoveryOffer } from "@/lib/payments/methods/registry";

export interface PaymentOffer {
  protocols: Array<{ x402: Record<string, never> }>;
  price: { mode: "fixed"; currency: "USD"; amount: string };
  offers: DiscoveryOffer[];
}

export function paymentOffer(priceUsd: string): PaymentOffer {
  const offers = discoveryOffers(priceUsd);
  return {
    protocols: offers.length > 0 ? [{ x402: {} }] : [],
    price: { mode: "fixed", currency: "USD", amount: usd6(priceUsd) },
    offers,
  };
}
