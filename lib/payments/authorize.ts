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
import { lockPayment, markFailed, recordSettlement, releaseLock, type PaymentLock } from "@/lib/payments/ledger";
import { buildRequirements, checkExactEvm, decodePayment, toFacilitatorPayload } from "@/lib/payments/x402/codec";
import { evmAuthorizationOutcome, settleWithFacilitator, verifyWithFacilitator } from "@/lib/payments/x402/facilitator";
import { holdPayment } from "@/lib/payments/x402/hold";
import { evmRefusal, evmSettleRefusal } from "@/lib/payments/x402/evm-reasons";
import { receiptHeaders } from "@/lib/payments/x402/receipt";
import { log } from "@/lib/log";
import { XLM_SCHEME, stellarNetworkId } from "@/lib/payments/xlm/quote";
import { submitXlmPayment, verifyXlmPayment } from "@/lib/payments/xlm/verify";

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
    release: () => releaseLock(lock),
    settle: async (receipt) => {
      let hash: string;
      try {
        hash = (await submitXlmPayment(v)).hash;
      } catch (err) {
        await markFailed(lock, (err as Error).message);
        throw err;
      }
      let receiptId: string | null = null;
      try {
        receiptId = await recordSettlement(lock, hash, v.payer, { ...receipt, credentialKind: "xlm" });
      } catch (err) {
        // Submitted: the payer has paid and gets the result; the evidence goes to the log.
        log.error("payment.record_failed", { paymentId: lock.id, network, transaction: hash, message: (err as Error).message });
      }
      return { txHash: hash, receiptId, headers: { ...receiptHeaders({ transaction: hash, network, payer: v.payer }), ...(receiptId ? { "X-Receipt-Id": receiptId } : {}) } };
    },
  };
}
