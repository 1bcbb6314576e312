/**
 * The access gate shared by every surface. Life cycle: authorize → run → commit.
 *
 * - authorize: check the credential without charging anything. A per-call payment is
 *   decoded, handed to the registered method that handles it (lib/payments/methods),
 *   checked against the exact requirement, locked (replay guard) and verified; a bundle
 *   or key is looked up and its balance checked.
 * - run: the product handler.
 * - commit (only when run succeeded): settle the payment, or consume the credit / count
 *   the key call in one conditional UPDATE; then write the receipt. If the charge cannot
 *   be made (a concurrent call took the last credit, settlement refused), the result is
 *   withheld and the caller gets the refusal: nobody receives data that was not paid for.
 * - release (when run failed, or for a HEAD): nothing is charged and a payment may be
 *   presented again.
 *
 * Outcomes are typed (lib/access/outcome.ts): `commit` resolves to a Granted, refusals
 * are thrown as PaymentRequiredError carrying a Refused. The whole sequence, with
 * validation, timing and the refusal log line, is lib/access/call.ts (`callProduct`).
 */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Credential, Surface } from "@/lib/access/credentials";
import type { CreditsState, Granted, QuotaState, Refused } from "@/lib/access/outcome";
import { buildRequirement, PaymentRequiredError, priceFor } from "@/lib/access/payment-required";
import { consumeKeyCall, lookupKey, nextUtcMidnight } from "@/lib/access/keys";
import { bundleState, consumeCredits, lookupBundle } from "@/lib/access/bundles";
import { ApiError, ERROR_CODES, logUnexpected, ServiceUnavailableError, type ErrorCode } from "@/lib/errors";
import { authorizePayment, type AuthorizedPayment } from "@/lib/payments/authorize";
import type { MethodId } from "@/lib/payments/methods/types";
import { log } from "@/lib/log";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";

export interface AccessRequest {
  product: AnyProduct;
  surface: Surface;
  credential: Credential;
  /** Absolute URL of the resource (payment requirements name it). */
  resource: string;
  clientIp: string;
}

export interface Grant {
  kind: Credential["kind"] | "xlm";
  /** The payment method of a per-call payment. */
  method: MethodId | null;
  /** Payment details for products that need them (bundle purchases). */
  payment: { id: string; payer: string | null } | null;
  /** The payment's own reference (see Refused.reference); null for other credentials. */
  reference: string | null;
  /** What the credential looks like now, charging nothing (a HEAD's answer). */
  preview(): Granted;
  /**
   * Charge for good (the product's output `value` is kept with a per-call payment, to be
   * sent again when the payment is presented again); throws PaymentRequiredError when the
   * charge is refused.
   */
  commit(value: unknown): Promise<Granted>;
  /**
   * A payment presented again that was answered before: its output and outcome, sent
   * again as they were; the product does not run and nothing is charged again.
   */
  answered?: { value: unknown; outcome: Granted };
  /** Undo the authorization; nothing is charged. */
  release(): Promise<void>;
}

type RefusalExtra = Partial<Pick<Refused, "method" | "paymentId" | "reference" | "quota" | "credits" | "retryAfterSeconds" | "reason">>;

async function refuse(req: AccessRequest, code: ErrorCode, message: string, extra: RefusalExtra = {}): Promise<PaymentRequiredError> {
  // Only a plain 402 and the refusal of an XLM payment need a fresh XLM quote; other
  // refusals must not do upstream I/O for it (see lib/payments/methods/xlm-memo.ts).
  const fetchRate = req.credential.kind === "none" || extra.method === "xlm-memo";
  return new PaymentRequiredError({
    granted: false,
    code,
    message,
    status: ERROR_CODES[code].status,
    requirement: await buildRequirement(req.product, req.surface, req.resource, message, { fetchRate }),
    credential: req.credential.kind,
    method: extra.method ?? null,
    paymentId: extra.paymentId ?? null,
    reference: extra.reference ?? null,
    quota: extra.quota ?? null,
    credits: extra.credits ?? null,
    retryAfterSeconds: extra.retryAfterSeconds ?? null,
    ...(extra.reason ? { reason: extra.reason } : {}),
  });
}

