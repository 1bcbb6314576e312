/**
 * Exact money arithmetic on decimal strings: USD prices as written in the catalog
 * ("0.005") to USDC base units (6 decimals) and back, without floating point.
 */
const DECIMAL = /^\d+(\.\d+)?$/;

/** "0.005" → 5000n (USDC has 6 decimals). Throws on more than 6 fractional digits. */
export function usdToAtomic(usd: string, decimals = 6): bigint {
  if (!DECIMAL.test(usd)) throw new Error(`invalid USD amount ${JSON.stringify(usd)}`);
  const [whole, frac = ""] = usd.split(".");
  if (frac.replace(/0+$/, "").length > decimals) throw new Error(`${usd} has more than ${decimals} decimals`);
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
}

/** 5000n → "0.005000" (fixed 6 fractional digits, as spec 2.3 writes price.amount). */
export function atomicToUsd6(atomic: bigint, decimals = 6): string {
  const neg = atomic < 0n;
  const a = neg ? -atomic : atomic;
  const base = 10n ** BigInt(decimals);
  return `${neg ? "-" : ""}${a / base}.${(a % base).toString().padStart(decimals, "0")}`;
}

/** "0.005" → "0.005000". */
export function usd6(usd: string): string {
  return atomicToUsd6(usdToAtomic(usd));
}

/** "$0.005" for humans (trailing zeros trimmed, at least 2 decimals). */
export function usdLabel(usd: string): string {
  const [w, f = ""] = usd6(usd).split(".");
  const trimmed = f.replace(/0+$/, "").padEnd(2, "0");
  return `$${w}.${trimmed}`;
}
