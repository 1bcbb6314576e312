/**
 * What one gated call adds to the metrics (lib/metrics): the call by product, surface,
 * credential and outcome, and for a per-call payment its outcome, settlement mode and
 * settlement time. Read from the call's typed result alone: the phases it timed say
 * where it stopped (a failure with a handler time but no settle time was released, one
 * with a settle time failed at settlement).
 */
import type { CallInput, CallResult } from "@/lib/access/call-result";
import { metrics } from "@/lib/metrics";

/** ok, refused (402/429 with the requirement), invalid (422), error (anything else: 503, ...). */
function callOutcome(result: CallResult): string {
  if (result.kind === "granted") return "ok";
  if (result.kind === "refused") return "refused";
  return result.error.code === "validation_error" ? "invalid" : "error";
}

/** The payment's outcome, or null when no payment was looked at (none sent, or the parameters were refused first). */
function paymentOutcome(result: CallResult): { outcome: string; method: string; mode: string } | null {
  const t = result.timing;
  if (t.verify === undefined) return null;
  if (result.kind === "granted") return { outcome: "settled", method: result.outcome.method ?? "unknown", mode: result.outcome.settlement ?? "confirmed" };
  const method = (result.kind === "refused" ? result.refusal.method : result.method) ?? "unknown";
  const code = result.kind === "refused" ? result.refusal.code : result.error.code;
  if (t.settle !== undefined) return { outcome: code === "settlement_pending" ? "pending" : code === "settlement_failed" ? "failed" : "error", method, mode: "none" };
  if (t.handler !== undefined) return { outcome: "released", method, mode: "none" };
  return { outcome: result.kind === "refused" ? "refused" : "error", method, mode: "none" };
}

/** Counts a finished call (not a HEAD check) that took `seconds`. */
export function recordCall(input: CallInput, result: CallResult, seconds: number): void {
  const m = metrics();
  const product = input.product.id;
  m.calls.inc({ product, surface: input.surface, credential: input.credential.kind, outcome: callOutcome(result) });
  m.callSeconds.observe({ product, surface: input.surface }, seconds);
  if (input.credential.kind !== "x402") return;
  const p = paymentOutcome(result);
  if (!p) return;
  m.payments.inc(p);
  if (p.outcome === "settled" && result.timing.settle !== undefined) m.settleSeconds.observe({ method: p.method, mode: p.mode }, result.timing.settle / 1000);
}
