/**
 * Optimistic settlement for micro-prices (EVM, in-process facilitator): a call priced at
 * most X402_OPTIMISTIC_MAX_USD is delivered once its payment is verified (signature,
 * window, amount, and the transfer simulated on chain) and the transfer is broadcast; the
 * transfer is confirmed after the response (lib/http/after-response.ts: Next's `after()`,
 * so serverless platforms keep the function alive for it, or the fast lane's scheduler).
 *
 * The risk is bounded: a payer's unconfirmed value across instances stays under
 * X402_OPTIMISTIC_PAYER_CAP_USD (beyond it calls settle in confirmed mode), and a payer
 * whose transfer fails after delivery (it moved its funds away meanwhile) has the failure
 * on the payment and its receipt, and is refused optimistic calls until a payment of its
 * settles in confirmed mode (a call priced above the cap, or a bundle).
 *
 * A confirmation that does not finish (no receipt in time, our transaction dropped or
 * reverted for a reason of ours, the process gone before `after()` ran) never leaves the
 * payment in between: the row keeps the signed payment and is reconciled right away, and
 * by the sweep of any instance later (lib/payments/x402/reconcile.ts).
 */
import { afterResponse } from "@/lib/http/after-response";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { countFee } from "@/lib/metrics";
import { confirmBroadcast, type OptimisticAsk, type PaymentLock } from "@/lib/payments/ledger";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { confirmBroadcastOnChain, reconcileOptimisticPayment, settlesInProcess } from "@/lib/payments/x402/facilitator";

/** USDC has 6 decimals: the caps in its base units. */
const toAtomic = (usd: number) => BigInt(Math.round(usd * 1_000_000));

/**
 * The share of the payer's optimistic cap to ask for with the payment's lock (see
 * lockPayment), or null when the call settles in confirmed mode whatever the payer's
 * standing: priced above X402_OPTIMISTIC_MAX_USD, no payer, not an EVM payment, or a
 * remote facilitator (optimistic delivery needs the in-process sender).
 */
export function optimisticAsk(payload: PaymentPayload, req: PaymentRequirements, payer: string | null): OptimisticAsk | null {
  const cfg = env();
  if (!payer || BigInt(req.amount) > toAtomic(cfg.X402_OPTIMISTIC_MAX_USD) || evmChainId(req.network) === null || !settlesInProcess()) return null;
  return { capAtomic: toAtomic(cfg.X402_OPTIMISTIC_PAYER_CAP_USD), settlementPayload: JSON.stringify({ payload, requirements: req }) };
}

/**
 * How a verified payment settles, from what its lock reserved: "optimistic" when it took a
 * share of the payer's cap (one step across instances, so concurrent calls never exceed it
 * together), else "confirmed". Throws a 402 (reason `optimistic_refused`, fault `payer`)
 * for a payer whose earlier optimistic payment failed.
 */
export function settlementMode(lock: PaymentLock, payer: string | null): "optimistic" | "confirmed" {
  const r = lock.optimistic;
  if (lock.reclaimed || !r) return "confirmed";
  if (r.reserved) return "optimistic";
  const failed = r.failed;
  if (failed) {
    const cfg = env();
    throw new ApiError(
      "payment_invalid",
      `Optimistic settlement is refused for payer ${payer}: its payment ${failed.paymentId}${failed.txHash ? ` (transaction ${failed.txHash})` : ""} was delivered but its transfer failed on chain. Calls priced up to $${cfg.X402_OPTIMISTIC_MAX_USD} are open to this payer again once one of its payments settles in confirmed mode (a call priced above that, or a bundle). Nothing was charged for this call.`,
      { extra: { reason: "optimistic_refused", fault: "payer", failed_payment_id: failed.paymentId } },
    );
  }
  return "confirmed";
}

/** Confirms a broadcast optimistic payment after the response and records its outcome. */
export function confirmLater(paymentId: string, payload: PaymentPayload, req: PaymentRequirements, tx: string): void {
  afterResponse(async () => {
    try {
      const s = await confirmBroadcastOnChain(payload, req, tx);
      if (s.success) {
        // The receipt's fee (confirmSubmitted), counted as every settlement's is.
        const fee = (s as { fee?: bigint }).fee ?? null;
        await confirmBroadcast(paymentId, { settled: true, txHash: s.transaction, fee });
        if (fee !== null) countFee(req.network, "settled", fee);
        return;
      }
    } catch (err) {
      // No receipt in time, or it reverted for a reason of ours (NotSentError): not the payer's doing.
      log.warn("payment.optimistic_unconfirmed", { paymentId, network: req.network, transaction: tx, message: (err as Error).message });
    }
    // Reverted, or not confirmed: the chain decides (paid by whichever transaction, sent
    // again while the authorization still pays, or the payer's failure).
    await reconcileOptimisticPayment(paymentId).catch((err: unknown) =>
      log.error("payment.optimistic_reconcile_failed", { paymentId, network: req.network, transaction: tx, message: (err as Error).message }),
    );
  });
}
