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
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { lockPayment, markFailed, markUnknown, recordSettlement, releaseLock, unknownSince } from "@/lib/payments/ledger";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import type { DecodedPayment } from "@/lib/payments/x402/codec";
import { XLM_SCHEME, stellarNetworkId, xlmOffer, xlmUsdRate, type XlmOffer } from "@/lib/payments/xlm/quote";
import { verifyXlmPayment, xlmPaymentHash } from "@/lib/payments/xlm/verify";
import { settleXlmPayment } from "@/lib/payments/xlm/settle";
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
  const since = reference ? await unknownSince(network, reference) : null;
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
  });
  return {
    kind: "xlm",
    paymentId: lock.id,
    payer: v.payer,
    release: () => releaseLock(lock),
    settle: async (receipt) => {
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
      let receiptId: string | null = null;
      try {
        receiptId = await recordSettlement(lock, s.hash, v.payer, { ...receipt, credentialKind: "xlm" });
      } catch (err) {
        log.error("payment.record_failed", { paymentId: lock.id, network, transaction: s.hash, message: (err as Error).message });
      }
      return { txHash: s.hash, receiptId, response: { success: true, transaction: s.hash, network, payer: v.payer } };
    },
  };
}

/** The XLM method as configured now. */
export function xlmMemoMethod(): PaymentMethod {
  const cfg = env();
  const network = stellarNetworkId(cfg.STELLAR_NETWORK_PASSPHRASE);
  const payTo = cfg.STELLAR_PAY_TO_ADDRESS!;
  return {
    id: "xlm-memo",
    usable: () => true,
    requirement: () => null,
    offer: async (ctx): Promise<XlmOffer | null> => xlmOffer(ctx.product, ctx.surface, ctx.priceUsd, await rateFor(ctx)),
    matches: (d) => d.scheme === XLM_SCHEME,
    reference: (d) => xlmPaymentHash(d.payload),
    authorize,
    discoveryOffer: () => null,
    facts: () => ({
      id: "xlm-memo",
      label: `native XLM on ${network}`,
      scheme: XLM_SCHEME,
      network,
      asset: { symbol: "XLM", address: "native", decimals: 7 },
      payTo,
      howTo: `native XLM with a memo: the 402's "xlm" member gives the destination ${payTo}, the exact XLM amount at the current rate, a signed quote and the MEMO_HASH; pay it and repeat the call with X-PAYMENT (or the MCP "payment" argument) = base64 of {"x402Version":1,"scheme":"${XLM_SCHEME}","network":"${network}","payload":{"quote","envelope_xdr"}}.`,
    }),
  };
}
