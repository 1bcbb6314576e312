/**
 * Offline verification of a signed native-XLM payment envelope, and its submission to
 * Horizon after the paid call succeeded. See lib/payments/xlm/quote.ts for the flow.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { FeeBumpTransaction, Keypair, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { openQuote, stroopsToXlm, type Quote } from "@/lib/payments/xlm/quote";

export const XlmPayload = z.object({ quote: z.string().min(10).max(2000), envelope_xdr: z.string().min(10).max(20_000) });

export interface VerifiedXlm {
  txHash: string;
  payer: string;
  stroops: bigint;
  destination: string;
  envelopeXdr: string;
  quote: Quote;
}

function bad(message: string): never {
  throw new ApiError("payment_invalid", message);
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
  if (tx.memo.type !== "hash" || !Buffer.isBuffer(tx.memo.value) || !(tx.memo.value as Buffer).equals(memoHash)) {
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
  const signer = Keypair.fromPublicKey(payer);
  const hash = tx.hash();
  const signed = tx.signatures.some((s) => s.hint().equals(signer.signatureHint()) && signer.verify(hash, s.signature()));
  if (!signed) bad("The transaction is not signed by the paying account for this network.");
  if (outer instanceof FeeBumpTransaction) {
    const feeSource = Keypair.fromPublicKey(outer.feeSource);
    const outerHash = outer.hash();
    if (!outer.signatures.some((s) => s.hint().equals(feeSource.signatureHint()) && feeSource.verify(outerHash, s.signature()))) {
      bad("The fee-bump envelope is not signed by its fee source.");
    }
  }
  return {
    txHash: outer.hash().toString("hex"),
    payer,
    stroops,
    destination: quote.d,
    envelopeXdr: p.data.envelope_xdr,
    quote,
  };
}

const SubmitOk = z.object({ hash: z.string(), successful: z.boolean().optional(), ledger: z.number().optional() }).passthrough();
const SubmitErr = z
  .object({ extras: z.object({ result_codes: z.object({ transaction: z.string().optional(), operations: z.array(z.string()).optional() }).optional() }).optional() })
  .passthrough();

/** Submits the envelope to Horizon; returns the transaction hash, or throws. */
export async function submitXlmPayment(v: VerifiedXlm): Promise<{ hash: string; ledger: number | null }> {
  const cfg = env();
  const base = (cfg.STELLAR_HORIZON_SUBMIT_URL ?? cfg.HORIZON_BASE_URL).replace(/\/+$/, "");
  let res: Response;
  try {
    res = await fetch(`${base}/transactions`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ tx: v.envelopeXdr }).toString(),
      signal: AbortSignal.timeout(cfg.PAYMENT_TIMEOUT_MS),
    });
  } catch (err) {
    throw new ApiError("settlement_failed", `Horizon did not answer the submission: ${(err as Error).message}`);
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) {
    const ok = SubmitOk.safeParse(body);
    if (ok.success && ok.data.successful !== false) return { hash: ok.data.hash, ledger: ok.data.ledger ?? null };
  }
  const codes = SubmitErr.safeParse(body);
  const rc = codes.success ? codes.data.extras?.result_codes : undefined;
  throw new ApiError("settlement_failed", `Horizon refused the XLM payment (${rc?.transaction ?? `HTTP ${res.status}`}${rc?.operations ? `: ${rc.operations.join(",")}` : ""}); nothing was charged.`);
}
