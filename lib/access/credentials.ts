/**
 * The credential a caller presents, normalised from either surface. HTTP reads headers;
 * MCP reads the tool arguments (`payment`, `bundle_token`, `api_key`) or the x402 MCP
 * binding in `_meta`. When several are present the order is payment, bundle, key:
 * an explicit payment is never silently ignored.
 */
export type Credential =
  | { kind: "x402"; payload: string; version: 1 | 2 }
  | { kind: "bundle"; token: string }
  | { kind: "api_key"; key: string }
  | { kind: "none" };

export type Surface = "http" | "mcp";

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

/** Credential from MCP tool arguments. */
export function credentialFromToolArgs(args: { payment?: string | null; bundle_token?: string | null; api_key?: string | null }, metaPayment?: unknown): Credential {
  const meta = typeof metaPayment === "string" ? clean(metaPayment) : metaPayment && typeof metaPayment === "object" ? clean(Buffer.from(JSON.stringify(metaPayment)).toString("base64")) : undefined;
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
