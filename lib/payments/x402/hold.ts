/**
 * The life cycle every x402 payment shares, whatever the network: lock the payment's
 * reference (the replay guard), verify with the facilitator (unlocking when refused or
 * when the facilitator cannot be asked), then hand back `settle` for after the handler
 * succeeded and `release` for when it failed.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { AuthorizedPayment } from "@/lib/payments/types";
import { lockPayment, markFailed, markSettled, unlockPayment, type LockInput } from "@/lib/payments/ledger";
import { FacilitatorError, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { receiptHeaders } from "@/lib/payments/x402/receipt";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";

export interface HoldInput {
  lock: LockInput;
  payer: string | null;
  payload: PaymentPayload;
  req: PaymentRequirements;
  verify(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedVerify>;
  settle(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle>;
  /** Plain-language reason for a refusal (network-specific codes). */
  refusal?(v: CheckedVerify): string;
}

export function unavailable(message: string): ApiError {
  return new ApiError("service_unavailable", message, { headers: { "Retry-After": "10" }, extra: { retry_after: 10 } });
}

export async function holdPayment(o: HoldInput): Promise<AuthorizedPayment> {
  const lock = await lockPayment(o.lock);
  try {
    const v = await o.verify(o.payload, o.req);
    if (!v.isValid) {
      throw new ApiError("payment_invalid", o.refusal?.(v) ?? `The payment was refused: ${v.invalidMessage ?? v.invalidReason ?? "invalid"}.`);
    }
  } catch (err) {
    await unlockPayment(lock);
    if (err instanceof FacilitatorError) throw unavailable(`Payment verification is unavailable (${err.message}); nothing was charged.`);
    throw err;
  }
  return {
    kind: "x402",
    paymentId: lock.id,
    payer: o.payer,
    release: () => unlockPayment(lock),
    settle: async () => {
      let s: CheckedSettle;
      try {
        s = await o.settle(o.payload, o.req);
      } catch (err) {
        // Unknown outcome (e.g. a timeout after broadcast): keep the row as failed so the
        // authorization is never accepted again, and say so.
        await markFailed(lock, (err as Error).message);
        log.error("payment.settle_error", { paymentId: lock.id, network: o.req.network, message: (err as Error).message });
        throw new ApiError("settlement_failed", `Settlement did not complete (${(err as Error).message}). The data was not delivered; if your balance moved, quote payment id ${lock.id}.`);
      }
      if (!s.success) {
        await markFailed(lock, s.errorReason ?? "settlement failed");
        const sent = s.transaction ? ` Transaction ${s.transaction} was sent; if your balance moved, quote payment id ${lock.id}.` : " Nothing was charged.";
        throw new ApiError("settlement_failed", `The payment could not be settled: ${s.errorMessage ?? s.errorReason ?? "unknown reason"}.${sent}`);
      }
      const who = s.payer || o.payer;
      await markSettled(lock, s.transaction, who);
      return { txHash: s.transaction, headers: receiptHeaders({ transaction: s.transaction, network: s.network, payer: who }) };
    },
  };
}
