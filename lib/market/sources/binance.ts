/**
 * Binance spot public tickers (keyless, 6000 weight/min per IP). The quote currency is
 * USDT, not USD. Binance answers HTTP 451 ("restricted location") to US addresses,
 * including US cloud regions: that is reported as a clear "unavailable from this
 * location" error so callers list the venue as unavailable instead of failing.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, UpstreamError, type Provider } from "@/lib/market/upstream";

export const binance: Provider = { name: "binance", baseUrl: () => env().BINANCE_BASE_URL };

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, "expected a decimal string").transform(Number);

/** Binance refuses service to this server's location (HTTP 451). */
export function isGeoBlocked(err: unknown): boolean {
  return err instanceof UpstreamError && err.provider === binance.name && err.status === 451;
}

async function get<S extends z.ZodType>(path: string, symbol: string, schema: S): Promise<z.infer<S>> {
  try {
    return await fetchJson(binance, path, { symbol }, schema);
  } catch (err) {
    if (isGeoBlocked(err)) {
      throw new UpstreamError(binance.name, "http", "unavailable from this server's location (HTTP 451 restricted location)", 451);
    }
    throw err;
  }
}

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
