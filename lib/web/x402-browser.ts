/**
 * Browser side of an x402 payment, whatever the wallet: read the v2 requirement from the
 * 402's PAYMENT-REQUIRED header, have the official x402 client (`@x402/core`'s x402Client
 * with the network's exact scheme: `@x402/evm` for an EVM wallet, `@x402/svm` for a
 * Solana one) build and sign the payment, capped at the amount the person confirmed on the
 * page, with a fresh x402 `payment-identifier` id; present it as PAYMENT-SIGNATURE and
 * read what came back without guessing: a result, "pending" (the service is still
 * settling: present the same payment again), "lost" (no readable answer: it may have been
 * settled, present it again), or the service's own refusal, shown in its own words.
 *
 * Only before a payment is signed can the page itself know that nothing was charged; after
 * that, only the service says so (lib/web/pending-payments.ts keeps the signed payment
 * until it has).
 */
import { formatUnits, type Address, type Hex } from "viem";
import { x402Client } from "@x402/core/client";
// The official header codecs: browser-safe (atob/TextDecoder when present, Buffer only without them).
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { evmChainId } from "@/lib/payments/x402/eip3009";

/** An `exact` requirement on an EVM network (the one a browser EVM wallet pays). */
export type ExactRequirement = PaymentRequirements & { asset: Address; payTo: Address };

export type PurchaseFailure =
  | "rejected"
  | "insufficient"
  | "wrong_network"
  | "price_changed"
  | "payment_invalid"
  | "settlement_failed"
  | "not_configured"
  | "unavailable"
  | "refused"
  | "error";

/** A failure with the message shown to the person; `kind` lets the page style it. */
export class PurchaseError extends Error {
  constructor(
    readonly kind: PurchaseFailure,
    message: string,
  ) {
    super(message);
    this.name = "PurchaseError";
  }
}

export const REJECTED_MESSAGE = "Signature rejected — nothing was charged.";

/**
 * The refusal shown when the wallet is on another chain than the one the payment is
 * taken on, naming both; `what` is what the page sells ("a bundle", "this call").
 */
export function wrongNetworkMessage(target: string, what: string, current?: string): string {
  return `Wrong network: ${current ? `your wallet is on ${current}; ` : ""}switch your wallet to ${target} to pay for ${what}. Nothing was charged.`;
}

const USDC_DECIMALS = 6;

export function usdc(atomic: bigint | string): string {
  return formatUnits(BigInt(atomic), USDC_DECIMALS);
}

interface ErrorBody {
  code?: string;
  error?: string | { code?: string; message?: string; payment_id?: string; retry_after?: number; reason?: string };
}

function errorOf(body: ErrorBody | null): { code: string | null; message: string | null; paymentId: string | null } {
  if (!body) return { code: null, message: null, paymentId: null };
  if (typeof body.error === "object" && body.error) return { code: body.error.code ?? null, message: body.error.message ?? null, paymentId: body.error.payment_id ?? null };
  return { code: body.code ?? null, message: typeof body.error === "string" ? body.error : null, paymentId: null };
}

/** Asks before any payment exists: a failure here cannot have charged anything. */
async function ask(path: string): Promise<Response> {
  try {
    return await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
  } catch {
    throw new PurchaseError("unavailable", "Could not reach the service. Nothing was charged.");
  }
}

/** Asks a paid endpoint for its payment terms (a 402 without a credential). */
export async function requestTerms(path: string): Promise<PaymentRequired> {
  const res = await ask(path);
  const header = res.headers.get("payment-required");
  if (res.status !== 402 || !header) {
    const { message } = errorOf((await res.json().catch(() => null)) as ErrorBody | null);
    throw new PurchaseError("unavailable", `The service did not return payment terms (HTTP ${res.status}${message ? `: ${message}` : ""}). Nothing was charged.`);
  }
  try {
    return decodePaymentRequiredHeader(header);
  } catch {
    throw new PurchaseError("error", "The payment terms could not be read. Nothing was charged.");
  }
}

