/**
 * Browser side of an x402 "exact" payment on an EVM network: read the v2 requirement from
 * the 402's PAYMENT-REQUIRED header, have the official x402 client (`@x402/core`'s
 * x402Client with `@x402/evm`'s exact scheme) build the EIP-3009 authorization and sign it
 * with the connected wallet, send it back as PAYMENT-SIGNATURE, and turn every failure
 * into a message a person can act on.
 */
import { decodeFunctionResult, encodeFunctionData, erc20Abi, formatUnits, type Address, type Hex } from "viem";
import { x402Client } from "@x402/core/client";
// The official header codecs: browser-safe (atob/TextDecoder when present, Buffer only without them).
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { ClientEvmSigner } from "@x402/evm";
import { evmChainId } from "@/lib/payments/x402/eip3009";

/** An `exact` requirement on an EVM network (the one a browser wallet pays). */
export type ExactRequirement = PaymentRequirements & { asset: Address; payTo: Address };

export type PurchaseFailure =
  | "rejected"
  | "insufficient"
  | "wrong_network"
  | "payment_invalid"
  | "settlement_failed"
  | "not_configured"
  | "unavailable"
  | "outcome_unknown"
  | "error";

/**
 * A failure with the message shown to the person; `kind` lets the page style it.
 * `reference` is what to quote to the operator when the outcome is unknown (the EIP-3009
 * authorization nonce, which the service records with the payment).
 */
export class PurchaseError extends Error {
  constructor(
    readonly kind: PurchaseFailure,
    message: string,
    readonly reference: string | null = null,
  ) {
    super(message);
    this.name = "PurchaseError";
  }
}

export const REJECTED_MESSAGE = "Signature rejected — nothing was charged.";

/**
 * The refusal shown when the wallet is on another chain than the one the payment is
 * taken on; `what` is what the page sells ("a bundle", "this call").
 */
export function wrongNetworkMessage(chain: string, what: string): string {
  return `Wrong network: switch your wallet to ${chain} to pay for ${what}. Nothing was charged.`;
}

const USDC_DECIMALS = 6;

export function usdc(atomic: bigint | string): string {
  return formatUnits(BigInt(atomic), USDC_DECIMALS);
}

interface ErrorBody {
  code?: string;
  error?: string | { code?: string; message?: string };
}

function errorOf(body: ErrorBody | null): { code: string | null; message: string | null } {
  if (!body) return { code: null, message: null };
  if (typeof body.error === "object" && body.error) return { code: body.error.code ?? null, message: body.error.message ?? null };
  return { code: body.code ?? null, message: typeof body.error === "string" ? body.error : null };
}

/** Asks before any payment exists: a failure here cannot have charged anything. */
async function call(path: string): Promise<Response> {
  try {
    return await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
  } catch {
    throw new PurchaseError("unavailable", "Could not reach the service. Nothing was charged.");
  }
}

/** Asks a paid endpoint for its payment terms (a 402 without a credential). */
export async function requestRequirement(path: string): Promise<{ envelope: PaymentRequired; accepted: ExactRequirement }> {
  const res = await call(path);
  const header = res.headers.get("payment-required");
  if (res.status !== 402 || !header) {
    const { message } = errorOf((await res.json().catch(() => null)) as ErrorBody | null);
    throw new PurchaseError("unavailable", `The service did not return payment terms (HTTP ${res.status}${message ? `: ${message}` : ""}). Nothing was charged.`);
  }
  let envelope: PaymentRequired;
  try {
    envelope = decodePaymentRequiredHeader(header);
  } catch {
    throw new PurchaseError("error", "The payment terms could not be read. Nothing was charged.");
  }
  const accepted = (Array.isArray(envelope.accepts) ? envelope.accepts : []).find((a): a is ExactRequirement => a.scheme === "exact" && evmChainId(a.network) !== null);
  if (!accepted) throw new PurchaseError("not_configured", "This instance does not take USDC payments from browser wallets right now. Nothing was charged.");
  return { envelope, accepted };
}

/**
 * Signs the payment for `accepted` with the official x402 client: its exact EVM scheme
 * builds the TransferWithAuthorization (random nonce, validity window from the
 * requirement) and asks `signer` (the connected wallet) to sign it. Returns the
 * PAYMENT-SIGNATURE header and the authorization nonce, which the service records the
 * payment under (what to quote when an outcome is unknown).
 */
