/** Types shared by the per-call payment methods (EVM x402, Solana x402, native XLM). */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Surface } from "@/lib/access/credentials";

export interface AuthorizedPayment {
  kind: "x402" | "xlm";
  paymentId: string;
  payer: string | null;
  /** Called only after the handler succeeded; returns the receipt headers. */
  settle(): Promise<{ txHash: string; headers: Record<string, string> }>;
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