/** The `exact` offer of the 402 on `network` (CAIP-2), or a refusal naming what is missing. */
export function offerOn(envelope: PaymentRequired, network: string, wallet: string): PaymentRequirements {
  const accepted = (Array.isArray(envelope.accepts) ? envelope.accepts : []).find((a) => a.scheme === "exact" && a.network === network);
  if (!accepted) throw new PurchaseError("not_configured", `This instance does not take payments from ${wallet} right now. Nothing was charged.`);
  return accepted;
}

/** The EVM `exact` offer of the 402 (the one an EVM browser wallet pays). */
export function evmOffer(envelope: PaymentRequired): ExactRequirement {
  const accepted = (Array.isArray(envelope.accepts) ? envelope.accepts : []).find((a): a is ExactRequirement => a.scheme === "exact" && evmChainId(a.network) !== null);
  if (!accepted) throw new PurchaseError("not_configured", "This instance does not take USDC payments from browser wallets right now. Nothing was charged.");
  return accepted;
}

/** The x402 `payment-identifier` extension (coinbase/x402 specs/extensions/payment_identifier.md). */
export const PAYMENT_IDENTIFIER = "payment-identifier";

/** A fresh payment-identifier id: "pay_" and 32 random hex digits (the extension's own form). */
export function newPaymentId(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return `pay_${Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")}`;
}

/** A signed payment, as kept until it is resolved (never a key: the header the service is sent). */
export interface SignedPayment {
  /** PAYMENT-SIGNATURE header value. */
  header: string;
  /** Its payment-identifier id (the service seals a bundle's token in its kept answer under it). */
  id: string;
  network: string;
  /** Atomic amount signed for. */
  amount: string;
  /** What identifies it on its network: the EIP-3009 nonce, or null (Solana: the transaction). */
  reference: string | null;
}

/**
 * Signs the payment for `accepted` with the official x402 client and `scheme` (the
 * network's exact client scheme over the connected wallet). The client's spending cap is
 * the amount the person confirmed on the page (`confirmed`, atomic): a 402 asking for
 * more is refused before anything is signed. Every payment carries a new
 * payment-identifier id, so presenting it again gets its answer again.
 */
export async function signPayment(envelope: PaymentRequired, accepted: PaymentRequirements, scheme: SchemeNetworkClient, confirmed: bigint): Promise<SignedPayment> {
  if (BigInt(accepted.amount) > confirmed) {
    throw new PurchaseError("price_changed", `The service now asks ${usdc(accepted.amount)} USDC, more than the ${usdc(confirmed)} USDC you confirmed. Nothing was charged; reload the page to see the current price.`);
  }
  const client = new x402Client()
    .register(accepted.network as `${string}:${string}`, scheme)
    .setSpendControls({ maxAmountPerPayment: false, allowedAssets: [{ network: accepted.network as `${string}:${string}`, asset: accepted.asset, maxAmountPerPayment: confirmed.toString() }] });
  // Only the offer this page pays with: the client picks among what the 402 lists.
  const payload: PaymentPayload = await client.createPaymentPayload({ ...envelope, accepts: [accepted] });
  const id = newPaymentId();
  payload.extensions = { ...(payload.extensions ?? {}), [PAYMENT_IDENTIFIER]: { info: { required: false, id } } };
  const nonce = (payload.payload as { authorization?: { nonce?: Hex } }).authorization?.nonce ?? null;
  return { header: encodePaymentSignatureHeader(payload), id, network: accepted.network, amount: accepted.amount, reference: nonce };
}

/** What presenting a signed payment once came back with. */
export type Presented =
  /** The thing paid for (`replayed`: the answer it got before, sent again). */
  | { kind: "done"; body: unknown; txHash: string | null; replayed: boolean }
  /** The service is still settling it (503 settlement_pending): present it again after `retryAfter` s. */
  | { kind: "pending"; retryAfter: number; paymentId: string | null; message: string }
  /** No readable answer (connection lost, a proxy's page, a cut-off body): it may have been settled. */
  | { kind: "lost"; why: string }
  /** The service's own final answer: refused, in its own words. */
  | { kind: "refused"; status: number; code: string; message: string; paymentId: string | null };

