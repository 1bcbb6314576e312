/**
 * CEX ↔ SDEX arbitrage for XLM, shared by /v1/arb-opportunities and the sentiment
 * report: Kraken XLMUSD, Coinbase XLM-USD and Binance XLMUSDT against the SDEX XLM/USDC
 * book, with taker fees and trade size from configuration. A venue that is down is
 * listed as unavailable and the scan goes on; without the SDEX book or without any CEX
 * there is nothing to compare (UnavailableError).
 */
import { env } from "@/lib/config/env";
import { UnavailableError } from "@/lib/errors";
import { arbitrageScan, type ArbitrageScan, type CexQuote } from "@/lib/market/signals/arbitrage";
import { walkBook, type BookWalk } from "@/lib/market/signals/orderbook";
import { getBinanceBookTicker } from "@/lib/market/sources/binance";
import { getCoinbaseTicker } from "@/lib/market/sources/coinbase";
import { getKrakenTicker } from "@/lib/market/sources/kraken";
import { failureReason } from "@/lib/market/xlm/failure";
import { sdexBook, type SdexBook } from "@/lib/market/xlm/sdex";

export interface VenueRead {
  venue: "kraken" | "coinbase" | "binance";
  /** Pair as the venue names it. */
  pair: string;
  quoteCurrency: "USD" | "USDT";
  takerFeePct: number;
  status: "ok" | "unavailable";
  bid: number | null;
  ask: number | null;
  error: string | null;
}

export interface XlmArbitrage {
  scan: ArbitrageScan;
  venues: VenueRead[];
  sdex: SdexBook;
  /** The SDEX book walked for the trade size: buying (asks) and selling (bids). */
  sdexBuy: BookWalk;
  sdexSell: BookWalk;
  sizeXlm: number;
}

const VENUES = [
  { venue: "kraken", pair: "XLMUSD", quoteCurrency: "USD", fee: "KRAKEN_TAKER_FEE_PCT", read: () => getKrakenTicker("XLMUSD") },
  { venue: "coinbase", pair: "XLM-USD", quoteCurrency: "USD", fee: "COINBASE_TAKER_FEE_PCT", read: () => getCoinbaseTicker("XLM-USD") },
  { venue: "binance", pair: "XLMUSDT", quoteCurrency: "USDT", fee: "BINANCE_TAKER_FEE_PCT", read: () => getBinanceBookTicker("XLMUSDT") },
] as const;

/** Reads the SDEX book and every CEX ticker in parallel and runs the net-spread scan. */
export async function xlmArbitrage(): Promise<XlmArbitrage> {
  const cfg = env();
  const sizeXlm = cfg.ARB_TRADE_SIZE_XLM;
  const [bookR, ...tickerR] = await Promise.allSettled([sdexBook(), ...VENUES.map((v) => v.read())]);
  if (bookR.status === "rejected") {
    throw new UnavailableError(`Arbitrage scan is unavailable: the SDEX order book could not be read (${failureReason(bookR.reason, "sdex")}).`, {
      sources: ["horizon"],
    });
  }
  const venues: VenueRead[] = VENUES.map((v, i) => {
    const r = tickerR[i]!;
    const base = { venue: v.venue, pair: v.pair, quoteCurrency: v.quoteCurrency, takerFeePct: cfg[v.fee] };
    return r.status === "fulfilled"
      ? { ...base, status: "ok", bid: r.value.bid, ask: r.value.ask, error: null }
      : { ...base, status: "unavailable", bid: null, ask: null, error: failureReason(r.reason, v.venue) };
  });
  const quotes: CexQuote[] = venues
    .filter((v) => v.status === "ok")
    .map((v) => ({ venue: v.venue, bid: v.bid!, ask: v.ask!, takerFeePct: v.takerFeePct, quoteCurrency: v.quoteCurrency }));
  if (quotes.length === 0) {
    throw new UnavailableError(`Arbitrage scan is unavailable: no CEX ticker could be read (${venues.map((v) => v.error).join("; ")}).`, {
      sources: VENUES.map((v) => v.venue),
    });
  }
  const sdex = bookR.value;
  return {
    scan: arbitrageScan(sdex.book, quotes, { sizeXlm }),
    venues,
    sdex,
    sdexBuy: walkBook(sdex.book.asks, sizeXlm),
    sdexSell: walkBook(sdex.book.bids, sizeXlm),
    sizeXlm,
  };
}
