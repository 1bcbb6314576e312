/**
 * The gate's typed outcome. Layers exchange these objects, never header strings; each
 * surface renders them in its own terms (HTTP: lib/http/access-render.ts; MCP:
 * lib/mcp/results.ts; A2A: task metadata).
 */
import type { ErrorCode } from "@/lib/errors";
import type { Credential } from "@/lib/access/credentials";
import type { PaymentRequirements } from "@x402/core/types";
import type { MethodId } from "@/lib/payments/methods/types";
import type { PaymentResponse, SettlementMode } from "@/lib/payments/types";
import type { ResourceInfo, toV1Requirement } from "@/lib/payments/x402/codec";
import type { XlmOffer } from "@/lib/payments/xlm/quote";

export type { PaymentResponse } from "@/lib/payments/types";

/** The x402 v2 PaymentRequired of a refusal. */
export interface X402Required {
  x402Version: 2;
  error: string;
  /** The resource, named for the x402 Bazaar (lib/access/x402-extensions.ts). */
  resource: ResourceInfo & { serviceName?: string; tags?: string[]; iconUrl?: string };
  accepts: PaymentRequirements[];
  /** The declared x402 extensions (`bazaar`, `payment-identifier`): lib/access/x402-extensions.ts. */
  extensions?: Record<string, unknown>;
}

/**
 * What a refused caller is told (spec 2.2: endpoint, price, instruction), built from the
 * payment-method registry by lib/access/payment-required.ts.
 */
export interface Requirement {
  endpoint: string;
  price: string;
  price_usd: string;
  currency: "USD";
  instruction: string;
  /** The x402 v2 PaymentRequired; null when no x402 method is accepted. */
  x402: X402Required | null;
  /** The same for v1 clients; null likewise. */
  x402_v1: { x402Version: 1; error: string; accepts: ReturnType<typeof toV1Requirement>[]; extensions?: Record<string, unknown> } | null;
  xlm: XlmOffer | null;
  alternatives: { bundle: string | null; free_key: string | null };
}

/** A free-tier key's day: calls allowed, left, and when the count resets (ms since epoch). */
export interface QuotaState {
  limit: number;
  remaining: number;
  resetAt: number;
}

/** A bundle's credits after (or, on a refusal, at) the call. */
export interface CreditsState {
  remaining: number;
  /** Credits this call consumed; null when nothing was charged. */
  charged: number | null;
}

/** The call was charged (or, for a HEAD, would be accepted; see `charged`). */
export interface Granted {
  granted: true;
  credential: Exclude<Credential["kind"], "none">;
  /** The payment method of a per-call payment. */
  method: MethodId | null;
  /** False for a check that charged nothing (HEAD). */
  charged: boolean;
  receiptId: string | null;
  /** The settlement receipt of a per-call payment (structured; HTTP base64-encodes it). */
  payment: PaymentResponse | null;
  /** How the per-call payment was settled; null for other credentials. */
  settlement?: SettlementMode | null;
  quota: QuotaState | null;
  credits: CreditsState | null;
}

/** The call may not run (or its charge failed): the reason and how to pay instead. */
export interface Refused {
  granted: false;
  code: ErrorCode;
  message: string;
  /** 402, or 429 for an exhausted free key (which can still pay). */
  status: number;
  requirement: Requirement;
  credential: Credential["kind"];
  method: MethodId | null;
  /** Ledger id of the payment row, once one exists (a settlement failure names it to the payer). */
  paymentId: string | null;
  /** The presented payment's own reference (EVM `payer:nonce`, Solana message hash, XLM transaction hash) when it could be read. */
  reference: string | null;
  quota: QuotaState | null;
  credits: CreditsState | null;
  retryAfterSeconds: number | null;
  /** Why a presented payment was refused, in a word (`funds_in_flight`, `compute_budget_too_high`, `fee_budget_spent`, `gas_too_expensive`...), when the method names it. */
  reason?: string | null;
}

export type GateOutcome = Granted | Refused;

/** Seconds until `resetAt`, never negative. */
export function secondsUntil(resetAt: number, now = Date.now()): number {
  return Math.max(0, Math.ceil((resetAt - now) / 1000));
}
