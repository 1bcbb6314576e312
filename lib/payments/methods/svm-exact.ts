/**
 * x402 `exact` payments in USDC on Solana (@x402/svm). Registered when
 * SOLANA_PAY_TO_ADDRESS is set and a facilitator can settle them (FACILITATOR_URL, or
 * SOLANA_FEE_PAYER_SECRET + SOLANA_RPC_URL for the in-process one); usable once the fee
 * payer is known (at once in-process, after the remote facilitator's /supported answer).
 *
 * The client signs a transaction (compute budget, transferChecked of exactly the price
 * to the pay-to's USDC token account, a memo nonce) whose fee payer is the facilitator's
 * key; the facilitator co-signs and sends it only at settlement, after the handler
 * succeeded. Life cycle as for EVM: check against the requirement → lock the reference
 * (replay guard) → verify → settle or release (lib/payments/x402/hold.ts).
 */
import { z } from "zod";
import type { PaymentRequirements } from "@x402/core/types";
import type { AuthorizedPayment, PaymentInput } from "@/lib/payments/types";
import { remoteFacilitatorUrl } from "@/lib/payments/x402/remote";
import { resourceInfo, toFacilitatorPayload, type DecodedPayment } from "@/lib/payments/x402/codec";
import { usdLabel, usdToAtomic } from "@/lib/payments/price";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { svmMode, svmNetwork } from "@/lib/payments/svm/config";
import { PREFLIGHT_REFUSED, settleSvm, svmFeePayer, svmFeePayerSignature, svmSignatureOutcome, svmTokenAccountBalance, svmTransactionState, verifySvm, type SvmVerify } from "@/lib/payments/svm/facilitator";
import { svmFeeRefusal, svmTransactionFee } from "@/lib/payments/svm/fees";
import { holdPayment } from "@/lib/payments/x402/hold";
import { readSvmPayment, type SvmPaymentTx } from "@/lib/payments/svm/transaction";
import type { PaymentMethod } from "@/lib/payments/methods/types";
import { svmFacts } from "@/lib/payments/methods/facts";

/**
 * A Solana blockhash stays valid for about 150 slots (60-90 s); the payment has to be
 * settled within that, so the requirement does not promise more.
 */
const MAX_TIMEOUT_SECONDS = 60;

/** Longer than any blockhash stays valid (about 150 slots of 0.4-0.6 s): a transaction not landed by then never will. */
const BLOCKHASH_REACH_SECONDS = 120;

/** Whether this configuration takes Solana payments (the fee payer may still be unknown). */
export function svmConfigured(): boolean {
  return svmMode() !== null;
}

/** The Solana requirement for `priceUsd`, or null while the fee payer is unknown. */
export function svmRequirement(priceUsd: string): PaymentRequirements | null {
  const feePayer = svmFeePayer();
  if (!feePayer) return null;
  const cfg = env();
  return {
    scheme: "exact",
    network: svmNetwork() as PaymentRequirements["network"],
    amount: usdToAtomic(priceUsd).toString(),
    asset: cfg.SOLANA_USDC_MINT,
    payTo: cfg.SOLANA_PAY_TO_ADDRESS!,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    // The facilitator's key pays the network fee and signs last (what @x402/svm's
    // server scheme copies from the facilitator's /supported `extra`).
    extra: { feePayer },
  };
}

function invalid(message: string): never {
  throw new ApiError("payment_invalid", message);
}

const ExactSvmPayload = z.object({ transaction: z.string().min(1) });

