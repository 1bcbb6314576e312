/**
 * Binance spot public tickers (keyless, 6000 weight/min per IP). The quote currency is
 * USDT, not USD. Binance refuses some servers outright, and each refusal is named so
 * callers list the venue as unavailable with the reason instead of failing:
 * - HTTP 451 "restricted location" (US addresses, including US cloud regions);
 * - HTTP 403 from its CloudFront edge for blocked regions (an HTML page saying the
 *   distribution blocks "your country"), or from its WAF for other firewall rules;
 * - HTTP 418: this IP is banned (2 minutes to 3 days) for sending requests after 429s,
 *   with Retry-After.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, UpstreamError, type Provider } from "@/lib/market/upstream";
import { cdnRefusal, isLocationRefusal } from "@/lib/market/sources/venue-refusals";

const edge = cdnRefusal("Binance", "CloudFront");

export const binance: Provider = {
  name: "binance",
  baseUrl: () => env().BINANCE_BASE_URL,
  describeRefusal: (status, body, retryAfterMs) =>
    status === 418
      ? `this server's IP is banned by Binance (HTTP 418, after repeated 429s${retryAfterMs === undefined ? "" : `; ban lifts in ${Math.ceil(retryAfterMs / 1000)} s`})`
      : edge(status, body, retryAfterMs),
};

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, "expected a decimal string").transform(Number);

/** Binance refuses service to this server's location (HTTP 451, or CloudFront's geo 403). */
export function isGeoBlocked(err: unknown): boolean {
  return err instanceof UpstreamError && err.provider === binance.name && isLocationRefusal(err);
}

const get = <S extends z.ZodType>(path: string, symbol: string, schema: S): Promise<z.infer<S>> => fetchJson(binance, path, { symbol }, schema);

const BookTicker = z.object({
  symbol: z.string(),
  bidPrice: decimal,
  bidQty: decimal,
  askPrice: decimal,
  askQty: decimal,
});

export interface BinanceBookTicker {
  symbol: string;
  bid: number;
  bidQty: number;
  ask: number;
  askQty: number;
}

/** Best bid/ask for a symbol (default XLMUSDT; prices in USDT). */
export async function getBinanceBookTicker(symbol = "XLMUSDT"): Promise<BinanceBookTicker> {
  return cached(`binance:book:${symbol}`, 5_000, async () => {
    const r = await get("/api/v3/ticker/bookTicker", symbol, BookTicker);
    return { symbol: r.symbol, bid: r.bidPrice, bidQty: r.bidQty, ask: r.askPrice, askQty: r.askQty };
  });
}

const Ticker24h = z.object({
  symbol: z.string(),
  priceChange: decimal,
  priceChangePercent: decimal,
  weightedAvgPrice: decimal,
  lastPrice: decimal,
  bidPrice: decimal,
  askPrice: decimal,
  openPrice: decimal,
  highPrice: decimal,
  lowPrice: decimal,
  volume: decimal,
  quoteVolume: decimal,
  openTime: z.number().int(),
  closeTime: z.number().int(),
  count: z.number().int(),
});

export interface Binance24h {
  symbol: string;
  last: number;
  open: number;
  high: number;
  low: number;
  /** Rolling 24h change, percent. */
  changePct: number;
  /** Base-asset volume. */
  volume: number;
  /** Quote-asset (USDT) volume. */
  quoteVolume: number;
  weightedAvgPrice: number;
  trades: number;
}

/** Rolling 24h statistics for a symbol (default XLMUSDT). */
export async function getBinance24h(symbol = "XLMUSDT"): Promise<Binance24h> {
  return cached(`binance:24h:${symbol}`, 30_000, async () => {
    const r = await get("/api/v3/ticker/24hr", symbol, Ticker24h);
    return {
      symbol: r.symbol,
      last: r.lastPrice,
      open: r.openPrice,
      high: r.highPrice,
      low: r.lowPrice,
      changePct: r.priceChangePercent,
      volume: r.volume,
      quoteVolume: r.quoteVolume,
      weightedAvgPrice: r.weightedAvgPrice,
      trades: r.count,
    };
  });
}
