/**
 * Per-call payments: decode the x402 payload (v1 or v2), find the registered method that
 * handles it (lib/payments/methods/registry.ts) and let it check the payment against the
 * exact requirement, lock its reference and verify it. The result hands back `settle`
 * (called only after the handler succeeded) and `release` (called when it failed).
 */
import { ApiError } from "@/lib/errors";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import { decodePayment } from "@/lib/payments/x402/codec";
import { methodFor, takesOutOfBand, type MethodId } from "@/lib/payments/methods/registry";

export type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";

/**
 * `onMethod` learns the method that handles the payment and the payment's own reference
 * (what the replay guard keys on: EVM `payer:nonce`, the Solana transaction's reference,
 * the XLM transaction hash) before anything can refuse it, so the refusal log line can
 * name both; neither is learnt when decoding failed.
 */
export async function authorizePayment(input: PaymentInput, onMethod?: (id: MethodId, reference: string | null) => void): Promise<AuthorizedPayment> {
  const decoded = decodePayment(input.payload);
  const method = methodFor(decoded);
  onMethod?.(method.id, method.reference(decoded));
  if (!method.requirement(input.priceUsd) && !takesOutOfBand(input.surface)) {
    throw new ApiError("payment_invalid", `${method.facts().label} is not taken over ${input.surface.toUpperCase()}: pay with one of the x402 requirements offered there, or use a bundle token or a free-tier key.`);
  }
  return method.authorize(decoded, input);
}
