/**
 * The a2a-x402 extension's error codes (spec v0.2 section 9.1) for the gate's payment
 * refusals, so an A2A client can branch on `x402.payment.error` without parsing text,
 * and the failure entry a failed payment leaves in `x402.payment.receipts` (section 9.2).
 */
import { decodePayment } from "@/lib/payments/x402/codec";
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

/** An x402 SettleResponse of a payment that was not settled (section 9.2): no transaction, the reason. */
export interface FailureReceipt {
  success: false;
  errorReason: string;
  transaction: "";
  network: string;
  payer?: string;
}

/**
 * The failure receipt of the payment in `payload` (the gate's base64 form). Network and
 * payer are read from the payload itself when it decodes (what the client signed for);
 * otherwise `fallbackNetwork` (the requirement's) or "".
 */
export function failureReceipt(payload: string, reason: string, fallbackNetwork?: string): FailureReceipt {
  let network = fallbackNetwork ?? "";
  let payer: string | undefined;
  try {
    const d = decodePayment(payload);
    network = d.network;
    const from = (d.payload as { authorization?: { from?: unknown } }).authorization?.from;
    if (typeof from === "string") payer = from;
  } catch {
    // Undecodable: the reason already says so.
  }
  return { success: false, errorReason: reason, transaction: "", network, ...(payer ? { payer } : {}) };
}
