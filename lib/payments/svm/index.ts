/**
 * Solana payments: the method itself is lib/payments/methods/svm-exact.ts; this module
 * keeps the names the rest of the code and the tests use.
 */
import { resetSvmConfigForTests } from "@/lib/payments/svm/config";
import { resetSvmFacilitatorForTests } from "@/lib/payments/svm/facilitator";
import { svmRequirement } from "@/lib/payments/methods/svm-exact";
import type { PaymentRequirements } from "@x402/core/types";

export { svmNetwork } from "@/lib/payments/svm/config";

/** Forget cached keys, facilitator clients and remote answers (tests change the environment). */
export function resetSvmForTests(): void {
  resetSvmConfigForTests();
  resetSvmFacilitatorForTests();
}

export function isSvmNetwork(network: string): boolean {
  return network.startsWith("solana:");
}

/** The Solana requirement for `priceUsd` as a list (empty when Solana is not offered now). */
export function svmRequirements(priceUsd: string): PaymentRequirements[] {
  const r = svmRequirement(priceUsd);
  return r ? [r] : [];
}
