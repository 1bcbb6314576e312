/**
 * What presenting one payment several times must give (lib/payments/ledger.ts): the call
 * runs once and is charged once; every other presentation gets that same answer again
 * (status, body, receipt, settlement response; `Idempotent-Replayed: true` over HTTP) or,
 * while the first is still under way, 503 settlement_pending "in_progress" with
 * Retry-After. Never a refusal of a payment that was served.
 */
import { expect } from "vitest";

export interface Presented {
  status: number;
  text: string;
  headers: Headers;
}

/** Reads a response once, keeping what the checks compare. */
export async function presented(res: Response): Promise<Presented> {
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const SAME = ["x-receipt-id", "payment-response", "x-payment-response", "x-payment-settlement"];

/** `again` is `first` sent again, as it was. */
export function expectSameAnswer(first: Presented, again: Presented): void {
  expect(again.status, again.text).toBe(first.status);
  expect(again.text).toBe(first.text);
  for (const h of SAME) expect(again.headers.get(h), h).toBe(first.headers.get(h));
  expect(again.headers.get("idempotent-replayed")).toBe("true");
}

/**
 * Concurrent presentations of one payment: exactly one ran the call (200 without
 * Idempotent-Replayed), every other 200 is its answer again, the rest are "in progress".
 * Returns the original answer.
 */
export function expectOneAnswer(results: Presented[]): Presented {
  const ok = results.filter((r) => r.status === 200);
  const original = ok.filter((r) => r.headers.get("idempotent-replayed") !== "true");
  expect(original, results.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join("\n")).toHaveLength(1);
  for (const r of ok) if (r !== original[0]) expectSameAnswer(original[0]!, r);
  for (const r of results.filter((x) => x.status !== 200)) {
    expect(r.status, r.text).toBe(503);
    expect(JSON.parse(r.text).error).toMatchObject({ code: "settlement_pending", reason: "in_progress" });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  }
  return original[0]!;
}
