/**
 * What a Solana payment transaction costs the fee payer, and the bound on it. The payer
 * builds the transaction and the service's key pays its fee: 5 000 lamports per required
 * signature plus the priority fee, compute-unit limit × compute-unit price. Left to the
 * payer, one $0.01 call could cost the fee payer 7 010 000 lamports (1 400 000 units at
 * 5 000 000 µlamports); the official x402 client asks for 20 000 units at 1 µlamport
 * (10 001 lamports in all). Payments asking for more than SOLANA_MAX_COMPUTE_UNITS or
 * SOLANA_MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS, or needing more signatures than the payer's
 * and the fee payer's, are refused before anything is sent; the in-process facilitator is
 * given the same caps (@x402/svm `maxComputeUnits`, `maxPriorityFeeMicroLamports`,
 * `maxRequiredSignatures`).
 */
import { env } from "@/lib/config/env";
import type { SvmPaymentTx } from "@/lib/payments/svm/transaction";

export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** The payer's signature and the fee payer's: what an x402 exact payment needs. */
export const MAX_REQUIRED_SIGNATURES = 2;
/** The runtime's compute-unit limit for a transaction that sets none: 200 000 per instruction (not compute-budget ones), at most 1 400 000. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_UNITS = 1_400_000;

export interface SvmFeeCaps {
  maxComputeUnits: number;
  maxPriorityFeeMicroLamports: number;
  maxRequiredSignatures: number;
}

export function svmFeeCaps(): SvmFeeCaps {
  const cfg = env();
  return { maxComputeUnits: cfg.SOLANA_MAX_COMPUTE_UNITS, maxPriorityFeeMicroLamports: cfg.SOLANA_MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS, maxRequiredSignatures: MAX_REQUIRED_SIGNATURES };
}

/** The fee (lamports) the fee payer pays for the transaction, whether it succeeds or fails on chain. */
export function svmTransactionFee(b: SvmPaymentTx["budget"]): bigint {
  const units = BigInt(b.units ?? Math.min(MAX_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * b.instructions));
  const micro = b.microLamports ?? 0n;
  // The runtime rounds the priority fee up to whole lamports.
  const priority = (units * micro + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(b.signatures) + priority;
}

/** Why the transaction would cost the fee payer more than the bound allows (plain language), or null when it does not. */
export function svmFeeRefusal(b: SvmPaymentTx["budget"], caps: SvmFeeCaps = svmFeeCaps()): string | null {
  const over: string[] = [];
  if (b.units === null) over.push(`it sets no compute-unit limit (the runtime would allow up to ${Math.min(MAX_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * b.instructions)} units)`);
  else if (b.units > caps.maxComputeUnits) over.push(`its compute-unit limit is ${b.units}, above ${caps.maxComputeUnits}`);
  if (b.microLamports !== null && b.microLamports > BigInt(caps.maxPriorityFeeMicroLamports)) {
    over.push(`its compute-unit price is ${b.microLamports} micro-lamports, above ${caps.maxPriorityFeeMicroLamports}`);
  }
  if (b.signatures > caps.maxRequiredSignatures) over.push(`it needs ${b.signatures} signatures, more than the payer's and the fee payer's`);
  if (!over.length) return null;
  return `The transaction would make the service's fee payer pay ${svmTransactionFee(b)} lamports: ${over.join("; ")}. Build it as the official x402 client does (SetComputeUnitLimit at most ${caps.maxComputeUnits}, SetComputeUnitPrice at most ${caps.maxPriorityFeeMicroLamports} micro-lamports). Nothing was sent and nothing was charged.`;
}
