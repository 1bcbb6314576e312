/**
 * The a2a-x402 extension's error codes (spec v0.2 section 9.1) for the gate's payment
 * refusals, so an A2A client can branch on `x402.payment.error` without parsing text.
 */
const BY_MESSAGE: Array<[RegExp, string]> = [
  [/insufficient|exceeds balance/i, "INSUFFICIENT_FUNDS"],
  [/expired|not valid yet|validBefore|validAfter/i, "EXPIRED_PAYMENT"],
  [/wrong network/i, "NETWORK_MISMATCH"],
  [/costs exactly|base units|amount/i, "INVALID_AMOUNT"],
  [/signature/i, "INVALID_SIGNATURE"],
];

/** `x402.payment.error` for a refused or failed payment (gate code + its message). */
export function paymentErrorCode(code: string, message: string): string {
  if (code === "payment_replayed") return "DUPLICATE_NONCE";
  if (code === "settlement_failed") return "SETTLEMENT_FAILED";
  if (code === "settlement_pending") return "SETTLEMENT_PENDING";
  if (code === "payment_invalid") return BY_MESSAGE.find(([re]) => re.test(message))?.[1] ?? "INVALID_PAYMENT";
  return code.toUpperCase();
}
