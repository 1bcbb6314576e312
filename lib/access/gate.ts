/**
 * The access gate shared by HTTP and MCP. Life cycle: authorize → run → commit.
 *
 * - authorize: check the credential without charging anything. An x402 or XLM payment
 *   is decoded, checked against the exact requirement, locked in the payments table
 *   (replay guard) and verified; a bundle or key is looked up and its balance checked.
 * - run: the product handler.
 * - commit (only when run succeeded): settle the payment, or consume the credit / count
 *   the key call in one conditional UPDATE; then write the receipt. If the charge cannot
 *   be made (a concurrent call took the last credit, settlement refused), the result is
 *   withheld and the caller gets the error: nobody receives data that was not paid for.
 * - release (when run failed): unlock the payment so it can be presented again; no
 *   credit or quota was touched.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import type { Credential, Surface } from "@/lib/access/credentials";
import { buildRequirement, PaymentRequiredError, priceFor } from "@/lib/access/payment-required";
import { consumeKeyCall, lookupKey, nextUtcMidnight, type KeyUsage } from "@/lib/access/keys";
import { bundleState, consumeCredits, lookupBundle } from "@/lib/access/bundles";
import { ApiError, type ErrorCode } from "@/lib/errors";
import { authorizePayment, type AuthorizedPayment } from "@/lib/payments/authorize";
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
  /** Headers for the response whatever the outcome (quota, credits). */
  headers: Record<string, string>;
  /** Payment details for products that need them (bundle purchases). */
  payment: { id: string; payer: string | null } | null;
  /** Charge for good; returns headers for the success response (receipt). */
  commit(): Promise<Record<string, string>>;
  /** Undo the authorization; nothing is charged. */
  release(): Promise<void>;
}

async function requirementError(req: AccessRequest, code: ErrorCode, message: string, headers: Record<string, string> = {}): Promise<PaymentRequiredError> {
  return new PaymentRequiredError(code, message, await buildRequirement(req.product, req.surface, req.resource, message), headers);
}

function quotaHeaders(u: KeyUsage): Record<string, string> {
  const resetIn = Math.max(0, Math.ceil((u.resetAt - Date.now()) / 1000));
  return {
    "X-Quota-Limit": String(u.quota),
    "X-Quota-Remaining": String(u.remaining),
    "X-Quota-Reset": String(resetIn),
    "RateLimit-Limit": String(u.quota),
    "RateLimit-Remaining": String(u.remaining),
    "RateLimit-Reset": String(resetIn),
    "RateLimit-Policy": `${u.quota};w=86400`,
  };
}

async function exhaustedKey(req: AccessRequest, u: KeyUsage): Promise<PaymentRequiredError> {
  const resetIn = Math.max(1, Math.ceil((u.resetAt - Date.now()) / 1000));
  return requirementError(req, "quota_exhausted", `This free-tier key has used its ${u.quota} calls for today (UTC). Pay per call, use a bundle, or retry after the reset.`, {
    ...quotaHeaders(u),
    "Retry-After": String(resetIn),
  });
}

async function keyGrant(req: AccessRequest, key: string): Promise<Grant> {
  const { product } = req;
  if (product.kind === "bundle") throw await requirementError(req, "payment_required", "Bundles are bought with a payment, not with a free-tier key.");
  if (!product.freeTier) {
    throw await requirementError(req, "free_tier_not_covered", `The free tier covers standard endpoints; ${product.path} is a premium report. Pay per call or use a bundle.`);
  }
  const k = await lookupKey(key);
  if (!k) throw await requirementError(req, "invalid_credential", `Unknown API key. Mint one with GET ${freeEndpoint("/v1/free-key").path}.`);
  const usage = (used: number): KeyUsage => ({ id: k.id, used, quota: k.quota, remaining: Math.max(0, k.quota - used), resetAt: nextUtcMidnight() });
  if (k.exhausted) throw await exhaustedKey(req, usage(k.quota));
  return {
    kind: "api_key",
    headers: quotaHeaders(usage(k.used)),
    payment: null,
    commit: async () => {
      const done = await consumeKeyCall(key, k.id, { product: product.id, surface: req.surface });
      if (!done) throw await exhaustedKey(req, usage(k.quota));
      return { ...quotaHeaders(done.usage), "X-Receipt-Id": done.receiptId };
    },
    release: async () => undefined,
  };
}

