/**
 * Market breadth, regime and top movers over CoinGecko `coins/markets` rows
 * (upstreams.md §6, §7). Stablecoins are excluded by the callers' filters because they
 * sit near 0 % and drag breadth toward "mixed".
 */
import { isFiniteNumber, mean, median } from "./math";

/** CoinGecko ids of USD/EUR stablecoins and stable-like yield wrappers. */
export const STABLECOIN_IDS: ReadonlySet<string> = new Set([
  "tether", "usd-coin", "dai", "first-digital-usd", "true-usd", "ethena-usde", "ethena-staked-usde",
  "usds", "susds", "paypal-usd", "usdd", "frax", "frax-usd", "binance-usd", "gemini-dollar", "liquity-usd",
  "euro-coin", "paxos-standard", "ripple-usd", "usual-usd", "stasis-eurs", "tether-eurt", "crvusd",
  "gho", "usdb", "mountain-protocol-usdm", "ondo-us-dollar-yield", "bfusd", "usdtb",
  "magic-internet-money", "dola-usd", "alchemix-usd", "bridged-usdc-polygon-pos-bridge", "celo-dollar",
]);

/** Tickers (lower-case) of stablecoins whose symbol does not start with "usd". */
export const STABLECOIN_SYMBOLS: ReadonlySet<string> = new Set([
  "usdt", "usdc", "dai", "fdusd", "tusd", "usde", "susde", "usds", "susds", "pyusd", "usdd", "frax",
  "frxusd", "busd", "gusd", "lusd", "eurc", "eurs", "eurt", "usdp", "rlusd", "usd0", "usd1", "crvusd",
  "gho", "usdb", "usdm", "usdy", "usdf", "usdtb", "bfusd", "mim", "dola", "alusd", "usdg", "usdx",
  "ausd", "susd", "cusd",
]);

/**
 * True when the coin is a stablecoin: its id is in STABLECOIN_IDS, its symbol is in
 * STABLECOIN_SYMBOLS, or its symbol starts with "usd" (USDT0, USDe variants, ...).
 */
export function isStablecoin(coin: { id: string; symbol: string }): boolean {
  const id = coin.id.toLowerCase();
  const sym = coin.symbol.toLowerCase();
  return STABLECOIN_IDS.has(id) || STABLECOIN_SYMBOLS.has(sym) || sym.startsWith("usd");
}

export type BreadthStats = {
  n: number;
  advancers: number;
  decliners: number;
  unchanged: number;
  /** 100 · advancers / n */
  breadthPct: number;
  meanChangePct: number;
  medianChangePct: number;
};

/**
 * Breadth over 24h changes (%): null/non-finite rows are ignored (unknown, not 0).
 * Returns null when no usable change remains.
 */
export function breadthStats(changes: Array<number | null>): BreadthStats | null {
  const xs = changes.filter(isFiniteNumber);
  if (xs.length === 0) return null;
  const advancers = xs.filter((x) => x > 0).length;
  const decliners = xs.filter((x) => x < 0).length;
  return {
    n: xs.length,
    advancers,
    decliners,
    unchanged: xs.length - advancers - decliners,
    breadthPct: (100 * advancers) / xs.length,
    meanChangePct: mean(xs) as number,
    medianChangePct: median(xs) as number,
  };
}

export type MarketRegime = "risk_on" | "mild_risk_on" | "mixed" | "mild_risk_off" | "risk_off";

/**
 * Prototype regime table, checked in this order:
 *   breadth ≥ 60 and mean ≥ 0.5   → risk_on
 *   breadth ≤ 40 and mean ≤ −0.5  → risk_off
 *   breadth ≥ 55 and mean > 0     → mild_risk_on
 *   breadth ≤ 45 and mean < 0     → mild_risk_off
 *   anything else                 → mixed
 */
export function marketRegime(breadthPct: number, meanChangePct: number): MarketRegime {
  if (breadthPct >= 60 && meanChangePct >= 0.5) return "risk_on";
  if (breadthPct <= 40 && meanChangePct <= -0.5) return "risk_off";
  if (breadthPct >= 55 && meanChangePct > 0) return "mild_risk_on";
  if (breadthPct <= 45 && meanChangePct < 0) return "mild_risk_off";
  return "mixed";
}

export type MoverCoin = {
  id: string;
  symbol: string;
  name: string;
  price: number;
  change24hPct: number | null;
  volumeUsd: number | null;
};

/**
 * Top gainers (change > 0, descending) and losers (change < 0, ascending), n each.
 * Excluded: stablecoins, rows with a null/non-finite change, and rows whose 24h volume
 * is unknown or below `minVolumeUsd` ($1M by default — thin coins produce noisy moves).
 * Ties are broken by higher volume.
 */
export function topMovers<T extends MoverCoin>(
  coins: T[],
  opts: { n?: number; minVolumeUsd?: number } = {},
): { gainers: T[]; losers: T[] } {
  const { n = 10, minVolumeUsd = 1e6 } = opts;
  const eligible = coins.filter(
    (c) => !isStablecoin(c) && isFiniteNumber(c.change24hPct) && isFiniteNumber(c.volumeUsd) && c.volumeUsd >= minVolumeUsd,
  );
  const vol = (c: T) => c.volumeUsd as number;
  const chg = (c: T) => c.change24hPct as number;
  const gainers = eligible.filter((c) => chg(c) > 0).sort((a, b) => chg(b) - chg(a) || vol(b) - vol(a)).slice(0, n);
  const losers = eligible.filter((c) => chg(c) < 0).sort((a, b) => chg(a) - chg(b) || vol(b) - vol(a)).slice(0, n);
  return { gainers, losers };
}
