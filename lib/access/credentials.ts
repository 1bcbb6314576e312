/**
 * The credential a caller presents, normalised from either surface. HTTP reads headers;
 * MCP reads the tool arguments (`payment`, `bundle_token`, `api_key`) or the x402 MCP
 * binding in `_meta`. When several are present the order is payment, bundle, key:
 * an explicit payment is never silently ignored.
 */
import { ValidationError } from "@/lib/errors";

export type Credential =
  | { kind: "x402"; payload: string; version: 1 | 2 }
  | { kind: "bundle"; token: string }
  | { kind: "api_key"; key: string }
  | { kind: "none" };

/** Where a call came from (recorded in the ledger); which price it pays: lib/catalog/surfaces.ts. */
export type Surface = "http" | "mcp" | "a2a";

/** Longest credential value accepted (an x402 payload is a few KiB). */
export const MAX_CREDENTIAL = 16_384;

function clean(v: string | null | undefined): string | undefined {
  const s = v?.trim();
  return s && s.length <= MAX_CREDENTIAL ? s : undefined;
}

/** Credential from HTTP request headers. */
export function credentialFromHeaders(h: Headers): Credential {
  const v2 = clean(h.get("payment-signature"));
  if (v2) return { kind: "x402", payload: v2, version: 2 };
  const v1 = clean(h.get("x-payment"));
  if (v1) return { kind: "x402", payload: v1, version: 1 };
  const bundle = clean(h.get("x-bundle-token"));
  if (bundle) return { kind: "bundle", token: bundle };
  const auth = clean(h.get("authorization"));
  const bearer = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const key = clean(h.get("x-api-key"));
  // A bearer value is a bundle token unless it is shaped like a free-tier key.
  if (bearer && !isApiKeyShaped(bearer)) return { kind: "bundle", token: bearer };
  if (key) return { kind: "api_key", key };
  if (bearer) return { kind: "api_key", key: bearer };
  return { kind: "none" };
}

/** Where the x402 MCP binding carries a payment (`params._meta`). */
export const MCP_PAYMENT_META_KEY = "x402/payment";

/**
 * The payment in `_meta["x402/payment"]` as a base64 payload; undefined when absent.
 * A value that is present but unusable (not a string or a JSON object, empty, or over
 * MAX_CREDENTIAL once encoded) is refused with a spec 2.6 error rather than dropped:
 * dropping it would charge a bundle token or key sent in the same call instead of the
 * payment the caller meant to make.
 */
function metaPaymentPayload(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const loc = ["_meta", MCP_PAYMENT_META_KEY];
  const isObject = typeof v === "object" && !Array.isArray(v);
  if (typeof v !== "string" && !isObject) {
    throw new ValidationError([{ loc, msg: "Input should be an x402 PaymentPayload object or its base64 encoding", type: "model_type", input: v }]);
  }
  const encoded = typeof v === "string" ? v.trim() : Buffer.from(JSON.stringify(v)).toString("base64");
  if (!encoded) throw new ValidationError([{ loc, msg: "String should have at least 1 character", type: "string_too_short", input: v, ctx: { min_length: 1 } }]);
  if (encoded.length > MAX_CREDENTIAL) {
    throw new ValidationError([
      { loc, msg: `Payment payload should have at most ${MAX_CREDENTIAL} characters once base64-encoded`, type: "string_too_long", input: `${encoded.slice(0, 64)}…`, ctx: { max_length: MAX_CREDENTIAL } },
    ]);
  }
  return encoded;
}

/**
 * Credential from MCP tool arguments and `_meta["x402/payment"]`. Throws a
 * ValidationError (spec 2.6) for an unusable `_meta` payment, before anything is charged.
 */
export function credentialFromToolArgs(args: { payment?: string | null; bundle_token?: string | null; api_key?: string | null }, metaPayment?: unknown): Credential {
  const meta = metaPaymentPayload(metaPayment);
  const payment = clean(args.payment) ?? meta;
  if (payment) return { kind: "x402", payload: payment, version: 2 };
  const bundle = clean(args.bundle_token);
  if (bundle) return { kind: "bundle", token: bundle };
  const key = clean(args.api_key);
  if (key) return { kind: "api_key", key };
  return { kind: "none" };
}

/** Free-tier keys carry a fixed prefix (see lib/access/keys). */
export const API_KEY_PREFIX = "echo_fk_";
export const BUNDLE_TOKEN_PREFIX = "echo_bt_";

export function isApiKeyShaped(s: string): boolean {
  return s.startsWith(API_KEY_PREFIX);
}
