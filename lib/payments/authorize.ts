/**
 * Per-call payments: decode the x402 payload (v1 or v2), check it against the exact
 * requirement of this product and surface, lock its nonce / transaction hash, verify it
 * (facilitator for EVM; offline stellar-sdk checks for XLM), and hand back `settle`
 * (called only after the handler succeeded) and `release` (called when it failed).
 */
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import { authorizeSvmPayment, isSvmNetwork } from "@/lib/payments/svm";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { lockPayment, markFailed, markUnknown, recordSettlement, releaseLock, type PaymentLock } from "@/lib/payments/ledger";
import { buildRequirements, checkExactEvm, decodePayment, toFacilitatorPayload } from "@/lib/payments/x402/codec";
import { evmAuthorizationOutcome, settleWithFacilitator, verifyWithFacilitator } from "@/lib/payments/x402/facilitator";
import { holdPayment } from "@/lib/payments/x402/hold";
import { evmRefusal, evmSettleRefusal } from "@/lib/payments/x402/evm-reasons";
import { receiptHeaders } from "@/lib/payments/x402/receipt";
import { log } from "@/lib/log";
import { XLM_SCHEME, stellarNetworkId } from "@/lib/payments/xlm/quote";
import { verifyXlmPayment } from "@/lib/payments/xlm/verify";
import { settleXlmPayment } from "@/lib/payments/xlm/settle";

export type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";

export async function authorizePayment(input: PaymentInput): Promise<AuthorizedPayment> {
  const decoded = decodePayment(input.payload);
  if (decoded.scheme === XLM_SCHEME) return authorizeXlm(decoded.payload, input);

  const requirements = buildRequirements(input.priceUsd);
  if (requirements.length === 0) throw new ApiError("payment_invalid", "x402 payments are not configured on this instance; use a bundle or a free-tier key.");
  const req = requirements.find((r) => r.network === decoded.network);
  if (!req) throw new ApiError("payment_invalid", `Wrong network ${decoded.network}; accepted: ${requirements.map((r) => r.network).join(", ")}.`);
  if (isSvmNetwork(req.network)) return authorizeSvmPayment(decoded, req, input);
  const auth = checkExactEvm(decoded, req);
  const resource = { url: input.resource, description: input.product.description, mimeType: "application/json" };
  const payload = toFacilitatorPayload(decoded, req, resource);
  const from = auth.authorization.from.toLowerCase();

  return holdPayment({
    lock: {
      scheme: "exact",
      network: req.network,
      reference: `${from}:${auth.authorization.nonce.toLowerCase()}`,
      payer: from,
      amountAtomic: BigInt(req.amount),
      asset: req.asset,
      payTo: req.payTo,
      product: input.product.id,
      surface: input.surface,
    },
    payer: from,
    payload,
    req,
    verify: verifyWithFacilitator,
    settle: settleWithFacilitator,
    outcome: evmAuthorizationOutcome,
    refusal: (v) => evmRefusal(v, req),
    settleRefusal: (s) => evmSettleRefusal(s, req),
  });
}

async function authorizeXlm(payload: Record<string, unknown>, input: PaymentInput): Promise<AuthorizedPayment> {
  const v = await verifyXlmPayment(payload, input.product, input.surface);
  const network = stellarNetworkId(env().STELLAR_NETWORK_PASSPHRASE);
  // Locked by the INNER transaction's hash: re-wrapping the same signed payment in a new
  // fee bump changes the envelope's hash but not this one, so it is refused as a replay.
  const lock: PaymentLock = await lockPayment({
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
          headers: { "Retry-After": "5" },
          extra: { retry_after: 5, payment_id: lock.id },
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
      return { txHash: s.hash, receiptId, headers: { ...receiptHeaders({ transaction: s.hash, network, payer: v.payer }), ...(receiptId ? { "X-Receipt-Id": receiptId } : {}) } };
    },
  };
}
