/**
 * Plain-language reasons for the official EVM `exact` facilitator's refusal codes. The
 * facilitator's own messages are raw client errors (multi-line, with the call's arguments
 * and signature); payers get one sentence and the code.
 */
import type { PaymentRequirements } from "@x402/core/types";
import type { CheckedSettle, CheckedVerify } from "@/lib/payments/x402/facilitator-call";

const REASONS: Record<string, (req: PaymentRequirements) => string> = {
  invalid_exact_evm_signature: () => "the signature does not match the authorization's payer (sign the EIP-712 TransferWithAuthorization of the requirement with the paying account)",
  invalid_exact_evm_insufficient_balance: (r) => `the payer's USDC balance is below the price of ${r.amount} base units (insufficient balance)`,
  invalid_exact_evm_nonce_already_used: () => "this authorization's nonce has already been used on chain; sign a new one",
  invalid_exact_evm_payload_authorization_valid_before: () => "the authorization has expired (validBefore has passed or is within 6 seconds)",
  invalid_exact_evm_payload_authorization_valid_after: () => "the authorization is not valid yet (validAfter is in the future)",
  invalid_exact_evm_recipient_mismatch: (r) => `the authorization does not pay ${r.payTo}`,
  invalid_exact_evm_payload_authorization_value_mismatch: (r) => `the authorization does not transfer exactly ${r.amount} base units`,
  invalid_exact_evm_token_name_mismatch: (r) => `the EIP-712 domain must name the token "${String(r.extra?.name)}"`,
  invalid_exact_evm_token_version_mismatch: (r) => `the EIP-712 domain must have version "${String(r.extra?.version)}"`,
  invalid_exact_evm_network_mismatch: (r) => `the payment is not for ${r.network}`,
  invalid_exact_evm_transaction_simulation_failed: () => "the transfer fails on chain (simulation); check the payer's USDC balance and the authorization",
  invalid_exact_evm_transaction_failed: () => "the transfer transaction failed on chain",
};

function explain(code: string | undefined, req: PaymentRequirements): string {
  const why = code ? REASONS[code] : undefined;
  return why ? `${why(req)} (${code})` : (code ?? "refused by the facilitator");
}

/** Why a payment was refused at verification. */
export function evmRefusal(v: CheckedVerify, req: PaymentRequirements): string {
  return `The payment was refused: ${explain(v.invalidReason, req)}. Nothing was charged.`;
}

/** Why a verified payment could not be settled. */
export function evmSettleRefusal(s: CheckedSettle, req: PaymentRequirements): string {
  return explain(s.errorReason, req);
}
