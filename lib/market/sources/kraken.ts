/**
 * Kraken public Ticker (keyless, about 1 request/s per IP). Every value is a string.
 * Kraken reports API errors inside a 200 body (`error: ["EQuery:Unknown asset pair"]`)
 * and renames pairs in `result` (XLMUSD → XXLMZUSD), so the first key is read.
 * Its `o` is today's open at UTC midnight: `last/o − 1` is not a rolling 24h change.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { cdnRefusal } from "@/lib/market/sources/venue-refusals";
import { fetchJson, upstreamFailure, type Provider } from "@/lib/market/upstream";

/** Cloudflare fronts the API: a blocked region or IP gets its 403 page, named as such. */
export const kraken: Provider = { name: "kraken", baseUrl: () => env().KRAKEN_BASE_URL, describeRefusal: cdnRefusal("Kraken", "Cloudflare") };

const decimal = z.string().regex(/^\d+(\.\d+)?$/, "expected a decimal string").transform(Number);
const pair = z.tuple([decimal, decimal]);

const TickerEntry = z.object({
  a: z.tuple([decimal, decimal, decimal]),
  b: z.tuple([decimal, decimal, decimal]),
  c: pair,
  v: pair,
  p: pair,
  t: z.tuple([z.number().int(), z.number().int()]),
  l: pair,
  h: pair,
  o: decimal,
});

const TickerResponse = z.object({
  error: z.array(z.string()),
  result: z.record(z.string(), TickerEntry).optional(),
});

export interface KrakenTicker {
  /** Pair name as Kraken returned it, e.g. "XXLMZUSD". */
  pair: string;
  bid: number;
  ask: number;
  last: number;
  /** Today's open at 00:00 UTC (not 24h ago). */
  openToday: number;
  high24h: number;
  low24h: number;
  /** Base-asset volume over the last 24 hours. */
  volume24h: number;
  vwap24h: number;
  trades24h: number;
}

/** Ticker for one Kraken pair (default XLMUSD). */
export async function getKrakenTicker(pairName = "XLMUSD"): Promise<KrakenTicker> {
  return cached(`kraken:ticker:${pairName}`, 5_000, async () => {
    const res = await fetchJson(kraken, "/0/public/Ticker", { pair: pairName }, TickerResponse);
    if (res.error.length > 0) upstreamFailure(kraken, `API error: ${res.error.join("; ")}`);
    const [key, t] = Object.entries(res.result ?? {})[0] ?? [];
    if (!key || !t) upstreamFailure(kraken, `no ticker for ${pairName} in result`);
    return {
      pair: key,
      bid: t.b[0],
      ask: t.a[0],
      last: t.c[0],
      openToday: t.o,
      high24h: t.h[1],
      low24h: t.l[1],
      volume24h: t.v[1],
      vwap24h: t.p[1],
      trades24h: t.t[1],
    };
  });
}
