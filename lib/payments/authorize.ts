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
import { log } from "@/lib/log";
import { lockPayment, markFailed, markSettled, unlockPayment, type PaymentLock } from "@/lib/payments/ledger";
import { base64Json, buildRequirements, checkExactEvm, decodePayment, toFacilitatorPayload, toV1Network } from "@/lib/payments/x402/codec";
import { FacilitatorError, settleWithFacilitator, verifyWithFacilitator } from "@/lib/payments/x402/facilitator";
import { XLM_SCHEME, stellarNetworkId } from "@/lib/payments/xlm/quote";
import { submitXlmPayment, verifyXlmPayment } from "@/lib/payments/xlm/verify";

export type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";

function unavailable(message: string): ApiError {
  return new ApiError("service_unavailable", message, { headers: { "Retry-After": "10" }, extra: { retry_after: 10 } });
}

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

  const lock = await lockPayment({
    scheme: "exact",
    network: req.network,
    reference: `${from}:${auth.authorization.nonce.toLowerCase()}`,
    payer: from,
    amountAtomic: BigInt(req.amount),
    asset: req.asset,
    payTo: req.payTo,
    product: input.product.id,
    surface: input.surface,
  });
  try {
    const v = await verifyWithFacilitator(payload, req);
    if (!v.isValid) {
      throw new ApiError("payment_invalid", `The payment was refused: ${v.invalidMessage ?? v.invalidReason ?? "invalid"}.`);
    }
  } catch (err) {
    await unlockPayment(lock);
    if (err instanceof FacilitatorError) throw unavailable(`Payment verification is unavailable (${err.message}); nothing was charged.`);
    throw err;
  }

  return {
    kind: "x402",
    paymentId: lock.id,
    payer: from,
    release: () => unlockPayment(lock),
    settle: async () => {
      let s;
      try {
        s = await settleWithFacilitator(payload, req);
      } catch (err) {
        // The outcome is unknown (e.g. a timeout after broadcast): keep the row as failed
        // so the authorization is never accepted again, and say so.
        await markFailed(lock, (err as Error).message);
        log.error("payment.settle_error", { paymentId: lock.id, message: (err as Error).message });
        throw new ApiError("settlement_failed", `Settlement did not complete (${(err as Error).message}). The data was not delivered; if your balance moved, quote payment id ${lock.id}.`);
      }
      if (!s.success) {
        await markFailed(lock, s.errorReason ?? "settlement failed");
        throw new ApiError("settlement_failed", `The payment could not be settled: ${s.errorMessage ?? s.errorReason ?? "unknown reason"}. Nothing was charged.`);
      }
      await markSettled(lock, s.transaction, s.payer ?? from);
      const v2 = { success: true, transaction: s.transaction, network: s.network, payer: s.payer ?? from };
      const v1 = { ...v2, network: toV1Network(s.network) };
      return { txHash: s.transaction, headers: { "PAYMENT-RESPONSE": base64Json(v2), "X-PAYMENT-RESPONSE": base64Json(v1) } };
    },
  };
}

async function authorizeXlm(payload: Record<string, unknown>, input: PaymentInput): Promise<AuthorizedPayment> {
  const v = await verifyXlmPayment(payload, input.product, input.surface);
  const network = stellarNetworkId(env().STELLAR_NETWORK_PASSPHRASE);
  const lock: PaymentLock = await lockPayment({
    scheme: XLM_SCHEME,
    network,
    reference: v.txHash,
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
    release: () => unlockPayment(lock),
    settle: async () => {
      try {
        const r = await submitXlmPayment(v);
        await markSettled(lock, r.hash, v.payer);
        const receipt = { success: true, transaction: r.hash, network, payer: v.payer };
        return { txHash: r.hash, headers: { "PAYMENT-RESPONSE": base64Json(receipt), "X-PAYMENT-RESPONSE": base64Json(receipt) } };
      } catch (err) {
        await markFailed(lock, (err as Error).message);
        throw err;
      }
    },
  };
}
