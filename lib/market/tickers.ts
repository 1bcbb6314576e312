/**
 * Supported `<SYMBOL>-USD` tickers and screen periods. Tickers map to CoinGecko coin
 * ids (CoinGecko is the one history source: keyless, 365 days, commercial use allowed,
 * unlike Yahoo). Every id here also exists in the offline simulator's universe, so the
 * same list works live and offline. Stablecoins are left out on purpose: a screen of a
 * dollar peg says nothing.
 */

/** Ticker → CoinGecko id, in the order the 422 message and the docs list them. */
export const TICKERS = {
  "XLM-USD": "stellar",
  "BTC-USD": "bitcoin",
  "ETH-USD": "ethereum",
  "SOL-USD": "solana",
  "ADA-USD": "cardano",
  "LINK-USD": "chainlink",
  "AVAX-USD": "avalanche-2",
  "DOGE-USD": "dogecoin",
  "XRP-USD": "ripple",
  "BNB-USD": "binancecoin",
  "TRX-USD": "tron",
  "DOT-USD": "polkadot",
  "LTC-USD": "litecoin",
  "BCH-USD": "bitcoin-cash",
  "ATOM-USD": "cosmos",
  "NEAR-USD": "near",
  "UNI-USD": "uniswap",
  "HBAR-USD": "hedera-hashgraph",
  "SUI-USD": "sui",
  "TON-USD": "the-open-network",
  "APT-USD": "aptos",
  "AAVE-USD": "aave",
  "SHIB-USD": "shiba-inu",
  "ICP-USD": "internet-computer",
  "FIL-USD": "filecoin",
  "ARB-USD": "arbitrum",
  "OP-USD": "optimism",
  "ETC-USD": "ethereum-classic",
  "XMR-USD": "monero",
  "ALGO-USD": "algorand",
} as const satisfies Record<string, string>;

export type Ticker = keyof typeof TICKERS;

/** Every supported ticker, in listing order. */
export const SUPPORTED_TICKERS = Object.keys(TICKERS) as Ticker[];

/** Whether `t` (already normalised) is a supported ticker. */
export function isTicker(t: string): t is Ticker {
  return Object.hasOwn(TICKERS, t);
}

/** CoinGecko id of a ticker. */
export function coingeckoId(t: Ticker): string {
  return TICKERS[t];
}

/**
 * Normalises user input: trims, upper-cases, and reads a bare symbol as its USD pair
 * ("xlm" → "XLM-USD"), since agents often send just the symbol.
 */
export function normalizeTicker(raw: string): string {
  const s = raw.trim().toUpperCase();
  return /^[A-Z0-9]+$/.test(s) ? `${s}-USD` : s;
}

/** Screen periods → days of daily history (the keyless CoinGecko tier reaches 365 days). */
export const PERIODS = { "1mo": 30, "3mo": 90, "6mo": 180, "1y": 365 } as const;

export type Period = keyof typeof PERIODS;

export const PERIOD_NAMES = Object.keys(PERIODS) as Period[];

/** Days of history a period covers. */
export function periodDays(p: Period): number {
  return PERIODS[p];
}
