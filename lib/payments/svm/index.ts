/**
 * x402 `exact` payments in USDC on Solana (@x402/svm). Offered when
 * SOLANA_PAY_TO_ADDRESS is set and a facilitator can settle them.
 *
 * Seam for the Solana implementation: `svmRequirements` adds the Solana entry to
 * `accepts`, `authorizeSvmPayment` verifies, locks and later settles a payment.
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import type { DecodedPayment } from "@/lib/payments/x402/codec";
import { ApiError } from "@/lib/errors";

export function isSvmNetwork(network: string): boolean {
  return network.startsWith("solana:");
}

/** The Solana requirement for `priceUsd`, or none when Solana is not configured. */
export function svmRequirements(priceUsd: string): PaymentRequirements[] {
  void priceUsd;
  return [];
}

export async function authorizeSvmPayment(decoded: DecodedPayment, req: PaymentRequirements, input: PaymentInput): Promise<AuthorizedPayment> {
  void decoded;
  void input;
  throw new ApiError("payment_invalid", `Payments on ${req.network} are not configured on this instance.`);
}
