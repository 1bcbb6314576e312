/**
 * The one call path of a paid product, for every surface (HTTP, MCP, A2A):
 *
 *   validate → gate (authorize) → run → commit, or release when run failed
 *
 * `callProduct` never throws for a refusal or a failure: it resolves to a typed result
 * that the surface renders (HTTP: lib/http/serve-product.ts, MCP: lib/mcp/tools.ts).
 * It also measures where the time went (Server-Timing) and writes the one log line of a
 * refused payment or a failed settlement.
 *
 * A HEAD (`head: true`) never charges: parameters are validated, a bundle token or key is
 * looked up read-only and its balance reported, and a payment is neither verified nor
 * settled (the answer is the plain 402 a GET without credential gets). The handler does
 * not run.
 *
 * A new surface calls it like this:
 *
 *   const result = await callProduct({ product, surface: "http", credential, params, paramsAt: "query", resource, clientIp });
 *   if (result.kind === "granted") render(result.value, result.outcome);
 *   else if (result.kind === "refused") renderRefusal(result.refusal);
 *   else renderError(result.error);
 */
import { performance } from "node:perf_hooks";
import type { Refused } from "@/lib/access/outcome";
import type { CallInput, CallResult, CallTiming } from "@/lib/access/call-result";
import { recordCall } from "@/lib/access/call-metrics";
import { inPhase, traceCall } from "@/lib/telemetry/spans";
import { authorize, releaseQuietly, type AccessRequest, type Grant } from "@/lib/access/gate";
import { PaymentRequiredError, priceFor } from "@/lib/access/payment-required";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { toApiError } from "@/lib/errors";
import { log } from "@/lib/log";

export type { CallInput, CallResult, CallTiming } from "@/lib/access/call-result";

/**
 * Runs one call of `input.product` through validation, the gate and the handler, under
 * a trace span when tracing is on (lib/telemetry), and counts it in the metrics once
 * (lib/access/call-metrics.ts; a HEAD check is not a call).
 */
export async function callProduct(input: CallInput): Promise<CallResult> {
  const started = performance.now();
  const result = await traceCall(input, () => runCall(input));
  if (!input.head) recordCall(input, result, (performance.now() - started) / 1000);
  return result;
}

async function runCall(input: CallInput): Promise<CallResult> {
  const timing: CallTiming = {};
  const context = { product: input.product.id, surface: input.surface };
  let params: unknown;
  try {
    params = validateOrThrow(paramsSchema(input.product.params), input.params, input.paramsAt);
  } catch (err) {
    return { kind: "failed", error: toApiError(err, context), timing };
  }
  const req: AccessRequest = { product: input.product, surface: input.surface, credential: input.credential, resource: input.resource, clientIp: input.clientIp };
  if (input.head) return headCall(req, timing);

  let grant: Grant;
  const t0 = performance.now();
  try {
    grant = await inPhase("verify", () => authorize(req));
  } catch (err) {
    timing.verify = performance.now() - t0;
    return refusedOrFailed(req, err, timing, "authorize");
  }
  timing.verify = performance.now() - t0;
  // The same payment presented again: the answer it got, as it was.
  if (grant.answered) {
    log.info("payment.replayed", { product: req.product.id, surface: req.surface, method: grant.method, paymentId: grant.payment?.id ?? null, reference: grant.reference, receiptId: grant.answered.outcome.receiptId });
    return { kind: "granted", value: grant.answered.value, outcome: grant.answered.outcome, timing, replayed: true };
  }

  let value: unknown;
  const t1 = performance.now();
  try {
    value = await inPhase("handler", () => runProduct(input.product, params, { payment: grant.payment }));
  } catch (err) {
    timing.handler = performance.now() - t1;
    await releaseQuietly(req, grant);
    return { kind: "failed", error: toApiError(err, context), timing, method: grant.method };
  }
  timing.handler = performance.now() - t1;

  const t2 = performance.now();
  try {
    const outcome = await inPhase("settle", () => grant.commit(value));
    timing.settle = performance.now() - t2;
    return { kind: "granted", value, outcome, timing };
  } catch (err) {
    timing.settle = performance.now() - t2;
    await input.product.onCommitFailed?.(value).catch((e: unknown) => log.error("gate.compensation_failed", { ...context, message: (e as Error).message }));
    return refusedOrFailed(req, err, timing, "commit", grant);
  }
}

/** HEAD: the answer a GET would get up to the charge, with nothing verified, run or charged. */
async function headCall(req: AccessRequest, timing: CallTiming): Promise<CallResult> {
  const payment = req.credential.kind === "x402";
  // A payment is not looked at: verifying it would lock it, and a HEAD must not spend it.
  const asked: AccessRequest = payment ? { ...req, credential: { kind: "none" } } : req;
  let grant: Grant;
  try {
    grant = await authorize(asked);
  } catch (err) {
    if (payment && err instanceof PaymentRequiredError) {
      const message = `${err.message} A HEAD request is never charged: the payment sent with it was neither verified nor settled and can still be used with GET.`;
      return { kind: "refused", refusal: { ...err.refusal, message, credential: "x402" }, timing };
    }
    if (err instanceof PaymentRequiredError) return { kind: "refused", refusal: err.refusal, timing };
    return { kind: "failed", error: toApiError(err, { product: req.product.id }), timing };
  }
  await releaseQuietly(req, grant);
  return { kind: "granted", value: null, outcome: grant.preview(), timing };
}

function refusedOrFailed(req: AccessRequest, err: unknown, timing: CallTiming, phase: "authorize" | "commit", grant?: Grant): CallResult {
  const context = { product: req.product.id, surface: req.surface };
  if (err instanceof PaymentRequiredError) {
    logPaymentProblem(req, phase, err.refusal, grant);
    return { kind: "refused", refusal: err.refusal, timing };
  }
  const error = toApiError(err, context);
  logPaymentProblem(req, phase, { code: error.code, message: error.message, method: grant?.method ?? null, paymentId: grant?.payment?.id ?? null, reference: grant?.reference ?? null }, grant);
  return { kind: "failed", error, timing, method: grant?.method ?? null };
}

/**
 * The one log line of a refused payment (authorize) or a failed settlement (commit):
 * method, reason code and message, the payment's reference (what identifies it on its
 * network: EVM `payer:nonce`, Solana message hash, XLM transaction hash) and its ledger
 * id once it has a row. Refusals of bundles and keys are the caller's business and are
 * not logged; no credential is (no signature, no payload, no header).
 */
function logPaymentProblem(req: AccessRequest, phase: "authorize" | "commit", r: Pick<Refused, "code" | "message" | "method" | "paymentId" | "reference">, grant?: Grant): void {
  const isPayment = req.credential.kind === "x402";
  if (!isPayment) return;
  const fields = {
    product: req.product.id,
    surface: req.surface,
    price_usd: priceFor(req.product, req.surface),
    method: r.method ?? grant?.method ?? "unknown",
    code: r.code,
    reason: r.message,
    paymentId: r.paymentId ?? grant?.payment?.id ?? null,
    reference: r.reference ?? grant?.reference ?? null,
  };
  if (phase === "commit") log.error("payment.settlement_failed", fields);
  else log.warn("payment.refused", fields);
}