async function bundleGrant(req: AccessRequest, token: string): Promise<Grant> {
  const { product } = req;
  if (product.kind === "bundle") throw await requirementError(req, "payment_required", "Bundles are bought with a payment, not with another bundle.");
  const state = await lookupBundle(token);
  if (!state) throw await requirementError(req, "invalid_credential", "Unknown bundle token.");
  const cost = product.credits;
  const exhausted = async (remaining: number) =>
    requirementError(req, "bundle_exhausted", `This bundle has ${remaining} credit${remaining === 1 ? "" : "s"} left; ${product.path} costs ${cost}. Buy a new bundle at ${productById("bundle").path} or pay per call.`, {
      "X-Bundle-Credits-Remaining": String(remaining),
    });
  if (state.remaining < cost) throw await exhausted(state.remaining);
  return {
    kind: "bundle",
    headers: { "X-Bundle-Credits-Remaining": String(state.remaining) },
    payment: null,
    commit: async () => {
      const done = await consumeCredits(token, state.id, cost, { product: product.id, surface: req.surface });
      if (!done) throw await exhausted((await bundleState(token))?.remaining ?? 0);
      return { "X-Bundle-Credits-Remaining": String(done.remaining), "X-Bundle-Credits-Charged": String(cost), "X-Receipt-Id": done.receiptId };
    },
    release: async () => undefined,
  };
}

async function paymentGrant(req: AccessRequest, payload: string): Promise<Grant> {
  const price = priceFor(req.product, req.surface);
  let paid: AuthorizedPayment;
  try {
    paid = await authorizePayment({ payload, product: req.product, surface: req.surface, priceUsd: price, resource: req.resource });
  } catch (err) {
    if (err instanceof ApiError && err.status === 402 && !(err instanceof PaymentRequiredError)) {
      throw await requirementError(req, err.code, err.message);
    }
    throw err;
  }
  return {
    kind: paid.kind === "xlm" ? "xlm" : "x402",
    headers: {},
    payment: { id: paid.paymentId, payer: paid.payer },
    commit: async () => {
      try {
        return (await paid.settle({ product: req.product.id, surface: req.surface, amountUsd: price })).headers;
      } catch (err) {
        if (err instanceof ApiError && err.status === 402 && !(err instanceof PaymentRequiredError)) {
          throw await requirementError(req, err.code, err.message);
        }
        throw err;
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
      throw await requirementError(req, "payment_required", `Payment required: ${req.product.path} costs ${priceFor(req.product, req.surface)} USD per call.`);
  }
}

export interface GatedOptions<T> {
  /** Undo side effects of `run` when the charge fails after it (e.g. revoke a minted bundle). */
  onCommitFailed?: (value: T) => Promise<void>;
}

/** authorize → run → commit, or release when `run` throws. */
export async function runGated<T>(req: AccessRequest, run: (grant: Grant) => Promise<T>, opts: GatedOptions<T> = {}): Promise<{ value: T; headers: Record<string, string> }> {
  const grant = await authorize(req);
  let value: T;
  try {
    value = await run(grant);
  } catch (err) {
    await grant.release().catch((e: unknown) => log.error("gate.release_failed", { product: req.product.id, message: (e as Error).message }));
    throw err;
  }
  let receipt: Record<string, string>;
  try {
    receipt = await grant.commit();
  } catch (err) {
    await opts.onCommitFailed?.(value).catch((e: unknown) => log.error("gate.compensation_failed", { product: req.product.id, message: (e as Error).message }));
    throw err;
  }
  return { value, headers: { ...grant.headers, ...receipt } };
}
