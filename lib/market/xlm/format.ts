/** Output rounding for the XLM products: unknown stays null, never 0 or NaN. */

/** `sigDigits` significant digits (prices: 7). */
export function sig(x: number, sigDigits = 7): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(sigDigits));
}

/** `places` decimal places; -0 becomes 0. */
export function dp(x: number, places = 4): number {
  const r = Number(Math.round(Number(`${x}e${places}`)) + `e-${places}`);
  const out = Number.isFinite(r) ? r : Math.round(x * 10 ** places) / 10 ** places;
  return Object.is(out, -0) ? 0 : out;
}

export function sigOrNull(x: number | null | undefined, sigDigits = 7): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : sig(x, sigDigits);
}

export function dpOrNull(x: number | null | undefined, places = 4): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : dp(x, places);
}
