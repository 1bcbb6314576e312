/** Shared helpers of the markets product tests. */
import { afterAll, beforeAll, vi } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Simulator } from "@/lib/upstream-sim/server";

/** Validates a raw query like the HTTP surface does, then runs the product. */
export async function run<T = Record<string, unknown>>(product: AnyProduct, query: Record<string, string> = {}): Promise<T> {
  return (await runProduct(product, validateOrThrow(paramsSchema(product.params), query, "query"))) as T;
}

/** The 422 detail list a raw query produces (fails the test when it validates). */
export function detailOf(product: AnyProduct, query: Record<string, string>): unknown {
  try {
    validateOrThrow(paramsSchema(product.params), query, "query");
  } catch (err) {
    return (err as { detail: unknown }).detail;
  }
  throw new Error("expected a validation error");
}

/**
 * Freezes the clock (Date only; real timers keep running) so the product and the
 * test's own raw simulator reads see the same simulated "now".
 */
export function freezeClock(): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}

/** GET a raw CoinGecko path from the simulator. */
export async function rawCg<T>(sim: Simulator, pathAndQuery: string): Promise<T> {
  const res = await fetch(`${sim.url}/coingecko${pathAndQuery}`);
  if (!res.ok) throw new Error(`sim ${pathAndQuery}: HTTP ${res.status}`);
  return (await res.json()) as T;
}
