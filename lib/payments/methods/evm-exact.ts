/**
 * x402 `exact` USDC on an EVM network (EIP-3009 transferWithAuthorization), Base by
 * default. Usable when PAY_TO_ADDRESS and a facilitator (FACILITATOR_URL, or
 * FACILITATOR_PRIVATE_KEY for the in-process one) are configured. Verification,
 * settlement and the on-chain outcome are delegated to lib/payments/x402/facilitator.ts
 * and the shared life cycle of lib/payments/x402/hold.ts.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { usdLabel, usdToAtomic } from "@/lib/payments/price";
import { remoteFacilitatorUrl } from "@/lib/payments/x402/remote";
import { checkExactEvm, resourceInfo, toFacilitatorPayload, type DecodedPayment } from "@/lib/payments/x402/codec";
import { evmAuthorizationOutcome, evmGasBound, evmKnownTransactions, evmMinedFee, evmTokenBalance, evmTransactionSeen, evmTransactionFee, evmTransferSimulates, settlesInProcess, settleWithFacilitator, verifyWithFacilitator } from "@/lib/payments/x402/facilitator";
import { holdPayment } from "@/lib/payments/x402/hold";
import { evmFacts } from "@/lib/payments/methods/facts";
import { evmRefusal, evmSettleRefusal } from "@/lib/payments/x402/evm-reasons";
import type { PaymentInput } from "@/lib/payments/types";
import type { LedgerRow, PaymentMethod, RowOutcome } from "@/lib/payments/methods/types";

/** An authorization must stay valid long enough to be settled after the handler ran. */
const MAX_TIMEOUT_SECONDS = 120;

export { evmConfigured } from "@/lib/payments/methods/facts";

function requirement(priceUsd: string): PaymentRequirements {
  const cfg = env();
  return {
    scheme: "exact",
    network: cfg.X402_NETWORK as PaymentRequirements["network"],
    amount: usdToAtomic(priceUsd).toString(),
    asset: cfg.USDC_ADDRESS,
    payTo: cfg.PAY_TO_ADDRESS!,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: cfg.USDC_EIP712_NAME, version: cfg.USDC_EIP712_VERSION },
  };
}

/** What an EIP-3009 payment is: the authorization and its signature, whatever wraps them (v1 or v2 payload). */
function canonical(decoded: DecodedPayment): string | null {
  const p = decoded.payload as { signature?: unknown; authorization?: Record<string, unknown> };
  const a = p.authorization;
  if (typeof p.signature !== "string" || !a) return null;
  return ["evm", ...["from", "to", "value", "validAfter", "validBefore", "nonce"].map((k) => String(a[k] ?? "").toLowerCase()), p.signature.toLowerCase()].join(":");
}

/** The replay reference of an EIP-3009 authorization: payer and nonce (both public once settled). */
function evmReference(from: string, nonce: string): string {
  return `${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

function reference(decoded: DecodedPayment): string | null {
  const a = (decoded.payload as { authorization?: { from?: unknown; nonce?: unknown } }).authorization;
  return typeof a?.from === "string" && typeof a.nonce === "string" ? evmReference(a.from, a.nonce) : null;
}

async function authorize(decoded: DecodedPayment, input: PaymentInput) {
  const req = requirement(input.priceUsd);
  const auth = checkExactEvm(decoded, req, input.asOf);
  const payload = toFacilitatorPayload(decoded, req, resourceInfo(input.resource, input.product.description), { forwardExtensions: remoteFacilitatorUrl() !== null });
  const from = auth.authorization.from.toLowerCase();
  return holdPayment({
    lock: {
      scheme: "exact",
      network: req.network,
      reference: evmReference(from, auth.authorization.nonce),
      payer: from,
      amountAtomic: BigInt(req.amount),
      asset: req.asset,
      payTo: req.payTo,
      product: input.product.id,
      surface: input.surface,
      identity: input.identity,
      idempotencyKey: input.idempotencyKey,
      expiresAt: Number(auth.authorization.validBefore),
    },
    payer: from,
    identifier: input.identifier,
    expired: () => BigInt(auth.authorization.validBefore) <= BigInt(Math.floor(Date.now() / 1000) + 6),
    balance: () => evmTokenBalance(req.asset, from),
    costBound: evmGasBound(payload, req),
    // The settlement's receipt gives its fee; a failed one's is read when it did not. Only
    // the in-process facilitator's key is ours (a remote facilitator pays its own gas).
    fee: inProcess() ? (tx, s, failed) => s.fee ?? (failed ? evmTransactionFee(tx) : null) : undefined,
    minedFee: inProcess() ? evmTransactionFee : undefined,
    ...evmKnownTransactions(),
    payload,
    req,
    verify: verifyWithFacilitator,
    settle: settleWithFacilitator,
    outcome: evmAuthorizationOutcome,
    stillPays: evmTransferSimulates,
    refusal: (v) => evmRefusal(v, req),
    settleRefusal: (s) => evmSettleRefusal(s, req),
  });
}

/** Whether this instance settles with its own key (false when no facilitator could be built: verification says why). */
function inProcess(): boolean {
  try {
    return settlesInProcess();
  } catch {
    return false;
  }
}

/** How long after an authorization's validBefore an unused one is taken as void for good (block timestamps trail the clock). */
const EXPIRY_MARGIN_SECONDS = 60;

/**
 * The chain's word on a payment known by its row: the authorization's state and, when
 * used, whether that transaction paid us (payer:nonce is the reference; recipient and
 * amount are the row's; the signature is not needed to read it).
 */
async function rowOutcome(row: LedgerRow): Promise<RowOutcome | null> {
  const [from, nonce] = row.reference.split(":");
  if (!from || !nonce) return null;
  const payload = { payload: { authorization: { from, to: row.payTo, value: row.amountAtomic.toString(), nonce } } } as unknown as PaymentPayload;
  const req = { asset: row.asset, payTo: row.payTo, amount: row.amountAtomic.toString(), network: env().X402_NETWORK } as PaymentRequirements;
  const out = await evmAuthorizationOutcome(payload, req).catch(() => null);
  if (!out || out.kind !== "unused") return out;
  return row.expiresAt !== null && row.expiresAt + EXPIRY_MARGIN_SECONDS < Date.now() / 1000 ? { kind: "expired" } : { kind: "unused" };
}

/** The EVM method as configured now. */
export function evmExactMethod(): PaymentMethod {
  const cfg = env();
  return {
    id: "evm-exact",
    usable: () => true,
    requirement,
    matches: (d) => d.network === cfg.X402_NETWORK,
    reference,
    canonical,
    authorize,
    outcome: evmAuthorizationOutcome,
    rowOutcome,
    minedFee: (tx) => (inProcess() ? evmMinedFee(tx) : Promise.resolve(null)),
    transactionSeen: evmTransactionSeen,
    discoveryOffer: (priceUsd) => ({
      intent: "charge",
      method: "evm",
      network: cfg.X402_NETWORK,
      amount: usdToAtomic(priceUsd).toString(),
      currency: cfg.USDC_ADDRESS,
      description: `${usdLabel(priceUsd)} in USDC per call, settled with the x402 exact scheme (EIP-3009 transferWithAuthorization) directly to the provider wallet.`,
    }),
    facts: evmFacts,
  };
}
