/**
 * Trace spans of the one call path (lib/access/call.ts): a `call <product>` span with a
 * child per phase the Server-Timing header measures (verify, handler, settle), under
 * the request's span that Next.js opens. They exist only when tracing is on: the
 * instrumentation hook (instrumentation.ts) loads lib/telemetry/otel.ts when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, and that installs the tracer read here. Without it
 * nothing of OpenTelemetry is loaded and each phase runs as a plain call.
 *
 * Attributes name the product, the surface, the credential's kind, the outcome, the
 * payment method and settlement mode, the error code: never a credential, a payment
 * payload, a payer or a token.
 */
import type { CallInput, CallResult } from "@/lib/access/call-result";
import { peekProcessState } from "@/lib/process-state";

export type SpanAttributes = Record<string, string | number | boolean>;

/** What lib/telemetry/otel.ts installs when tracing is on (process-wide, under TRACER_STATE). */
export interface CallTracer {
  /** Runs `fn` in a new active span; `fn` returns the attributes to add at its end (and whether it failed). */
  span<T>(name: string, attributes: SpanAttributes, fn: () => Promise<{ value: T; attributes?: SpanAttributes; error?: string }>): Promise<T>;
}

/** The process-state name the tracer is installed under. */
export const TRACER_STATE = "otel.tracer";

function tracer(): CallTracer | undefined {
  return peekProcessState<CallTracer>(TRACER_STATE);
}

/** Runs one phase of a call, in a span of its own when tracing is on. */
export function inPhase<T>(name: "verify" | "handler" | "settle", fn: () => Promise<T>): Promise<T> {
  const t = tracer();
  return t ? t.span(name, {}, async () => ({ value: await fn() })) : fn();
}

/** What a finished call's span says about it. */
function resultAttributes(result: CallResult): { attributes: SpanAttributes; error?: string } {
  if (result.kind === "granted") {
    const o = result.outcome;
    return { attributes: { "echo.outcome": "ok", ...(o.method ? { "echo.payment.method": o.method } : {}), ...(o.settlement ? { "echo.payment.settlement": o.settlement } : {}), "echo.charged": o.charged } };
  }
  if (result.kind === "refused") {
    const r = result.refusal;
    return { attributes: { "echo.outcome": "refused", "echo.error.code": r.code, "echo.status": r.status, ...(r.method ? { "echo.payment.method": r.method } : {}) } };
  }
  const e = result.error;
  return { attributes: { "echo.outcome": "error", "echo.error.code": e.code, "echo.status": e.status, ...(result.method ? { "echo.payment.method": result.method } : {}) }, error: e.code };
}

/** Runs a whole call in a `call <product>` span when tracing is on. */
export function traceCall(input: CallInput, run: () => Promise<CallResult>): Promise<CallResult> {
  const t = tracer();
  if (!t) return run();
  const attributes: SpanAttributes = { "echo.product": input.product.id, "echo.surface": input.surface, "echo.credential": input.credential.kind, ...(input.head ? { "echo.head": true } : {}) };
  return t.span(`call ${input.product.id}`, attributes, async () => {
    const value = await run();
    return { value, ...resultAttributes(value) };
  });
}
