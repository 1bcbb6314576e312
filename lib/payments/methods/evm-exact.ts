/**
 * x402 `exact` USDC on an EVM network (EIP-3009 transferWithAuthorization), Base by
 * default. Usable when PAY_TO_ADDRESS and a facilitator (FACILITATOR_URL, or
 * FACILITATOR_PRIVATE_KEY for the in-process one) are configured. Verification,
 * settlement and the on-chain outcome are delegated to lib/payments/x402/facilitator.ts
 * and the shared life cycle of lib/payments/x402/hold.ts.
 */
import type { PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { usdLabel, usdToAtomic } from "@/lib/payments/price";
import { checkExactEvm, resourceInfo, toFacilitatorPayload, type DecodedPayment } from "@/lib/payments/x402/codec";
import { evmAuthorizationOutcome, evmTransferSimulates, settleWithFacilitator, verifyWithFacilitator } from "@/lib/payments/x402/facilitator";
import { holdPayment } from "@/lib/payments/x402/hold";
import { remoteFacilitatorUrl } from "@/lib/payments/x402/remote";
import { evmRefusal, evmSettleRefusal } from "@/lib/payments/x402/evm-reasons";
import type { PaymentInput } from "@/lib/payments/types";
import type { PaymentMethod } from "@/lib/payments/methods/types";

/** An authorization must stay valid long enough to be settled after the handler ran. */
const MAX_TIMEOUT_SECONDS = 120;

/** Whether this configuration can take EVM payments (also read by the wallet page). */
export function evmConfigured(): boolean {
  const cfg = env();
  return Boolean(cfg.PAY_TO_ADDRESS && (remoteFacilitatorUrl() || cfg.FACILITATOR_PRIVATE_KEY));
}

function requirement(priceUsd: string): PaymentRequirements {
  const cfg = env();
  return {
    scheme: "exact",
    network: cfg.X402_NETWORK as PaymentRequirements["network"],
    amount: usdToAtomic(priceUsd).toString(),
    asset: cfg.USDC_ADDRESS,
    payTo: cfg.PAY_TO_ADDRESS!,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: cfg.USDC_EIP712_NAME, version: cfg.USDC_EIP712_VERSION },
  };
}

/** The replay reference of an EIP-3009 authorization: payer and nonce (both public once settled). */
function evmReference(from: string, nonce: string): string {
  return `${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

function reference(decoded: DecodedPayment): string | null {
  const a = (decoded.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  return typeof a?.from === "string" && typeof a.nonce === "string" ? evmReference(a.from, a.nonce) : null;
}

async function authorize(decoded: DecodedPayment, input: PaymentInput) {
  const req = requirement(input.priceUsd);
  const auth = checkExactEvm(decoded, req);
  const payload = toFacilitatorPayload(decoded, req, resourceInfo(input.resource, input.product.description));
  const from = auth.authorization.from.toLowerCase();
  return holdPayment({
    lock: {
      scheme: "exact",
      network: req.network,
      reference: evmReference(from, auth.authorization.nonce),
      payer: from,
      amountAtomic: BigInt(req.amount),
      asset: req.asset,
      payTo: req.payTo,
      product: input.product.id,
      surface: input.surface,
    },
    payer: from,
    payload,
    req,
    verify: verifyWithFacilitator,
    settle: settleWithFacilitator,
    outcome: evmAuthorizationOutcome,
    stillPays: evmTransferSimulates,
    refusal: (v) => evmRefusal(v, req),
    settleRefusal: (s) => evmSettleRefusal(s, req),
  });
}

/** The EVM method as configured now. */
export function evmExactMethod(): PaymentMethod {
  const cfg = env();
  return {
    id: "evm-exact",
    usable: () => true,
    requirement,
    matches: (d) => d.network === cfg.X402_NETWORK,
    reference,
    authorize,
    outcome: evmAuthorizationOutcome,
    discoveryOffer: (priceUsd) => ({
      intent: "charge",
      method: "evm",
      network: cfg.X402_NETWORK,
      amount: usdToAtomic(priceUsd).toString(),
      currency: cfg.USDC_ADDRESS,
      description: `${usdLabel(priceUsd)} in USDC per call, settled with the x402 exact scheme (EIP-3009 transferWithAuthorization) directly to the provider wallet.`,
    }),
    facts: () => ({
      id: "evm-exact",
      label: `USDC on ${cfg.X402_NETWORK}`,
      scheme: "exact",
      network: cfg.X402_NETWORK,
      asset: { symbol: "USDC", address: cfg.USDC_ADDRESS, decimals: 6 },
      payTo: cfg.PAY_TO_ADDRESS!,
      howTo: `x402 scheme exact, USDC on ${cfg.X402_NETWORK} (asset ${cfg.USDC_ADDRESS}): sign an EIP-3009 transferWithAuthorization for the exact amount of the requirement (the PAYMENT-REQUIRED header, v2, answered with PAYMENT-SIGNATURE; or the 402 body's accepts[], v1, answered with X-PAYMENT).`,
    }),
  };
}
