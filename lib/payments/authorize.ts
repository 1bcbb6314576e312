/**
 * Per-call payments: decode the x402 payload (v1 or v2), find the registered method that
 * handles it (lib/payments/methods/registry.ts) and let it check the payment against the
 * exact requirement, lock its reference and verify it. The result hands back `settle`
 * (called only after the handler succeeded) and `release` (called when it failed).
 *
 * A payment presented again is answered from its ledger row (lib/payments/ledger.ts): the
 * answer it got, sent again as it was (`answered`); the row taken over when its holder is
 * gone; a pending answer while a live call holds it; 409 for another payload with the
 * same reference or payment identifier. That holds also when the payment would now be
 * refused before its lock (its authorization expired since): it is judged as of when it
 * was first accepted.
 */
import { ApiError } from "@/lib/errors";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import { decodePayment, type DecodedPayment } from "@/lib/payments/x402/codec";
import { methodFor, takesOutOfBand, type MethodId, type PaymentMethod } from "@/lib/payments/methods/registry";
import { AnsweredBefore, paymentSeen } from "@/lib/payments/ledger";
import { identifierKey, openAnswer, paymentIdentity, SUGGESTED_ID_PREFIX } from "@/lib/payments/answers";
import { productById } from "@/lib/catalog/lookup";
import { startRecovery } from "@/lib/payments/recovery";

export type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";

/** The x402 `payment-identifier` extension's key and its id's form (coinbase/x402 specs/extensions/payment_identifier.md). */
export const PAYMENT_IDENTIFIER = "payment-identifier";
const ID_FORM = /^[A-Za-z0-9_-]{16,128}$/;

/** The payment's payment-identifier id (v2 payloads), or null; a malformed one is refused (400). */
export function paymentIdentifierOf(decoded: DecodedPayment): string | null {
  const ext = (decoded.raw as { extensions?: Record<string, unknown> } | null)?.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
  const id = ext?.info?.id;
  if (id === undefined || id === null) return null;
  if (typeof id !== "string" || !ID_FORM.test(id)) {
    throw new ApiError("bad_request", `The payment's ${PAYMENT_IDENTIFIER} id must be 16-128 characters of letters, digits, "-" and "_".`);
  }
  return id;
}

/**
 * `onMethod` learns the method that handles the payment and the payment's own reference
 * (what the replay guard keys on: EVM `payer:nonce`, the Solana transaction's reference,
 * the XLM transaction hash) before anything can refuse it, so the refusal log line can
 * name both; neither is learnt when decoding failed.
 */
export async function authorizePayment(input: PaymentInput, onMethod?: (id: MethodId, reference: string | null) => void): Promise<AuthorizedPayment> {
  // This instance reconciles payments whose holder died while it serves payments.
  startRecovery();
  const decoded = decodePayment(input.payload);
  const method = methodFor(decoded);
  const reference = method.reference(decoded);
  onMethod?.(method.id, reference);
  if (!method.requirement(input.priceUsd) && !takesOutOfBand(input.surface)) {
    throw new ApiError("payment_invalid", `${method.facts().label} is not taken over ${input.surface.toUpperCase()}: pay with one of the x402 requirements offered there, or use a bundle token or a free-tier key.`);
  }
  const identifier = paymentIdentifierOf(decoded);
  const canonical = method.canonical(decoded);
  const full: PaymentInput = {
    ...input,
    identifier,
    // A client's own id is exclusive to its payment (same id, another payload: 409); the
    // one our requirement suggested may be shared by payments signed from it.
    idempotencyKey: identifier && !identifier.startsWith(SUGGESTED_ID_PREFIX) ? identifierKey(identifier) : null,
    identity: canonical ? paymentIdentity(canonical, identifier) : null,
  };
  try {
    return await method.authorize(decoded, full);
  } catch (err) {
    if (err instanceof AnsweredBefore) return answeredAgain(method, err, full);
    // Refused before its lock, yet seen before: answered from its row, or taken over.
    if (err instanceof ApiError && err.code === "payment_invalid" && reference && !input.asOf) {
      let seen: { takeOver: number } | null;
      try {
        seen = await paymentSeen(method.facts().network, reference, full.identity ?? null);
      } catch (e) {
        if (e instanceof AnsweredBefore) return answeredAgain(method, e, full);
        throw e;
      }
      if (seen) return authorizePayment({ ...input, asOf: seen.takeOver }, onMethod);
    }
    throw err;
  }
}

/** The answer of a payment presented again, to be sent as it was (nothing runs, nothing is charged). */
function answeredAgain(method: PaymentMethod, seen: AnsweredBefore, input: PaymentInput): AuthorizedPayment {
  if (seen.product !== input.product.id) {
    const other = (() => {
      try {
        return productById(seen.product).path;
      } catch {
        return seen.product;
      }
    })();
    throw new ApiError("payment_replayed", `This payment was used for ${other} (payment id ${seen.paymentId}); present it there to receive its answer again. For ${input.product.path}, sign a new one.`, {
      extra: { payment_id: seen.paymentId },
    });
  }
  const answered = openAnswer(seen.paymentId, seen.response, input.identifier ?? null);
  const receipt = { txHash: answered.payment.transaction, receiptId: answered.receiptId, response: answered.payment, settlement: answered.settlement };
  return {
    kind: method.id === "xlm-memo" ? "xlm" : "x402",
    paymentId: seen.paymentId,
    payer: answered.payment.payer,
    answered,
    settle: async () => receipt,
    release: async () => undefined,
  };
}
