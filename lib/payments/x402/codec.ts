/**
 * x402 wire formats for both client generations.
 * - v2 (`@x402/fetch`): requirement in the base64 `PAYMENT-REQUIRED` header, payment in
 *   `PAYMENT-SIGNATURE`, receipt in `PAYMENT-RESPONSE`.
 * - v1 (`x402-fetch`): JSON 402 body `{x402Version: 1, accepts[]}` with v1 network names
 *   ("base") and `maxAmountRequired`, payment in `X-PAYMENT`, receipt in
 *   `X-PAYMENT-RESPONSE`.
 * The EIP-3009 `{signature, authorization}` payload is identical in both, so a v1
 * payment is mapped onto the matching v2 requirement and verified the same way.
 */
import { z } from "zod";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ApiError } from "@/lib/errors";
import { canonicalSolanaNetwork } from "@/lib/payments/svm/config";

/** CAIP-2 ↔ x402 v1 network names. */
const V1_NAMES: Record<string, string> = {
  "eip155:8453": "base",
  "eip155:84532": "base-sepolia",
  "eip155:1": "ethereum",
  "eip155:137": "polygon",
  "eip155:43114": "avalanche",
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "solana",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "solana-devnet",
};
export function toV1Network(caip: string): string {
  return V1_NAMES[caip] ?? caip;
}
export function fromV1Network(name: string): string {
  return Object.entries(V1_NAMES).find(([, v]) => v === name)?.[0] ?? name;
}

export interface ResourceInfo {
  url: string;
  description: string;
  mimeType: string;
}

/** The x402 ResourceInfo of a paid resource (always JSON here). */
export function resourceInfo(url: string, description: string): ResourceInfo {
  return { url, description, mimeType: "application/json" };
}

export function toV1Requirement(r: PaymentRequirements, resource: ResourceInfo, outputSchema?: Record<string, unknown>) {
  return {
    scheme: r.scheme,
    network: toV1Network(r.network),
    maxAmountRequired: r.amount,
    resource: resource.url,
    description: resource.description,
    mimeType: resource.mimeType,
    outputSchema: outputSchema ?? {},
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    asset: r.asset,
    extra: r.extra,
  };
}

const hex = (len?: number) => z.string().regex(len ? new RegExp(`^0x[0-9a-fA-F]{${len}}$`) : /^0x[0-9a-fA-F]+$/);
const uintString = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative().transform(String)]);

export const ExactEvmPayload = z.object({
  signature: hex(),
  authorization: z.object({
    from: hex(40),
    to: hex(40),
    value: uintString,
    validAfter: uintString,
    validBefore: uintString,
    nonce: hex(64),
  }),
});
export type ExactEvmPayload = z.infer<typeof ExactEvmPayload>;

const RequirementsShape = z.object({
  scheme: z.string(),
  network: z.string(),
  amount: z.string(),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number(),
  extra: z.record(z.string(), z.unknown()).optional().default({}),
});

const V2Payload = z.object({
  x402Version: z.literal(2),
  resource: z.object({ url: z.string() }).passthrough().optional(),
  accepted: RequirementsShape,
  payload: z.record(z.string(), z.unknown()),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

const V1Payload = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: z.record(z.string(), z.unknown()),
});

export interface DecodedPayment {
  version: 1 | 2;
  scheme: string;
  network: string;
  /** What the client says it accepted (v2) — checked field by field against ours. */
  accepted: z.infer<typeof RequirementsShape> | null;
  payload: Record<string, unknown>;
  raw: unknown;
}

function invalid(message: string): never {
  throw new ApiError("payment_invalid", message);
}

/** Decodes a base64 (or raw JSON) x402 payment header / tool argument. */
export function decodePayment(value: string): DecodedPayment {
  let json: unknown;
  try {
    const text = value.trim().startsWith("{") ? value : Buffer.from(value, "base64").toString("utf8");
    json = JSON.parse(text);
  } catch {
    invalid("The payment is not base64-encoded JSON of an x402 payment payload.");
  }
  const v2 = V2Payload.safeParse(json);
  if (v2.success) {
    const network = canonicalSolanaNetwork(v2.data.accepted.network);
    return { version: 2, scheme: v2.data.accepted.scheme, network, accepted: { ...v2.data.accepted, network }, payload: v2.data.payload, raw: json };
  }
  const v1 = V1Payload.safeParse(json);
  if (v1.success) {
    return { version: 1, scheme: v1.data.scheme, network: canonicalSolanaNetwork(fromV1Network(v1.data.network)), accepted: null, payload: v1.data.payload, raw: json };
  }
  invalid("The payment payload is not an x402 v1 or v2 payment payload.");
}

/**
 * Checks a decoded EVM `exact` payment against the one requirement it must meet, with a
 * precise reason for each mismatch. Signature, balance and on-chain state are checked
 * by the facilitator afterwards.
 */
export function checkExactEvm(d: DecodedPayment, req: PaymentRequirements, nowSeconds = Math.floor(Date.now() / 1000)): ExactEvmPayload {
  if (d.scheme !== "exact") invalid(`Unsupported scheme "${d.scheme}"; this resource accepts "exact".`);
  if (d.network !== req.network) invalid(`Wrong network ${d.network}; this resource is paid on ${req.network}.`);
  if (d.accepted) {
    if (d.accepted.asset.toLowerCase() !== req.asset.toLowerCase()) invalid(`Wrong asset ${d.accepted.asset}; pay in USDC ${req.asset}.`);
    if (d.accepted.payTo.toLowerCase() !== req.payTo.toLowerCase()) invalid(`Wrong payTo ${d.accepted.payTo}; pay to ${req.payTo}.`);
    if (d.accepted.amount !== req.amount) invalid(`The payment was made for ${d.accepted.amount} base units; this call costs exactly ${req.amount}.`);
  }
  const p = ExactEvmPayload.safeParse(d.payload);
  if (!p.success) invalid("The exact-scheme payload must carry an EIP-3009 authorization and its signature.");
  const a = p.data.authorization;
  if (a.to.toLowerCase() !== req.payTo.toLowerCase()) invalid(`The authorization pays ${a.to}; this resource is paid to ${req.payTo}.`);
  if (a.value !== req.amount) invalid(`The authorization transfers ${a.value} base units; this call costs exactly ${req.amount}.`);
  if (BigInt(a.validAfter) > BigInt(nowSeconds)) invalid("The authorization is not valid yet (validAfter is in the future).");
  // A few seconds of margin so that it cannot expire between verification and settlement.
  if (BigInt(a.validBefore) <= BigInt(nowSeconds + 6)) invalid("The authorization has expired (validBefore has passed).");
  return p.data;
}

/** The v2 PaymentPayload the facilitator verifies (v1 payments mapped onto `req`). */
export function toFacilitatorPayload(d: DecodedPayment, req: PaymentRequirements, resource: ResourceInfo, opts: { forwardExtensions?: boolean } = {}): PaymentPayload {
  // A remote facilitator reads the extensions the client echoed (the Bazaar catalogues the
  // resource from them); the in-process one does not, and an optimistic payment's row keeps
  // this payload, so they are passed on only when asked.
  const extensions = opts.forwardExtensions ? (d.raw as { extensions?: Record<string, unknown> } | null)?.extensions : undefined;
  return {
    x402Version: 2,
    resource,
    accepted: req,
    payload: d.payload,
    ...(extensions ? { extensions } : {}),
  } as PaymentPayload;
}

export function base64Json(v: unknown): string {
  return Buffer.from(JSON.stringify(v), "utf8").toString("base64");
}
