/**
 * The per-operation payment offer of spec 2.3, derived from a catalog price. Used by
 * /openapi.json, /v1/manifest and the x402 manifests so the figures agree everywhere.
 */
import { env } from "@/lib/config/env";
import { usd6, usdLabel, usdToAtomic } from "@/lib/payments/price";

export interface PaymentOffer {
  protocols: Array<{ x402: Record<string, never> }>;
  price: { mode: "fixed"; currency: "USD"; amount: string };
  offers: Array<{ intent: "charge"; method: "evm"; network: string; amount: string; currency: string; description: string }>;
}

export function paymentOffer(priceUsd: string): PaymentOffer {
  const cfg = env();
  return {
    protocols: [{ x402: {} }],
    price: { mode: "fixed", currency: "USD", amount: usd6(priceUsd) },
    offers: [
      {
        intent: "charge",
        method: "evm",
        network: cfg.X402_NETWORK,
        amount: usdToAtomic(priceUsd).toString(),
        currency: cfg.USDC_ADDRESS,
        description: `${usdLabel(priceUsd)} in USDC per call, settled with the x402 exact scheme (EIP-3009 transferWithAuthorization) directly to the provider wallet.`,
      },
    ],
  };
}
