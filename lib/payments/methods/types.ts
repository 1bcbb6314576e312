/**
 * One way to pay per call (EVM exact, Solana exact, native XLM with a memo, later
 * others). Every method answers the same questions, so the gate, the 402, the MCP
 * requirement and every discovery document ask the registry (./registry.ts) and never
 * name a chain.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import type { DecodedPayment } from "@/lib/payments/x402/codec";
import type { PaymentOutcome } from "@/lib/payments/x402/hold";

export type MethodId = "evm-exact" | "svm-exact" | "xlm-memo";

/** What a price costs in one method: an x402 `accepts[]` entry, or an out-of-band offer (XLM). */
export interface PriceContext {
  product: AnyProduct;
  surface: Surface;
  priceUsd: string;
  /**
   * False when the requirement answers a refusal of another method's payment (or of a
   * bundle or key): methods whose offer needs upstream I/O then use what they already
   * know, or leave their offer out, instead of fetching.
   */
  fetchRate?: boolean;
}

/** A spec 2.3 `offers[]` entry (OpenAPI `x-payment-info`, x402 manifest, protected-resource metadata). */
export interface DiscoveryOffer {
  intent: "charge";
  method: string;
  network: string;
  amount: string;
  currency: string;
  description: string;
}

/** What the documents for people and agents say about a method (llms.txt, auth.md, PDF, pages). */
export interface MethodFacts {
  id: MethodId;
  /** "USDC on eip155:8453", "native XLM on stellar:pubnet". */
  label: string;
  /** The x402 scheme a payload names ("exact", "xlm-memo"). */
  scheme: string;
  /** Whether the method is offered in x402's `accepts[]` (else out of band, as XLM's signed quote). */
  x402: boolean;
  network: string;
  asset: { symbol: string; address: string; decimals: number };
  payTo: string;
  /** One sentence: how a client pays with this method. */
  howTo: string;
}

export interface PaymentMethod {
  id: MethodId;
  /**
   * Whether the method can take a payment now. Sync and cheap: read on every 402 and
   * every discovery document. (Solana through a remote facilitator turns usable once the
   * facilitator's fee payer is known.)
   */
  usable(): boolean;
  /** The x402 v2 requirement for a price, or null for methods outside `accepts[]` (XLM) or not usable now. */
  requirement(priceUsd: string): PaymentRequirements | null;
  /**
   * The out-of-band offer of methods that are not x402 `exact` (XLM: a signed quote and
   * memo). Called only when a requirement is built for a client, never for discovery.
   */
  offer?(ctx: PriceContext): Promise<unknown>;
  /** Whether this method handles a decoded payment (scheme and network). */
  matches(decoded: DecodedPayment): boolean;
  /**
   * The payment's own reference, read without judging the payment: what the replay
   * guard keys on (and the ledger stores), for log lines about a payment that was refused
   * before it got a ledger row. Public facts only (never a signature); null when the
   * payload does not even carry one.
   */
  reference(decoded: DecodedPayment): string | null;
  /**
   * What the payment is, whatever wraps it (an x402 v1 or v2 payload, HTTP or a tool
   * argument): the part the chain settles, as one string; null when the payload does not
   * carry one. Two presentations with the same reference and a different canonical form
   * are different payments (lib/payments/answers.ts, paymentIdentity).
   */
  canonical(decoded: DecodedPayment): string | null;
  /** Check against the exact requirement, lock the reference (replay guard), verify; settle/release later. */
  authorize(decoded: DecodedPayment, input: PaymentInput): Promise<AuthorizedPayment>;
  /**
   * What the chain did with a payment known only by its ledger row (reconciliation of a
   * payment whose holder died, lib/payments/recovery.ts); null when the chain gives no
   * clear answer or the row does not say enough.
   */
  rowOutcome?(row: LedgerRow): Promise<RowOutcome | null>;
  /**
   * What transaction `tx` cost the service's own key (native base units), read from the
   * chain: null when it was not mined, or the key that sends is not this service's (a
   * remote facilitator). Asked by the recovery pass for a payment found expired unused
   * whose row names a transaction (lib/payments/recovery.ts).
   */
  minedFee?(tx: string): Promise<bigint | null>;
  /**
   * Whether the chain's node knows transaction `tx` (mined or pending); throws when it
   * cannot say. Asked by the recovery pass before it forgets a noted transaction of the
   * service's own that minedFee did not price (lib/payments/recovery.ts).
   */
  transactionSeen?(tx: string): Promise<boolean>;
  /** Reads a payment's outcome on chain, for recovery after an unknown settlement (networks that can tell). */
  outcome?(payload: PaymentPayload, req: PaymentRequirements): Promise<PaymentOutcome>;
  /** The spec 2.3 offer entry for a price (discovery); null for methods outside `accepts[]`. */
  discoveryOffer(priceUsd: string): DiscoveryOffer | null;
  /** Facts for documents written for people. */
  facts(): MethodFacts;
}

/** What reconciliation knows of a payment: its ledger row. */
export interface LedgerRow {
  reference: string;
  payer: string | null;
  payTo: string;
  asset: string;
  amountAtomic: bigint;
  /** The transaction it was (or is being) settled with, when recorded. */
  txHash: string | null;
  /** When it can no longer be used (seconds since the epoch), if known. */
  expiresAt: number | null;
}

/**
 * The chain's word on a payment: transferred (to us, exactly), void (used elsewhere,
 * cancelled, or failed on chain), expired (never transferred and no longer usable), or
 * unused (never transferred, still usable).
 */
export type RowOutcome = { kind: "transferred"; transaction: string | null } | { kind: "void" } | { kind: "expired" } | { kind: "unused" };
