/**
 * What each payment method is (label, network, asset, pay-to, how to pay) and whether it
 * is usable now, from the configuration alone: no facilitator, chain, database or quote
 * is built or asked here. The method modules (./evm-exact.ts, ./svm-exact.ts,
 * ./xlm-memo.ts) answer `facts()` from these functions, and the web pages read them
 * directly: pages must not import the registry, whose methods carry the settlement code,
 * or the process would hold a second copy of the payment modules (see
 * lib/errors/brand.ts and tests/unit/page-graph.test.ts).
 */
import { createHash } from "node:crypto";
import { env } from "@/lib/config/env";
import { remoteFacilitatorUrl } from "@/lib/payments/x402/remote";
import { cachedRemoteFeePayer, localFeePayer, svmMode, svmNetwork } from "@/lib/payments/svm/config";
import type { MethodFacts } from "@/lib/payments/methods/types";

/** The scheme name of native XLM payments with a memo (outside x402's `accepts[]`). */
export const XLM_SCHEME = "xlm-memo";

/** The CAIP-2-style id of a Stellar network, from its passphrase. */
export function stellarNetworkId(passphrase: string): string {
  if (passphrase === "Public Global Stellar Network ; September 2015") return "stellar:pubnet";
  if (passphrase === "Test SDF Network ; September 2015") return "stellar:testnet";
  return `stellar:${createHash("sha256").update(passphrase).digest("hex").slice(0, 16)}`;
}

/** Whether this configuration can take EVM payments (PAY_TO_ADDRESS and a facilitator). */
export function evmConfigured(): boolean {
  const cfg = env();
  return Boolean(cfg.PAY_TO_ADDRESS && (remoteFacilitatorUrl() || cfg.FACILITATOR_PRIVATE_KEY));
}

export function evmFacts(): MethodFacts {
  const cfg = env();
  return {
    id: "evm-exact",
    label: `USDC on ${cfg.X402_NETWORK}`,
    scheme: "exact",
    x402: true,
    network: cfg.X402_NETWORK,
    asset: { symbol: "USDC", address: cfg.USDC_ADDRESS, decimals: 6 },
    payTo: cfg.PAY_TO_ADDRESS!,
    howTo: `x402 scheme exact, USDC on ${cfg.X402_NETWORK} (asset ${cfg.USDC_ADDRESS}): sign an EIP-3009 transferWithAuthorization for the exact amount of the requirement (the PAYMENT-REQUIRED header, v2, answered with PAYMENT-SIGNATURE; or the 402 body's accepts[], v1, answered with X-PAYMENT).`,
  };
}

/**
 * The Solana fee payer clients must name, as known now without asking anyone: the
 * in-process key's address, or the remote facilitator's from its last /supported answer
 * (null until the registry's first requirement has fetched it).
 */
export function svmFeePayerKnown(): string | null {
  const mode = svmMode();
  if (mode === "local") return localFeePayer()!.address;
  if (mode === "remote") return cachedRemoteFeePayer();
  return null;
}

export function svmFacts(): MethodFacts {
  const cfg = env();
  const network = svmNetwork();
  return {
    id: "svm-exact",
    label: `USDC on ${network}`,
    scheme: "exact",
    x402: true,
    network,
    asset: { symbol: "USDC", address: cfg.SOLANA_USDC_MINT, decimals: 6 },
    payTo: cfg.SOLANA_PAY_TO_ADDRESS!,
    howTo: `x402 scheme exact, USDC (mint ${cfg.SOLANA_USDC_MINT}) on ${network}: sign a transferChecked of exactly the amount to ${cfg.SOLANA_PAY_TO_ADDRESS} with the requirement's extra.feePayer as fee payer (the service pays the network fee).`,
  };
}

export function xlmFacts(): MethodFacts {
  const cfg = env();
  const network = stellarNetworkId(cfg.STELLAR_NETWORK_PASSPHRASE);
  const payTo = cfg.STELLAR_PAY_TO_ADDRESS!;
  return {
    id: "xlm-memo",
    label: `native XLM on ${network}`,
    scheme: XLM_SCHEME,
    x402: false,
    network,
    asset: { symbol: "XLM", address: "native", decimals: 7 },
    payTo,
    howTo: `native XLM with a memo: the 402's "xlm" member gives the destination ${payTo}, the exact XLM amount at the current rate, a signed quote and the MEMO_HASH; pay it and repeat the call with X-PAYMENT (or the MCP "payment" argument) = base64 of {"x402Version":1,"scheme":"${XLM_SCHEME}","network":"${network}","payload":{"quote","envelope_xdr"}}.`,
  };
}

/**
 * The facts of every method usable now, in the order the registry lists them (EVM,
 * Solana once its fee payer is known, XLM): what the pages show. The registry's
 * `methodFacts()` gives the same list on the request path.
 */
export function usableMethodFacts(): MethodFacts[] {
  const out: MethodFacts[] = [];
  if (evmConfigured()) out.push(evmFacts());
  if (svmMode() !== null && svmFeePayerKnown()) out.push(svmFacts());
  if (env().STELLAR_PAY_TO_ADDRESS) out.push(xlmFacts());
  return out;
}

/** The facts of `id` when it is usable now, else null. */
export function usableFactsOf(id: MethodFacts["id"]): MethodFacts | null {
  return usableMethodFacts().find((m) => m.id === id) ?? null;
}
