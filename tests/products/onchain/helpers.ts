/** Shared helpers of the on-chain product tests. */
import { afterAll, beforeAll, vi } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { resetEnvForTests } from "@/lib/config/env";
import type { AnyProduct } from "@/lib/catalog/types";
import type { Simulator } from "@/lib/upstream-sim/server";

/** Validates a raw query like the HTTP surface does, then runs the product. */
export async function run<T = Record<string, unknown>>(product: AnyProduct, query: Record<string, string> = {}): Promise<T> {
  return (await runProduct(product, validateOrThrow(paramsSchema(product.params), query, "query"))) as T;
}

/**
 * The 422 detail list a raw query produces, whether the parameter schema rejects it or
 * the handler's cross-field check does (fails the test when the call succeeds).
 */
export async function detailOf(product: AnyProduct, query: Record<string, string>): Promise<unknown> {
  try {
    await run(product, query);
  } catch (err) {
    const detail = (err as { detail?: unknown }).detail;
    if (detail === undefined) throw err;
    return detail;
  }
  throw new Error("expected a validation error");
}

/** Freezes Date (real timers keep running) so the product and raw reads see the same block / hour. */
export function freezeClock(): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}

/** Runs `fn` with environment overrides (the parsed config is reset before and after). */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
    resetEnvForTests();
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

/** GET a raw simulator path, e.g. `/goplus/api/v1/token_security/8453?...`. */
export async function rawGet<T>(sim: Simulator, pathAndQuery: string): Promise<T> {
  const res = await fetch(`${sim.url}${pathAndQuery}`);
  if (!res.ok) throw new Error(`sim ${pathAndQuery}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** One raw JSON-RPC call to the simulated node; returns `result` (throws on `error`). */
export async function rawRpc<T = string>(sim: Simulator, node: "eth-rpc" | "base-rpc", method: string, params: unknown[]): Promise<T> {
  const res = await fetch(`${sim.url}/${node}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`rpc ${method}: ${body.error.message}`);
  return body.result as T;
}

/** Median of numbers (mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** |a/b − 1| (relative difference). */
export const rel = (a: number, b: number) => (b === 0 ? Math.abs(a) : Math.abs(a / b - 1));

/** Deterministic test addresses: 0x followed by 40 hex digits built from a tag and an index. */
export function evmAddr(tag: number, i: number): string {
  return `0x${tag.toString(16)}${i.toString(16).padStart(8, "0")}`.padEnd(42, "7");
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** Deterministic base58 Solana-style mint of 44 characters. */
export function solMint(tag: number, i: number): string {
  return Array.from({ length: 44 }, (_, k) => B58[(tag * 31 + i * 7 + k * 13 + ((i * k) % 5)) % 58]).join("");
}