/** Presents a signed payment for `path` once, and says what came back. `isResult` tells the thing paid for. */
export async function presentPayment(path: string, header: string, isResult: (body: unknown) => boolean): Promise<Presented> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { Accept: "application/json", "PAYMENT-SIGNATURE": header }, cache: "no-store" });
  } catch {
    return { kind: "lost", why: "the connection to the service was lost" };
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok) {
    if (!isResult(body)) return { kind: "lost", why: `the service answered HTTP ${res.status} but its reply could not be read` };
    let txHash: string | null = null;
    const receipt = res.headers.get("payment-response");
    if (receipt) {
      try {
        txHash = decodePaymentResponseHeader(receipt).transaction || null;
      } catch {
        txHash = null;
      }
    }
    return { kind: "done", body, txHash, replayed: res.headers.get("idempotent-replayed") === "true" };
  }
  const { code, message, paymentId } = errorOf(body as ErrorBody | null);
  // Only the service's own error answer says what happened; anything else leaves the outcome open.
  if (!code) return { kind: "lost", why: `the service's answer (HTTP ${res.status}) could not be read` };
  const text = message ?? `The service answered HTTP ${res.status} (${code}).`;
  // Any other 503 (the service or an upstream failed before the payment was settled) is
  // the service's own final word on this attempt, and says itself that nothing was charged.
  if (code === "settlement_pending") {
    const retry = Number(res.headers.get("retry-after"));
    return { kind: "pending", retryAfter: Number.isFinite(retry) && retry > 0 ? retry : 5, paymentId, message: text };
  }
  return { kind: "refused", status: res.status, code, message: text, paymentId };
}

/** The refusal a person reads for the service's final answer to a payment: its own words, styled by code. */
export function refusalError(r: Extract<Presented, { kind: "refused" }>): PurchaseError {
  if (r.code === "settlement_failed") return new PurchaseError("settlement_failed", `Settlement failed: ${r.message}`);
  if (r.code === "payment_invalid" && /insufficient|balance|funds/i.test(r.message)) return new PurchaseError("insufficient", `Insufficient USDC balance: ${r.message}`);
  if (r.code === "payment_invalid") return new PurchaseError("payment_invalid", r.message);
  return new PurchaseError(r.status >= 500 ? "unavailable" : "refused", r.message);
}

export interface BundleResult {
  bundle_token: string;
  bundle_id: string;
  tier: string;
  credits: number;
  credits_remaining: number;
  usage: string;
  created_at: string;
}

export const isBundle = (b: unknown): b is BundleResult => typeof (b as BundleResult | null)?.bundle_token === "string" && (b as BundleResult).bundle_token.length > 0;
export const isJson = (b: unknown): b is Record<string, unknown> => typeof b === "object" && b !== null;

/** True when a wallet error means the person declined (EIP-1193 code 4001, or a Wallet Standard rejection). */
export function isUserRejection(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.code === 4001 || e.name === "UserRejectedRequestError" || e.name === "WalletSignTransactionError" || /user rejected/i.test(e.message ?? "")) return true;
  }
  return false;
}

/** Any failure before the payment left the page → the message shown to the person (nothing signed was sent). */
export function explainPurchaseError(err: unknown): PurchaseError {
  if (err instanceof PurchaseError) return err;
  if (isUserRejection(err)) return new PurchaseError("rejected", REJECTED_MESSAGE);
  const short = (err as { shortMessage?: string; message?: string })?.shortMessage ?? (err as Error)?.message ?? "unknown error";
  return new PurchaseError("error", `The wallet reported an error: ${short} Nothing was charged.`);
}
