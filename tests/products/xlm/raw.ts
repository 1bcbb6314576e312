/**
 * Helpers for the XLM tests: read the simulator's raw wire format directly (not through
 * the adapters under test) and recompute expected values with plain arithmetic.
 */
import { afterEach, expect, vi } from "vitest";
import type { Simulator } from "@/lib/upstream-sim/server";

export const USDC_ISSUER = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
export const BOOK_PATH = `/horizon/order_book?selling_asset_type=native&buying_asset_type=credit_alphanum4&buying_asset_code=USDC&buying_asset_issuer=${USDC_ISSUER}&limit=20`;
export const PAIR_QUERY = `base_asset_type=native&counter_asset_type=credit_alphanum4&counter_asset_code=USDC&counter_asset_issuer=${USDC_ISSUER}`;

/** GET a raw simulator path and return its JSON body. */
export async function raw<T = any>(sim: Simulator, path: string): Promise<T> {
  const res = await fetch(sim.url + path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

export interface RawLevelXlm {
  price: number;
  xlm: number;
}

/** The raw Horizon book with sizes in XLM: bid amount is USDC (÷ price), ask amount is XLM. */
export async function rawBookXlm(sim: Simulator): Promise<{ bids: RawLevelXlm[]; asks: RawLevelXlm[] }> {
  const b = await raw<{ bids: Array<{ price: string; amount: string }>; asks: Array<{ price: string; amount: string }> }>(sim, BOOK_PATH);
  return {
    bids: b.bids.map((l) => ({ price: Number(l.price), xlm: Number(l.amount) / Number(l.price) })),
    asks: b.asks.map((l) => ({ price: Number(l.price), xlm: Number(l.amount) })),
  };
}

export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Freezes Date (only Date: timers and AbortSignal timeouts keep running) so the
 * simulator, the adapters and the test read the same instant. Call inside a test.
 */
export function freezeTime(at = Date.now()): void {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
}

afterEach(() => {
  vi.useRealTimers();
});
