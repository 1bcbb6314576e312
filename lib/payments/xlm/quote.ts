/**
 * Native XLM payments with a memo.
 *
 * Flow (documented in docs/paying.md, "Native XLM with a memo"):
 * 1. A paid call without credentials answers with the payment requirement; when
 *    STELLAR_PAY_TO_ADDRESS is set it carries `xlm`: destination, the exact XLM amount
 *    (the USD price converted at the current XLM/USD rate, rounded up to the stroop), a
 *    `quote` token and `memo` = SHA-256(quote) as a MEMO_HASH, valid for
 *    XLM_QUOTE_TTL_SECONDS (10 minutes by default).
 *    The quote is HMAC-signed by the service and names product, surface (HTTP or MCP
 *    price), amount, destination and expiry, so the memo binds the payment to exactly
 *    this request and cannot be re-used for another product or price.
 * 2. The client signs a transaction with ONE native payment of exactly that amount to
 *    the destination, that memo, and time bounds ending no later than the quote expiry.
 * 3. It repeats the call with `X-PAYMENT` (HTTP) or `payment` (MCP) =
 *    base64(JSON{x402Version: 1, scheme: "xlm-memo", network: "stellar:pubnet",
 *    payload: {quote, envelope_xdr}}).
 * 4. The service verifies everything offline with @stellar/stellar-sdk (HMAC, expiry,
 *    network passphrase, source signature, destination, asset, amount, memo, time
 *    bounds; fee bumps are unwrapped), locks the inner transaction's hash (a payment seen
 *    before is refused, however it is wrapped), runs the handler and only on success
 *    submits the envelope to Horizon (lib/payments/xlm/settle.ts: an unanswered
 *    submission is looked up by hash before anything is said about the charge).
 */