export async function signPayment(envelope: PaymentRequired, accepted: ExactRequirement, signer: ClientEvmSigner): Promise<{ header: string; nonce: Hex }> {
  const client = new x402Client().register(accepted.network, new ExactEvmScheme(signer));
  // Only the offer this page pays with: the client picks among what the 402 lists.
  const payload = await client.createPaymentPayload({ ...envelope, accepts: [accepted] });
  const nonce = (payload.payload as { authorization?: { nonce?: Hex } }).authorization?.nonce;
  if (!nonce) throw new PurchaseError("error", "The payment could not be prepared. Nothing was charged.");
  return { header: encodePaymentSignatureHeader(payload), nonce };
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

/**
 * Once the signed payment has left the page, a lost or unreadable answer does not mean
 * nothing was charged: the service may have settled it (and, for a bundle, minted a token
 * the page never saw). Say so, and give the nonce the service recorded the payment under.
 */
function outcomeUnknown(what: string, nonce: Hex, bought: string): PurchaseError {
  return new PurchaseError(
    "outcome_unknown",
    `${what}: the payment may have been settled and ${bought}. Check your USDC balance before paying again. If it dropped and no result is shown, contact the operator and quote the authorization nonce below.`,
    nonce,
  );
}

/**
 * Sends the signed payment for `path`; returns the answer's JSON body and the settlement
 * transaction. `isResult` says whether a 200 body is the thing paid for; `bought` names it
 * in the message when the outcome is unknown.
 */
export async function submitPayment<T>(path: string, signatureHeader: string, nonce: Hex, isResult: (body: unknown) => body is T, bought: string): Promise<{ body: T; txHash: string | null }> {
  let res: Response;
  let body: unknown;
  try {
    res = await fetch(path, { headers: { Accept: "application/json", "PAYMENT-SIGNATURE": signatureHeader }, cache: "no-store" });
  } catch {
    throw outcomeUnknown("The connection to the service was lost after the signed payment was sent", nonce, bought);
  }
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok) {
    if (!isResult(body)) throw outcomeUnknown(`The service answered HTTP ${res.status} but its reply could not be read`, nonce, bought);
    let txHash: string | null = null;
    const receipt = res.headers.get("payment-response");
    if (receipt) {
      try {
        txHash = decodePaymentResponseHeader(receipt).transaction || null;
      } catch {
        txHash = null;
      }
    }
    return { body, txHash };
  }
  const { code, message } = errorOf(body as ErrorBody | null);
  // Only the service's own error answer says what happened; anything else (a proxy's
  // error page, a cut-off body) leaves the outcome open.
  if (!code) throw outcomeUnknown(`The service's answer (HTTP ${res.status}) could not be read`, nonce, bought);
  const text = message ?? `The service answered HTTP ${res.status}.`;
  const nothing = /nothing was charged/i.test(text) ? "" : " Nothing was charged.";
  if (code === "settlement_failed") throw new PurchaseError("settlement_failed", `Settlement failed: ${text}`);
  if (code === "payment_invalid" && /insufficient|balance|funds/i.test(text)) {
    throw new PurchaseError("insufficient", `Insufficient USDC balance: ${text}${nothing}`);
  }
  if (code === "payment_invalid") throw new PurchaseError("payment_invalid", `${text}${nothing}`);
  throw new PurchaseError(res.status >= 500 ? "unavailable" : "error", `${text}${nothing}`);
}

const isBundle = (b: unknown): b is BundleResult => typeof (b as BundleResult | null)?.bundle_token === "string" && (b as BundleResult).bundle_token.length > 0;

/** Sends the signed payment for a bundle; returns the bundle and the settlement transaction. */
export async function submitPurchase(path: string, signatureHeader: string, nonce: Hex): Promise<{ bundle: BundleResult; txHash: string | null }> {
  const { body, txHash } = await submitPayment(path, signatureHeader, nonce, isBundle, "the bundle bought");
  return { bundle: body, txHash };
}

/** True when a wallet error means the person declined (EIP-1193 code 4001). */
export function isUserRejection(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.code === 4001 || e.name === "UserRejectedRequestError") return true;
  }
  return false;
}

/** Any failure during a purchase → the message shown to the person. */
export function explainPurchaseError(err: unknown): PurchaseError {
  if (err instanceof PurchaseError) return err;
  if (isUserRejection(err)) return new PurchaseError("rejected", REJECTED_MESSAGE);
  const short = (err as { shortMessage?: string; message?: string })?.shortMessage ?? (err as Error)?.message ?? "unknown error";
  return new PurchaseError("error", `The wallet reported an error: ${short} Nothing was charged.`);
}

interface Eip1193 {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** USDC (or any ERC-20) balance of `owner`, read through the wallet's own RPC. */
export async function tokenBalance(provider: Eip1193, asset: Address, owner: Address): Promise<bigint> {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  const out = (await provider.request({ method: "eth_call", params: [{ to: asset, data }, "latest"] })) as Hex;
  return decodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", data: out });
}
