/**
 * The service's error classes are recognized across copies of their module (see
 * lib/errors/brand.ts): an error thrown by one copy passes `instanceof` against the
 * other, a subclass is told apart from its parent, and a foreign error is not taken for
 * ours. The second copy is a real one: the module registry is reset and the modules are
 * evaluated again.
 */
import { describe, expect, it, vi } from "vitest";

async function copies() {
  vi.resetModules();
  const a = { errors: await import("@/lib/errors"), local: await import("@/lib/payments/x402/evm-local"), required: await import("@/lib/access/payment-required"), call: await import("@/lib/payments/x402/facilitator-call") };
  vi.resetModules();
  const b = { errors: await import("@/lib/errors"), local: await import("@/lib/payments/x402/evm-local"), required: await import("@/lib/access/payment-required"), call: await import("@/lib/payments/x402/facilitator-call") };
  return { a, b };
}

describe("error brands", () => {
  it("the two copies are distinct classes, and instanceof holds across them", async () => {
    const { a, b } = await copies();
    expect(a.local.NotSentError).not.toBe(b.local.NotSentError);
    const notSent = new a.local.NotSentError("x", "rpc_unreachable");
    expect(notSent instanceof b.local.NotSentError).toBe(true);
    expect(notSent instanceof b.local.SettlementUnknownError).toBe(false);
    expect(new a.local.SettlementUnknownError("x", null) instanceof b.local.SettlementUnknownError).toBe(true);
    expect(new a.call.FacilitatorError("x") instanceof b.call.FacilitatorError).toBe(true);
    const pending = new a.errors.ApiError("settlement_pending", "x");
    expect(pending instanceof b.errors.ApiError).toBe(true);
    expect(pending instanceof b.errors.ValidationError).toBe(false);
    expect(new a.errors.ValidationError([]) instanceof b.errors.ApiError).toBe(true);
    expect(new a.errors.ValidationError([]) instanceof b.errors.ValidationError).toBe(true);
    expect(b.errors.toApiError(pending)).toBe(pending);
  });

  it("a subclass is told apart from its parent, and errors of other kinds are not ours", async () => {
    const { a, b } = await copies();
    const refusal = { granted: false, code: "payment_required", message: "m", status: 402 } as never;
    const required = new a.required.PaymentRequiredError(refusal);
    expect(required instanceof b.required.PaymentRequiredError).toBe(true);
    expect(required instanceof b.errors.ApiError).toBe(true);
    expect(new b.errors.ApiError("payment_required") instanceof a.required.PaymentRequiredError).toBe(false);
    expect(new Error("x") instanceof b.errors.ApiError).toBe(false);
    expect(Object.assign(new Error("x"), { code: "settlement_pending", status: 503 }) instanceof b.errors.ApiError).toBe(false);
    expect((null as unknown as object) instanceof b.errors.ApiError).toBe(false);
  });

  it("an unbranded subclass falls back to the prototype chain", async () => {
    const { errors } = { errors: await import("@/lib/errors") };
    class Local extends errors.ApiError {}
    expect(new Local("not_found") instanceof Local).toBe(true);
    expect(new errors.ApiError("not_found") instanceof Local).toBe(false);
    expect(new Local("not_found") instanceof errors.ApiError).toBe(true);
  });
});
