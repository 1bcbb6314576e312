/**
 * Output rounding defaults of the markets products (prices to 7 significant digits, as
 * they span 1e-5..1e5 USD; other figures to 2 decimals) over the one rounding helper,
 * lib/market/signals/math.ts. Unknown stays null, never 0 or NaN.
 */
import { finiteOrNull, round, sig as significant } from "@/lib/market/signals/math";

/** Rounds to `digits` significant digits (7 by default). */
export function sig(x: number, digits = 7): number {
  return significant(x, digits);
}

/** Rounds to `places` decimal places; -0 becomes 0. */
export function dp(x: number, places = 2): number {
  return round(x, places);
}

/** `dp` that keeps null (unknown) as null. */
export function dpOrNull(x: number | null | undefined, places = 2): number | null {
  return finiteOrNull(x, (v) => dp(v, places));
}

/** `sig` that keeps null (unknown) as null. */
export function sigOrNull(x: number | null | undefined, digits = 7): number | null {
  return finiteOrNull(x, (v) => sig(v, digits));
}