const granted = (g: Omit<Granted, "granted">): Granted => ({ granted: true, ...g });

async function exhaustedKey(req: AccessRequest, quota: QuotaState): Promise<PaymentRequiredError> {
  return refuse(req, "quota_exhausted", `This free-tier key has used its ${quota.limit} calls for today (UTC). Pay per call, use a bundle, or retry after the reset.`, {
    quota,
    retryAfterSeconds: Math.max(1, Math.ceil((quota.resetAt - Date.now()) / 1000)),
  });
}

async function keyGrant(req: AccessRequest, key: string): Promise<Grant> {
  const { product } = req;
  if (product.kind === "bundle") throw await refuse(req, "payment_required", "Bundles are bought with a payment, not with a free-tier key.");
  if (!product.freeTier) {
    throw await refuse(req, "free_tier_not_covered", `The free tier covers standard endpoints; ${product.path} is a premium report. Pay per call or use a bundle.`);
  }
  const k = await lookupKey(key);
  if (!k) throw await refuse(req, "invalid_credential", `Unknown API key. Mint one with GET ${freeEndpoint("/v1/free-key").path}.`);
  const quota = (used: number): QuotaState => ({ limit: k.quota, remaining: Math.max(0, k.quota - used), resetAt: nextUtcMidnight() });
  if (k.exhausted) throw await exhaustedKey(req, quota(k.quota));
  const base = { credential: "api_key" as const, method: null, payment: null, credits: null };
  return {
    kind: "api_key",
    method: null,
    payment: null,
    reference: null,
    preview: () => granted({ ...base, charged: false, receiptId: null, quota: quota(k.used) }),
    commit: async () => {
      const done = await consumeKeyCall(key, k.id, { product: product.id, surface: req.surface });
      if (!done) throw await exhaustedKey(req, quota(k.quota));
      const u = done.usage;
      return granted({ ...base, charged: true, receiptId: done.receiptId, quota: { limit: u.quota, remaining: u.remaining, resetAt: u.resetAt } });
    },
    release: async () => undefined,
  };
}

async function bundleGrant(req: AccessRequest, token: string): Promise<Grant> {
  const { product } = req;
  if (product.kind === "bundle") throw await refuse(req, "payment_required", "Bundles are bought with a payment, not with another bundle.");
  const state = await lookupBundle(token);
  if (!state) throw await refuse(req, "invalid_credential", "Unknown bundle token.");
  const cost = product.credits;
  const exhausted = async (remaining: number) =>
    refuse(req, "bundle_exhausted", `This bundle has ${remaining} credit${remaining === 1 ? "" : "s"} left; ${product.path} costs ${cost}. Buy a new bundle at ${productById("bundle").path} or pay per call.`, {
      credits: { remaining, charged: null } satisfies CreditsState,
    });
  if (state.remaining < cost) throw await exhausted(state.remaining);
  const base = { credential: "bundle" as const, method: null, payment: null, quota: null };
  return {
    kind: "bundle",
    method: null,
    payment: null,
    reference: null,
    preview: () => granted({ ...base, charged: false, receiptId: null, credits: { remaining: state.remaining, charged: null } }),
    commit: async () => {
      const done = await consumeCredits(token, state.id, cost, { product: product.id, surface: req.surface });
      if (!done) throw await exhausted((await bundleState(token))?.remaining ?? 0);
      return granted({ ...base, charged: true, receiptId: done.receiptId, credits: { remaining: done.remaining, charged: cost } });
    },
    release: async () => undefined,
  };
}

/** A payment refusal (402 ApiError from a method) as a refusal with the requirement; anything else unchanged. */
async function asRefusal(req: AccessRequest, err: unknown, extra: RefusalExtra): Promise<unknown> {
  if (err instanceof ApiError && err.status === 402 && !(err instanceof PaymentRequiredError)) {
    const reason = typeof err.extra.reason === "string" ? err.extra.reason : undefined;
    return refuse(req, err.code, err.message, { retryAfterSeconds: err.retryAfterSeconds ?? undefined, reason, ...extra });
  }
  return err;
}

