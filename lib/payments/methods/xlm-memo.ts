/**
 * Native XLM with a memo (see lib/payments/xlm/quote.ts for the flow). Not an x402
 * `exact` scheme: its offer is a service-signed quote converted at the current XLM/USD
 * rate, carried beside `accepts[]` as the requirement's `xlm` member. Registered when
 * STELLAR_PAY_TO_ADDRESS is set.
 *
 * The rate is upstream I/O, so it is fetched only when a client needs a quote: a plain
 * 402 or the refusal of an XLM payment. The refusal of another method's payment (or of
 * a bundle or key) reuses the rate of a recent quote (RATE_REUSE_MS) and otherwise omits
 * the XLM offer: refusing an EVM payment never calls CoinGecko.
 */
import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import { answerToKeep, keptReceiptId } from "@/lib/payments/answers";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { lockPayment, markFailed, markUnknown, recordSettlement, releaseLock, unknownSince } from "@/lib/payments/ledger";
import type { AuthorizedPayment, PaymentInput, ReceiptFields } from "@/lib/payments/types";
import { releaseLease } from "@/lib/payments/leases";
import type { DecodedPayment } from "@/lib/payments/x402/codec";
import { xlmOffer, xlmUsdRate, type XlmOffer } from "@/lib/payments/xlm/quote";
import { XLM_SCHEME, stellarNetworkId, xlmFacts } from "@/lib/payments/methods/facts";
import { verifyXlmPayment, xlmPaymentHash } from "@/lib/payments/xlm/verify";
import { settleXlmPayment, xlmPaymentOutcome } from "@/lib/payments/xlm/settle";
import type { PaymentMethod, PriceContext } from "@/lib/payments/methods/types";

/** How long the rate of the last quote may be reused when a refusal must not fetch one. */
export const RATE_REUSE_MS = 30_000;

const lastRate = () => processState<{ rate: number | null; at: number }>("xlm.last-rate", () => ({ rate: null, at: 0 }));

async function rateFor(ctx: PriceContext): Promise<number | null> {
  const last = lastRate();
  if (ctx.fetchRate === false) return Date.now() - last.at <= RATE_REUSE_MS ? last.rate : null;
  const rate = await xlmUsdRate();
  if (rate) Object.assign(last, { rate, at: Date.now() });
  return rate;
}

async function authorize(decoded: DecodedPayment, input: PaymentInput): Promise<AuthorizedPayment> {
  const network = stellarNetworkId(env().STELLAR_NETWORK_PASSPHRASE);
  // A payment left with an unknown outcome is judged as of when it was first accepted:
  // its quote may have expired while Horizon was silent, and it may have been applied.
  const reference = xlmPaymentHash(decoded.payload);
  const since = input.asOf ?? (reference ? await unknownSince(network, reference) : null);
  const v = await verifyXlmPayment(decoded.payload, input.product, input.surface, since ?? undefined);
  // Locked by the INNER transaction's hash: re-wrapping the same signed payment in a new
  // fee bump changes the envelope's hash but not this one, so it is refused as a replay.
  const lock = await lockPayment({
    scheme: XLM_SCHEME,
    network,
    reference: v.innerHash,
    payer: v.payer,
    amountAtomic: v.stroops,
    asset: "native",
    payTo: v.destination,
    product: input.product.id,
    surface: input.surface,
    identity: input.identity,
    idempotencyKey: input.idempotencyKey,
    expiresAt: v.maxTime,
  });
  return {
    kind: "xlm",
    paymentId: lock.id,
    payer: v.payer,
    release: () => releaseLock(lock),
    // Whatever the settlement's end, this process stops renewing the payment's lease (see lib/payments/leases.ts).
    settle: (receipt) => settle(receipt).finally(() => releaseLease(lock.id)),
  };

  async function settle(receipt: ReceiptFields): ReturnType<AuthorizedPayment["settle"]> {
    let s: Awaited<ReturnType<typeof settleXlmPayment>>;
    try {
      s = await settleXlmPayment(v);
    } catch (err) {
      // Not a Horizon answer (those are all classified): the submission may or may not
      // have gone out, so the outcome is unknown, never "nothing was charged".
      s = { outcome: "unknown", message: `The outcome of the XLM payment is unknown (${(err as Error).message}).` };
    }
    if (s.outcome === "unknown") {
      // Kept as "unknown": the same payment presented again takes the row over and is
      // submitted again; Horizon then says whether it was applied (see settle.ts).
      await markUnknown(lock, s.message, null);
      log.error("xlm.settle_outcome_unknown", { paymentId: lock.id, tx: v.innerHash, message: s.message });
      throw new ApiError("settlement_pending", `${s.message} The data was not delivered. Send the same request with the same payment again in a few seconds: you will get the result if the payment was applied, or a definite answer if it was not. Payment id ${lock.id}.`, {
        retryAfterSeconds: 5,
        extra: { payment_id: lock.id },
      });
    }
    if (s.outcome !== "paid") {
      // The row stays (as failed): the same transaction is never accepted again.
      await markFailed(lock, s.message);
      throw new ApiError("settlement_failed", s.message);
    }
    // The XLM has moved: a bookkeeping failure from here on must not turn into a
    // refusal (the payer would have paid for nothing), so it is logged, not thrown.
    const response = { success: true as const, transaction: s.hash, network, payer: v.payer };
    let receiptId: string | null = randomUUID();
    try {
      const fields = { product: receipt.product, surface: receipt.surface, amountUsd: receipt.amountUsd, credentialKind: "xlm" as const };
      const r = await recordSettlement(lock, s.hash, v.payer, fields, "settled", { receiptId, json: answerToKeep(lock.id, receipt, receiptId, response, "confirmed", input.identifier ?? null) });
      // Not written when another process recorded it first: its receipt stands.
      if (!r.receiptId) receiptId = keptReceiptId(r.recordedBefore);
    } catch (err) {
      receiptId = null;
      log.error("payment.record_failed", { paymentId: lock.id, network, transaction: s.hash, message: (err as Error).message });
    }
    return { txHash: s.hash, receiptId, response };
  }
}

/** The XLM method as configured now. */
export function xlmMemoMethod(): PaymentMethod {
  return {
    id: "xlm-memo",
    usable: () => true,
    requirement: () => null,
    offer: async (ctx): Promise<XlmOffer | null> => xlmOffer(ctx.product, ctx.surface, ctx.priceUsd, await rateFor(ctx)),
    matches: (d) => d.scheme === XLM_SCHEME,
    reference: (d) => xlmPaymentHash(d.payload),
    // The inner transaction's hash: the signed payment however it is wrapped (fee bumps).
    canonical: (d) => {
      const h = xlmPaymentHash(d.payload);
      return h ? `xlm:${h}` : null;
    },
    authorize,
    // The inner transaction's hash is the reference: Horizon says whether it was applied.
    rowOutcome: async (row) => {
      const out = await xlmPaymentOutcome(row.reference, row.expiresAt);
      if (!out) return null;
      return out.kind === "transferred" ? { kind: "transferred", transaction: out.transaction } : { kind: out.kind };
    },
    discoveryOffer: () => null,
    facts: xlmFacts,
  };
}
