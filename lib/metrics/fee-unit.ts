// Kept outside lib/payments: /metrics (imported by the upstream adapters the pages use) needs it, and the pages reach no payment module (tests/unit/page-graph.test.ts).
/** The native unit network fees are recorded in on a network, and the payment method that pays them (lib/payments/fees.ts, /metrics). */
export function feeUnit(network: string): { unit: string; method: string } {
  if (network.startsWith("eip155:")) return { unit: "wei", method: "evm-exact" };
  if (network.startsWith("solana:")) return { unit: "lamports", method: "svm-exact" };
  return { unit: "native", method: "other" };
}
