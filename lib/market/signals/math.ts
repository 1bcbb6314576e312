/**
 * Small numeric helpers shared by the signal modules. Kept separate so every module
 * rounds, averages and validates the same way.
 */

/** True for a finite number (rejects NaN, ±Infinity, null, undefined, strings). */
export function isFiniteNumber(x: unknown): x is number {
  return typeof x === "number" && Number.isFinite(x);
}

/**
 * Round to `dp` decimal places. Uses exponent arithmetic instead of `x * 10**dp` so that
 * values such as 1.005 round the way a reader expects; -0 is normalised to 0 so JSON
 * never shows "-0".
 */
export function round(x: number, dp = 4): number {
  if (!Number.isFinite(x)) return x;
  const r = Number(Math.round(Number(`${x}e${dp}`)) + `e-${dp}`);
  // Very small/large numbers use exponent notation already; fall back to the plain form.
  const out = Number.isFinite(r) ? r : Math.round(x * 10 ** dp) / 10 ** dp;
  return Object.is(out, -0) ? 0 : out;
}

/**
 * Round to `digits` significant digits (prices spanning 1e-5..1e5, gas in gwei).
 * Non-finite values pass through; -0 becomes 0 (JSON never shows "-0").
 */
export function sig(x: number, digits: number): number {
  if (x === 0) return 0;
  if (!Number.isFinite(x)) return x;
  return Number(x.toPrecision(digits));
}

/** `f(x)` for a finite number; null for null, undefined and non-finite values (unknown stays unknown, never 0 or NaN). */
export function finiteOrNull(x: number | null | undefined, f: (x: number) => number): number | null {
  return x === null || x === undefined || !Number.isFinite(x) ? null : f(x);
}

/**
 * `x` to `digits` significant digits as a plain decimal string: no exponent, no trailing
 * zeros (1.2345678e-7 → "0.00000012345678", 64250.1 → "64250.1"). For values that are
 * signed or compared as text, where "1e-7" or "1.50000" would be a different string.
 */
export function plainDecimal(x: number, digits: number): string {
  const n = sig(x, digits);
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const decimals = Math.max(0, digits - Math.floor(Math.log10(Math.abs(n))) - 1);
  return n.toFixed(Math.min(decimals, 20)).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}

/** Sum of an array (0 for empty). */
export function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/** Arithmetic mean; null for an empty array (an average of nothing is unknown, not 0). */
export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : sum(xs) / xs.length;
}

/** Median (mean of the two middle values for even counts); null for an empty array. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  if (s.length % 2 === 1) return s[mid] as number;
  return ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Standard deviation. `ddof = 0` is the population σ (divide by n), `ddof = 1` the
 * sample σ (divide by n−1). Returns 0 when there are not enough values.
 */
export function stdDev(xs: readonly number[], ddof: 0 | 1 = 0): number {
  const n = xs.length;
  if (n - ddof <= 0) return 0;
  const m = sum(xs) / n;
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / (n - ddof));
}

/** Throw a RangeError unless `n` is a positive integer (window lengths, periods...). */
export function assertPositiveInt(n: number, name: string): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
}