async function paymentGrant(req: AccessRequest, payload: string): Promise<Grant> {
  const price = priceFor(req.product, req.surface);
  let method: MethodId | null = null;
  let reference: string | null = null;
  let paid: AuthorizedPayment;
  try {
    paid = await authorizePayment({ payload, product: req.product, surface: req.surface, priceUsd: price, resource: req.resource }, (id, ref) => {
      method = id;
      reference = ref;
    });
  } catch (err) {
    if (!(err instanceof ApiError)) {
      // This request sends nothing before commit, but the payment may be one an earlier
      // request settled (the lock that would have said so failed: the database gone
      // mid-statement, say): so no claim about the payment as a whole, only about this
      // request, and how to learn the rest.
      logUnexpected(err, { product: req.product.id, surface: req.surface, where: "payment.authorize" });
      throw new ServiceUnavailableError(
        "The service could not take this payment right now (an internal failure); this request settled nothing. Send the same request with the same payment again in 10 s: you will get its answer, charged at most once.",
        { retryAfterSeconds: 10, cause: err },
      );
    }
    throw await asRefusal(req, err, { method, reference });
  }
  const a = paid.answered;
  return {
    kind: paid.kind === "xlm" ? "xlm" : "x402",
    method,
    payment: { id: paid.paymentId, payer: paid.payer },
    reference,
    ...(a ? { answered: { value: a.value, outcome: granted({ credential: "x402", method, charged: true, receiptId: a.receiptId, payment: a.payment, settlement: a.settlement, quota: null, credits: null }) } } : {}),
    preview: () => granted({ credential: "x402", method, charged: false, receiptId: null, payment: null, quota: null, credits: null }),
    commit: async (value: unknown) => {
      try {
        const s = await paid.settle({ product: req.product.id, surface: req.surface, amountUsd: price, answer: { value, secrets: req.product.secrets ?? [] } });
        return granted({ credential: "x402", method, charged: true, receiptId: s.receiptId, payment: s.response, settlement: s.settlement ?? "confirmed", quota: null, credits: null });
      } catch (err) {
        // Once settlement started the transfer may have gone out: an error nobody
        // anticipated is "pending", never "nothing was charged". The payment's lease is
        // no longer renewed, so presenting it again takes it over and the chain decides.
        if (!(err instanceof ApiError)) {
          logUnexpected(err, { product: req.product.id, surface: req.surface, paymentId: paid.paymentId });
          throw new ApiError(
            "settlement_pending",
            `The settlement of this payment failed unexpectedly and its outcome is not known yet; the data was not delivered. Send the same request with the same payment again in a few seconds: you will get the result if it settled, or a definite answer. Payment id ${paid.paymentId}.`,
            { retryAfterSeconds: 5, extra: { payment_id: paid.paymentId, reason: "outcome_unknown", fault: "unknown" } },
          );
        }
        throw await asRefusal(req, err, { method, paymentId: paid.paymentId, reference });
      }
    },
    release: () => paid.release(),
  };
}

/** Decides whether the call may run; throws a PaymentRequiredError (402/429) when not. */
export async function authorize(req: AccessRequest): Promise<Grant> {
  const c = req.credential;
  switch (c.kind) {
    case "api_key":
      return keyGrant(req, c.key);
    case "bundle":
      return bundleGrant(req, c.token);
    case "x402":
      return paymentGrant(req, c.payload);
    case "none":
      throw await refuse(req, "payment_required", `Payment required: ${req.product.path} costs ${priceFor(req.product, req.surface)} USD per call.`);
  }
}

/** Releases a grant whose call will not be charged; a failure is logged, never thrown. */
export async function releaseQuietly(req: AccessRequest, grant: Grant): Promise<void> {
  await grant.release().catch((e: unknown) => log.error("gate.release_failed", { product: req.product.id, message: (e as Error).message }));
}
