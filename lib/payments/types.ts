/** Types shared by the per-call payment methods (EVM x402, Solana x402, native XLM). */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";

/** What the receipt of a settled call records besides the payment itself. */
export interface ReceiptFields {
  product: string;
  surface: Surface;
  amountUsd: string;
}

export interface AuthorizedPayment {
  kind: "x402" | "xlm";
  paymentId: string;
  payer: string | null;
  /**
   * Called only after the handler succeeded: settles, records the payment and writes the
   * receipt. Once the money has moved it never throws (a bookkeeping failure is logged
   * and the receipt id is then null): the caller has paid and gets the result.
   */
  settle(receipt: ReceiptFields): Promise<{ txHash: string; headers: Record<string, string>; receiptId: string | null }>;
  /** Called when the handler failed: nothing is settled and the payment may be presented again. */
  release(): Promise<void>;
}

export interface PaymentInput {
  payload: string;
  product: AnyProduct;
  surface: Surface;
  priceUsd: string;
  resource: string;
}
