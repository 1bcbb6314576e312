/**
 * Output rounding defaults of the XLM products (prices to 7 significant digits, other
 * figures to 4 decimals) over the one rounding helper, lib/market/signals/math.ts.
 * Unknown stays null, never 0 or NaN.
 */
import { finiteOrNull, round, sig as significant } from "@/lib/market/signals/math";

/** `digits` significant digits (prices: 7). */
export function sig(x: number, digits = 7): number {
  return significant(x, digits);
}

/** `places` decimal places; -0 becomes 0. */
export function dp(x: number, places = 4): number {
  return round(x, places);
}

export function sigOrNull(x: number | null | undefined, digits = 7): number | null {
  return finiteOrNull(x, (v) => sig(v, digits));
}

export function dpOrNull(x: number | null | undefined, places = 4): number | null {
  return finiteOrNull(x, (v) => dp(v, places));
}
