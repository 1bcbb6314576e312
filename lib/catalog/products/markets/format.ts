/** Number formatting shared by the markets products (unknown stays null, never 0/NaN). */
import { round } from "@/lib/market/signals/math";

/** Rounds to `sig` significant digits (prices span 1e-5 .. 1e5 USD). */
export function sig(x: number, digits = 7): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(digits));
}

/** Rounds to `dp` decimal places (the one rounding rule, lib/market/signals/math.ts); -0 becomes 0. */
export function dp(x: number, places = 2): number {
  return round(x, places);
}

/** `dp` that keeps null (unknown) as null. */
export function dpOrNull(x: number | null | undefined, places = 2): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : dp(x, places);
}

/** `sig` that keeps null (unknown) as null. */
export function sigOrNull(x: number | null | undefined, digits = 7): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : sig(x, digits);
}