import { createHmac, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import { env } from "@/lib/config/env";
import { serviceSecret } from "@/lib/db/secrets";
import { simplePrice } from "@/lib/market/sources/coingecko";
import { ApiError } from "@/lib/errors";
import { XLM_SCHEME, stellarNetworkId } from "@/lib/payments/methods/facts";


export interface XlmOffer {
  scheme: typeof XLM_SCHEME;
  network: string;
  network_passphrase: string;
  destination: string;
  asset: "native";
  amount: string;
  amount_stroops: string;
  rate_usd_per_xlm: number;
  memo_type: "hash";
  memo: string;
  quote: string;
  expires_at: string;
  instruction: string;
}

const Quote = z.object({
  v: z.literal(1),
  p: z.string(),
  s: z.enum(["http", "mcp"]),
  a: z.string().regex(/^\d+$/),
  d: z.string(),
  e: z.number().int(),
  n: z.string(),
});
export type Quote = z.infer<typeof Quote>;

function hmacKey(): Promise<string> {
  return serviceSecret("xlm_quote_hmac", () => randomBytes(32).toString("hex"));
}

function sign(key: string, body: string): string {
  return createHmac("sha256", Buffer.from(key, "hex")).update(body).digest("base64url");
}

/** "12.3456789" from stroops. */
export function stroopsToXlm(stroops: bigint): string {
  return `${stroops / 10_000_000n}.${(stroops % 10_000_000n).toString().padStart(7, "0")}`;
}

/** Stroops needed to pay `priceUsd` at `usdPerXlm`, rounded up. */
export function usdToStroops(priceUsd: string, usdPerXlm: number): bigint {
  if (!(usdPerXlm > 0)) throw new Error("invalid XLM rate");
  // Price has at most 6 decimals; work in micro-USD and a rate scaled to 1e9 for exactness.
  const [w, f = ""] = priceUsd.split(".");
  const microUsd = BigInt(w!) * 1_000_000n + BigInt((f + "000000").slice(0, 6));
  const rate = BigInt(Math.round(usdPerXlm * 1e9)); // nano-USD per XLM
  // stroops = microUsd/1e6 / (rate/1e9) * 1e7 = microUsd * 1e10 / rate
  const num = microUsd * 10_000_000_000n;
  const q = num / rate;
  return num % rate === 0n ? q : q + 1n;
}

/** The current XLM/USD rate (CoinGecko, cached there), or null when it is unknown. */
export async function xlmUsdRate(): Promise<number | null> {
  return (await simplePrice(["stellar"])).stellar?.usd ?? null;
}

/**
 * The XLM option of a payment requirement, or null when XLM is not configured or no
 * rate is known. `knownRate` skips the rate lookup (lib/payments/methods/xlm-memo.ts
 * decides when a remembered rate is good enough).
 */
export async function xlmOffer(product: AnyProduct, surface: Surface, priceUsd: string, knownRate?: number | null): Promise<XlmOffer | null> {
  const cfg = env();
  // A2A carries no XLM (lib/payments/methods/registry.ts, takesOutOfBand): no quote is issued for it.
  if (!cfg.STELLAR_PAY_TO_ADDRESS || surface === "a2a") return null;
  const rate = knownRate === undefined ? await xlmUsdRate() : knownRate;
  if (!rate) return null;
  const stroops = usdToStroops(priceUsd, rate);
  const quote: Quote = {
    v: 1,
    p: product.id,
    s: surface,
    a: stroops.toString(),
    d: cfg.STELLAR_PAY_TO_ADDRESS,
    e: Math.floor(Date.now() / 1000) + cfg.XLM_QUOTE_TTL_SECONDS,
    n: randomBytes(8).toString("hex"),
  };
  const body = Buffer.from(JSON.stringify(quote)).toString("base64url");
  const token = `${body}.${sign(await hmacKey(), body)}`;
  const memo = createHash("sha256").update(token).digest();
  const amount = stroopsToXlm(stroops);
  return {
    scheme: XLM_SCHEME,
    network: stellarNetworkId(cfg.STELLAR_NETWORK_PASSPHRASE),
    network_passphrase: cfg.STELLAR_NETWORK_PASSPHRASE,
    destination: cfg.STELLAR_PAY_TO_ADDRESS,
    asset: "native",
    amount,
    amount_stroops: stroops.toString(),
    rate_usd_per_xlm: rate,
    memo_type: "hash",
    memo: memo.toString("hex"),
    quote: token,
    expires_at: new Date(quote.e * 1000).toISOString(),
    instruction:
      `Sign a Stellar transaction with one native payment of exactly ${amount} XLM to ${cfg.STELLAR_PAY_TO_ADDRESS}, ` +
      `memo hash ${memo.toString("hex")}, time bounds ending by ${new Date(quote.e * 1000).toISOString()}, ` +
      `then repeat the call with X-PAYMENT (HTTP) or "payment" (MCP) = base64 of ` +
      `{"x402Version":1,"scheme":"${XLM_SCHEME}","network":"${stellarNetworkId(cfg.STELLAR_NETWORK_PASSPHRASE)}","payload":{"quote":"<quote>","envelope_xdr":"<signed envelope, base64 XDR>"}}.`,
  };
}

/** Checks a quote token's signature, expiry and binding; returns its fields. */
export async function openQuote(token: string, product: AnyProduct, surface: Surface, nowSeconds = Math.floor(Date.now() / 1000)): Promise<Quote> {
  const [body, mac] = token.split(".");
  const bad = (m: string): never => {
    throw new ApiError("payment_invalid", m);
  };
  if (!body || !mac) bad("The XLM quote is malformed.");
  const expected = Buffer.from(sign(await hmacKey(), body!));
  const given = Buffer.from(mac!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) bad("The XLM quote was not issued by this service.");
  let parsed: Quote;
  try {
    parsed = Quote.parse(JSON.parse(Buffer.from(body!, "base64url").toString("utf8")));
  } catch {
    return bad("The XLM quote is malformed.");
  }
  if (parsed.e < nowSeconds) bad("The XLM quote has expired; request a new payment requirement.");
  if (parsed.p !== product.id || parsed.s !== surface) bad("The XLM quote was issued for another product or price.");
  return parsed;
}
