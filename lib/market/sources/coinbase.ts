/**
 * Coinbase Exchange public product endpoints (keyless, 10 requests/s per IP):
 * `/products/{id}/ticker` (best bid/ask, last trade) and `/products/{id}/stats`
 * (rolling 24h open/high/low/last/volume). Values are strings.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { cdnRefusal } from "@/lib/market/sources/venue-refusals";
import { fetchJson, type Provider } from "@/lib/market/upstream";

/** Cloudflare fronts the API: a blocked region or IP gets its 403 page, named as such. */
export const coinbase: Provider = { name: "coinbase", baseUrl: () => env().COINBASE_BASE_URL, describeRefusal: cdnRefusal("Coinbase", "Cloudflare") };

const decimal = z.string().regex(/^\d+(\.\d+)?$/, "expected a decimal string").transform(Number);

const TickerResponse = z.object({
  ask: decimal,
  bid: decimal,
  volume: decimal,
  trade_id: z.number().int(),
  price: decimal,
  size: decimal,
  time: z.iso.datetime({ offset: true }),
});

export interface CoinbaseTicker {
  bid: number;
  ask: number;
  /** Last trade price. */
  last: number;
  /** 24h base-asset volume. */
  volume24h: number;
  time: Date;
}

/** Best bid/ask and last trade for a Coinbase product (default XLM-USD). */
export async function getCoinbaseTicker(productId = "XLM-USD"): Promise<CoinbaseTicker> {
  return cached(`coinbase:ticker:${productId}`, 5_000, async () => {
    const r = await fetchJson(coinbase, `/products/${encodeURIComponent(productId)}/ticker`, {}, TickerResponse);
    return { bid: r.bid, ask: r.ask, last: r.price, volume24h: r.volume, time: new Date(r.time) };
  });
}

const StatsResponse = z.object({
  open: decimal,
  high: decimal,
  low: decimal,
  last: decimal,
  volume: decimal,
  volume_30day: decimal.optional(),
});

export interface CoinbaseStats {
  /** Price 24 hours ago (rolling window). */
  open24h: number;
  high24h: number;
  low24h: number;
  last: number;
  volume24h: number;
  /** (last / open − 1) · 100: a rolling 24h change; null if open is 0. */
  change24hPct: number | null;
}

/** Rolling 24h statistics for a Coinbase product (default XLM-USD). */
export async function getCoinbaseStats(productId = "XLM-USD"): Promise<CoinbaseStats> {
  return cached(`coinbase:stats:${productId}`, 30_000, async () => {
    const r = await fetchJson(coinbase, `/products/${encodeURIComponent(productId)}/stats`, {}, StatsResponse);
    return {
      open24h: r.open,
      high24h: r.high,
      low24h: r.low,
      last: r.last,
      volume24h: r.volume,
      change24hPct: r.open > 0 ? (r.last / r.open - 1) * 100 : null,
    };
  });
}
