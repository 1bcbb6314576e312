/**
 * Number formatting shared by the on-chain products (6 significant digits: gas on Base
 * is ~0.005 gwei, on Ethereum ~20) over the one rounding helper,
 * lib/market/signals/math.ts. Unknown stays null, never 0 or NaN.
 */
import { finiteOrNull, round, sig as significant } from "@/lib/market/signals/math";

/** Rounds to `digits` significant digits (6 by default). */
export function sig(x: number, digits = 6): number {
  return significant(x, digits);
}

/** `sig` that keeps null/undefined/non-finite as null. */
export function sigOrNull(x: number | null | undefined, digits = 6): number | null {
  return finiteOrNull(x, (v) => sig(v, digits));
}

/** Rounds to `places` decimals; null stays null. */
export function dpOrNull(x: number | null | undefined, places = 2): number | null {
  return finiteOrNull(x, (v) => round(v, places));
}

/**
 * Gwei rounded to whole wei (9 decimals): every gas figure comes from integer wei, so this
 * keeps all of its digits (20.118246051 stays exact where 6 significant digits gave 20.1182)
 * and only removes float noise from sums such as 2 × base fee + tip. Null stays null.
 */
export function gweiOrNull(x: number | null | undefined): number | null {
  return dpOrNull(x, 9);
}

/** `gweiOrNull` for a value known to be present. */
export function gwei(x: number): number {
  return gweiOrNull(x) ?? x;
}

/** Wei (bigint) to gwei as a number, exact to the wei for realistic gas prices. */
export function weiToGwei(wei: bigint): number {
  return Number(wei / 1_000_000_000n) + Number(wei % 1_000_000_000n) / 1e9;
}

/** Base units (bigint) to a decimal number with `decimals` places (balances for display). */
export function unitsToNumber(units: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(units / scale) + Number(units % scale) / Number(scale);
}
