/**
 * Which modules make up the paid call path and the payment core: the web pages never
 * import them (tests/unit/page-graph.test.ts), and the built page chunks never hold them
 * (tests/integration/pages-then-pay.test.ts). See lib/errors/brand.ts for why.
 */
/** Modules a page may reach under lib/payments: configuration and facts, no settlement code, no state of a call. */
const PAGE_SAFE = new Set([
  "lib/payments/methods/facts.ts",
  "lib/payments/methods/types.ts",
  "lib/payments/price.ts",
  "lib/payments/types.ts",
  "lib/payments/svm/config.ts",
  "lib/payments/x402/eip3009.ts",
  "lib/payments/x402/remote.ts",
]);

/** The call path and the payment core: never in a page's graph. */
export function isPaymentCore(file: string): boolean {
  if (file.startsWith("lib/payments/")) return !PAGE_SAFE.has(file);
  return ["lib/access/gate.ts", "lib/access/call.ts", "lib/access/payment-required.ts", "lib/mcp/tools.ts", "lib/a2a/executor.ts"].includes(file);
}

