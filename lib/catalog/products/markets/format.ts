/** Number formatting shared by the markets products (unknown stays null, never 0/NaN). */

/** Rounds to `sig` significant digits (prices span 1e-5 .. 1e5 USD). */
export function sig(x: number, digits = 7): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(digits));
}

/** Rounds to `dp` decimal places; -0 becomes 0. */
export function dp(x: number, places = 2): number {
  const r = Math.round(x * 10 ** places) / 10 ** places;
  return Object.is(r, -0) ? 0 : r;
}

/** `dp` that keeps null (unknown) as null. */
export function dpOrNull(x: number | null | undefined, places = 2): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : dp(x, places);
}

/** `sig` that keeps null (unknown) as null. */
export function sigOrNull(x: number | null | undefined, digits = 7): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : sig(x, digits);
}