/** Checks what the client says it accepted (v2) against our requirement, field by field. */
function checkAccepted(d: DecodedPayment, req: PaymentRequirements): void {
  if (d.scheme !== "exact") invalid(`Unsupported scheme "${d.scheme}"; this resource accepts "exact".`);
  if (d.network !== req.network) invalid(`Wrong network ${d.network}; this resource is paid on ${req.network}.`);
  const a = d.accepted;
  if (!a) return;
  // Solana addresses are case-sensitive base58: compared exactly.
  if (a.asset !== req.asset) invalid(`Wrong asset ${a.asset}; pay in USDC (mint ${req.asset}).`);
  if (a.payTo !== req.payTo) invalid(`Wrong payTo ${a.payTo}; pay to ${req.payTo}.`);
  if (a.amount !== req.amount) invalid(`The payment was made for ${a.amount} base units; this call costs exactly ${req.amount}.`);
  const feePayer = a.extra?.feePayer;
  if (feePayer !== undefined && feePayer !== req.extra?.feePayer) invalid(`The payment names fee payer ${String(feePayer)}; this instance's fee payer is ${String(req.extra?.feePayer)}. Use the current requirement.`);
}

/** A plain-language reason for the facilitator's verdict (its codes are @x402/svm's). */
function refusal(v: SvmVerify, req: PaymentRequirements, p: SvmPaymentTx): string {
  const reason = v.invalidReason ?? "";
  const t = p.transfer;
  if (reason.endsWith("amount_mismatch")) {
    return t ? `The transaction transfers ${t.amount} base units; this call costs exactly ${req.amount}.` : `The transaction does not transfer exactly ${req.amount} base units.`;
  }
  if (reason.endsWith("recipient_mismatch")) return `The transaction pays token account ${t?.destination ?? "(unknown)"}, which is not the USDC account of ${req.payTo}; pay to ${req.payTo}.`;
  if (reason.endsWith("mint_mismatch")) return `The transaction transfers mint ${t?.mint ?? "(unknown)"}; pay in USDC (mint ${req.asset}).`;
  if (reason.endsWith("fee_payer_mismatch") || reason.endsWith("fee_payer_not_managed_by_facilitator") || reason.endsWith("missing_fee_payer")) {
    return `The transaction's fee payer must be ${String(req.extra?.feePayer)} (extra.feePayer of the requirement).`;
  }
  if (reason.endsWith("fee_payer_transferring_funds")) return "The fee payer may not be the account that transfers the funds.";
  if (reason.endsWith("too_high") || reason.endsWith("excessive_signers")) return svmFeeRefusal(p.budget) ?? `The transaction asks the fee payer to pay more than this service allows (${reason}).`;
  if (reason.endsWith("signature_invalid")) return "The transaction's signatures are missing or invalid.";
  if (reason.endsWith("simulation_failed")) return `The transaction fails on chain (${v.invalidMessage ?? "simulation failed"}); check the payer's USDC balance and token account.`;
  if (/instruction|could_not_be_decoded|no_transfer|memo/.test(reason)) {
    return `The transaction is not an x402 exact USDC payment (compute limit, compute price, transferChecked, optional memo): ${reason}.`;
  }
  return `The payment was refused: ${v.invalidMessage ?? (reason || "invalid")}.`;
}

