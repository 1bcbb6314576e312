/** Types shared by the per-call payment methods (EVM x402, Solana x402, native XLM). */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";

/** What the receipt of a settled call records besides the payment itself. */
export interface ReceiptFields {
  product: string;
  surface: Surface;
  amountUsd: string;
  /**
   * The call's answer, kept with the payment so that presenting it again returns it
   * (lib/payments/answers.ts): the product's output and its secret fields (sealed).
   */
  answer?: { value: unknown; secrets: readonly string[] };
}

/** The settlement receipt (x402 SettleResponse): what HTTP sends as PAYMENT-RESPONSE and MCP as `_meta["x402/payment-response"]`. */
export interface PaymentResponse {
  success: true;
  transaction: string;
  /** CAIP-2 network. */
  network: string;
  payer: string | null;
}

/**
 * How a per-call payment was settled: `confirmed` (delivered once the transfer was
 * included) or `optimistic` (delivered once broadcast; confirmed after the response).
 */
export type SettlementMode = "confirmed" | "optimistic";

export interface AuthorizedPayment {
  kind: "x402" | "xlm";
  paymentId: string;
  payer: string | null;
  /**
   * The payment was answered before (presented again): the answer to send again, as it
   * was; `settle` and `release` then do nothing and the product does not run.
   */
  answered?: StoredAnswer;
  /**
   * Called only after the handler succeeded: settles, records the payment and writes the
   * receipt. Once the money has moved it never throws (a bookkeeping failure is logged
   * and the receipt id is then null): the caller has paid and gets the result.
   */
  settle(receipt: ReceiptFields): Promise<{ txHash: string; response: PaymentResponse; receiptId: string | null; settlement?: SettlementMode }>;
  /** Called when the handler failed: nothing is settled and the payment may be presented again. */
  release(): Promise<void>;
}

export interface PaymentInput {
  payload: string;
  product: AnyProduct;
  surface: Surface;
  priceUsd: string;
  resource: string;
  /** What the payment is (lib/payments/answers.ts, paymentIdentity), for the ledger. */
  identity?: string | null;
  /** The payment's x402 payment-identifier id, when it carries one (its secret: seals the kept answer's secrets). */
  identifier?: string | null;
  /** SHA-256 of `identifier`, what the ledger keeps of it. */
  idempotencyKey?: string | null;
  /**
   * Judge the payment as of this time (seconds since the epoch) instead of now: a payment
   * presented again after an earlier attempt whose outcome is not known yet is judged as
   * of when it was first accepted (its authorization may have expired meanwhile).
   */
  asOf?: number;
}

/** The answer a paid call sent, as the ledger keeps it (lib/payments/answers.ts). */
export interface StoredAnswer {
  v: 1;
  product: string;
  value: unknown;
  receiptId: string | null;
  payment: PaymentResponse;
  settlement: SettlementMode;
}
