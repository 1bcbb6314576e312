/**
 * Offline verification of a signed native-XLM payment envelope. See
 * lib/payments/xlm/quote.ts for the flow and lib/payments/xlm/settle.ts for submission.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { FeeBumpTransaction, Keypair, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { openQuote, stroopsToXlm, type Quote } from "@/lib/payments/xlm/quote";
import { hex, signedBy } from "@/lib/payments/xlm/bytes";

export const XlmPayload = z.object({ quote: z.string().min(10).max(2000), envelope_xdr: z.string().min(10).max(20_000) });

export interface VerifiedXlm {
  /** Hash of the envelope as sent (a fee bump's own hash): what Horizon answers with. */
  txHash: string;
  /**
   * Hash of the signed payment itself (a fee bump's inner transaction). It is the replay
   * key: anyone can wrap the same signed payment in any number of new fee bumps, each
   * with a new outer hash, but the network applies the inner transaction at most once.
   */
  innerHash: string;
  /** The transaction's maxTime (Unix seconds): after a ledger closes past it, it can never be applied. */
  maxTime: number;
  payer: string;
  stroops: bigint;
  destination: string;
  envelopeXdr: string;
  quote: Quote;
}

function bad(message: string): never {
  throw new ApiError("payment_invalid", message);
}

/** The key of a plain G… account; a muxed (M…) account is refused clearly, not with a 500. */
function accountKey(address: string, role: string): Keypair {
  try {
    return Keypair.fromPublicKey(address);
  } catch {
    return bad(`The ${role} must be a plain Stellar account (G…), not ${address.slice(0, 1)}….`);
  }
}

/** The hash of the signed payment (a fee bump's inner transaction: the replay key), read without verifying anything; null when the payload has no readable envelope. */
export function xlmPaymentHash(payload: unknown): string | null {
  const p = XlmPayload.safeParse(payload);
  if (!p.success) return null;
  try {
    const outer = TransactionBuilder.fromXDR(p.data.envelope_xdr, env().STELLAR_NETWORK_PASSPHRASE);
    return hex((outer instanceof FeeBumpTransaction ? outer.innerTransaction : outer).hash());
  } catch {
    return null;
  }
}

/** Verifies the envelope against the quote; no network access. */
export async function verifyXlmPayment(payload: unknown, product: AnyProduct, surface: Surface, nowSeconds = Math.floor(Date.now() / 1000)): Promise<VerifiedXlm> {
  const cfg = env();
  if (!cfg.STELLAR_PAY_TO_ADDRESS) bad("XLM payments are not configured on this instance.");
  const p = XlmPayload.safeParse(payload);
  if (!p.success) bad('An XLM payment must carry {"quote", "envelope_xdr"}.');
  const quote = await openQuote(p.data.quote, product, surface, nowSeconds);

  let outer: Transaction | FeeBumpTransaction;
  try {
    outer = TransactionBuilder.fromXDR(p.data.envelope_xdr, cfg.STELLAR_NETWORK_PASSPHRASE);
  } catch {
    return bad("The XLM envelope is not a valid base64 transaction envelope.");
  }
  const tx = outer instanceof FeeBumpTransaction ? outer.innerTransaction : outer;

  // The memo binds this payment to the quote (and so to product, price and expiry).
  const memoHash = createHash("sha256").update(p.data.quote).digest();
  // stellar-sdk 17 decodes a hash memo to a Uint8Array (15 gave a Buffer).
  if (tx.memo.type !== "hash" || !(tx.memo.value instanceof Uint8Array) || !memoHash.equals(tx.memo.value)) {
    bad("The transaction memo must be the MEMO_HASH given with the quote.");
  }
  if (tx.operations.length !== 1) bad("The transaction must contain exactly one payment operation.");
  const op = tx.operations[0]!;
  if (op.type !== "payment") bad("The operation must be a payment.");
  if (!op.asset.isNative()) bad("The payment must be in native XLM.");
  if (op.destination !== quote.d) bad(`The payment must go to ${quote.d}.`);
  // stellar-sdk renders amounts with exactly 7 decimals, like stroopsToXlm.
  const stroops = BigInt(quote.a);
  if (op.amount !== stroopsToXlm(stroops)) {
    bad(`The payment must be exactly ${stroopsToXlm(BigInt(quote.a))} XLM.`);
  }
  const payer = op.source ?? tx.source;
  const max = Number(tx.timeBounds?.maxTime ?? "0");
  if (!max) bad("The transaction must have time bounds (maxTime).");
  if (max > quote.e + 60) bad("The transaction's time bounds outlive the quote.");
  if (max <= nowSeconds) bad("The transaction's time bounds have passed.");
  const min = Number(tx.timeBounds?.minTime ?? "0");
  if (min > nowSeconds + 5) bad("The transaction is not valid yet (minTime in the future).");

  // The paying account's master key must have signed the transaction for this network.
  const signer = accountKey(payer, "paying account");
  const hash = tx.hash();
  const signed = tx.signatures.some((s) => signedBy(s, signer, hash));
  if (!signed) bad("The transaction is not signed by the paying account for this network.");
  if (outer instanceof FeeBumpTransaction) {
    const feeSource = accountKey(outer.feeSource, "fee-bump fee source");
    const outerHash = outer.hash();
    if (!outer.signatures.some((s) => signedBy(s, feeSource, outerHash))) {
      bad("The fee-bump envelope is not signed by its fee source.");
    }
  }
  return {
    txHash: hex(outer.hash()),
    innerHash: hex(hash),
    maxTime: max,
    payer,
    stroops,
    destination: quote.d,
    envelopeXdr: p.data.envelope_xdr,
    quote,
  };
}