async function authorize(decoded: DecodedPayment, input: PaymentInput): Promise<AuthorizedPayment> {
  const req = svmRequirement(input.priceUsd);
  if (!req) invalid("Solana payments are not available right now (the facilitator's fee payer is not known yet); retry shortly or pay another way.");
  checkAccepted(decoded, req);
  const shape = ExactSvmPayload.safeParse(decoded.payload);
  if (!shape.success) invalid("The exact-scheme payload for Solana must carry the partially signed transaction (base64) as `transaction`.");
  const tx = readSvmPayment(shape.data.transaction);
  if (!tx) invalid("The `transaction` is not a base64-encoded Solana transaction.");
  // Before anything is locked, simulated or sent: the fee payer's fee is bounded.
  const tooDear = svmFeeRefusal(tx.budget);
  if (tooDear) throw new ApiError("payment_invalid", tooDear, { extra: { reason: "compute_budget_too_high" } });

  const payload = toFacilitatorPayload(decoded, req, resourceInfo(input.resource, input.product.description), { forwardExtensions: remoteFacilitatorUrl() !== null });
  const payer = tx.payer || null;

  return holdPayment({
    lock: {
      scheme: "exact",
      network: req.network,
      reference: tx.reference,
      payer,
      amountAtomic: BigInt(req.amount),
      asset: req.asset,
      payTo: req.payTo,
      product: input.product.id,
      surface: input.surface,
      identity: input.identity,
      idempotencyKey: input.idempotencyKey,
      // A blockhash reaches about 150 slots (60-90 s): past this the transaction can never land.
      expiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_REACH_SECONDS,
    },
    payer,
    identifier: input.identifier,
    payload,
    req,
    verify: verifySvm,
    settle: settleSvm,
    outcome: async (_p, _r, knownTx) => {
      const { state, signature } = await svmTransactionState(tx.tx, knownTx);
      return state === "landed" ? { kind: "transferred", transaction: signature } : state === "failed" ? { kind: "void" } : { kind: "unused" };
    },
    // @x402/svm answers a send that failed without an answer (timeout, connection) as
    // transaction_failed with no signature: the transaction may have reached the cluster.
    // One the node refused in its preflight never did (PREFLIGHT_REFUSED).
    mayLand: (s) => !s.transaction && (s.errorReason ?? "").endsWith("transaction_failed"),
    settleRefusal: (s) => (s.errorReason === PREFLIGHT_REFUSED ? `the transaction would fail on chain (${s.errorMessage ?? "preflight simulation failed"}); check the payer's USDC balance` : (s.errorReason ?? "settlement failed")),
    // The fee payer's fee follows from the transaction itself (signatures, compute budget);
    // ours to count only when our key is the fee payer (not a remote facilitator's).
    fee: svmMode() === "local" ? () => svmTransactionFee(tx.budget) : undefined,
    // Read only when the payer has other payments in flight (hold.ts, fundsCover): the
    // token account the transfer debits.
    balance: tx.transfer?.source ? () => svmTokenAccountBalance(tx.transfer!.source) : undefined,
    // In process, the transaction's id is known before it is sent: recorded first.
    sentId: () => svmFeePayerSignature(tx.tx),
    refusal: (v) => refusal(v, req, tx),
  });
}

/** The Solana method as configured now. */
export function svmExactMethod(): PaymentMethod {
  const cfg = env();
  const network = svmNetwork();
  return {
    id: "svm-exact",
    usable: () => svmFeePayer() !== null,
    requirement: svmRequirement,
    matches: (d) => d.network === network,
    reference: (d) => {
      const shape = ExactSvmPayload.safeParse(d.payload);
      return shape.success ? (readSvmPayment(shape.data.transaction)?.reference ?? null) : null;
    },
    // The payer-signed transaction is what the chain settles.
    canonical: (d) => {
      const shape = ExactSvmPayload.safeParse(d.payload);
      return shape.success ? `svm:${shape.data.transaction}` : null;
    },
    authorize,
    // Known by the transaction's id once recorded (in-process, before it is sent).
    rowOutcome: async (row) => {
      if (!row.txHash) return null;
      const state = await svmSignatureOutcome(row.txHash, row.expiresAt);
      if (state === "landed") return { kind: "transferred", transaction: row.txHash };
      if (state === "failed") return { kind: "void" };
      if (state === "expired") return { kind: "expired" };
      return state === "absent" ? { kind: "unused" } : null;
    },
    discoveryOffer: (priceUsd) => ({
      intent: "charge",
      method: "svm",
      network,
      amount: usdToAtomic(priceUsd).toString(),
      currency: cfg.SOLANA_USDC_MINT,
      description: `${usdLabel(priceUsd)} in USDC on Solana per call, settled with the x402 exact scheme (a transferChecked the service co-signs as fee payer and sends after the call succeeded).`,
    }),
    facts: svmFacts,
  };
}
