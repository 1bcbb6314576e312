/**
 * CoinGecko public API (keyless, a Demo key in `x-cg-demo-api-key`, or a Pro key in
 * `x-cg-pro-api-key` on pro-api.coingecko.com). Used for prices,
 * 24h changes, circulating supply, top-N market rows, daily/hourly history and global
 * figures. Nullable numbers stay null (unknown), never 0.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached, type CacheOptions } from "@/lib/market/cache";
import { fetchJson, type Provider } from "@/lib/market/upstream";
import { sharedLimiter } from "@/lib/market/limiter";

/** Host of CoinGecko's paid (Pro) API; the Demo and keyless tiers use api.coingecko.com. */
export const COINGECKO_PRO_HOST = "pro-api.coingecko.com";

/**
 * The header that carries the CoinGecko key. Each plan only accepts its own header on
 * its own host (a Demo header on the Pro host is refused, and vice versa), so `auto`
 * follows the configured base URL's host; `demo`/`pro` override it for proxies.
 */
export function coingeckoKeyHeader(baseUrl: string, plan: "auto" | "demo" | "pro" = "auto"): "x-cg-pro-api-key" | "x-cg-demo-api-key" {
  const pro = plan === "pro" || (plan === "auto" && new URL(baseUrl).hostname.toLowerCase() === COINGECKO_PRO_HOST);
  return pro ? "x-cg-pro-api-key" : "x-cg-demo-api-key";
}

/**
 * One limiter for every CoinGecko call (this adapter and coingecko-extra share the
 * provider): screens fan out to 10 `market_chart` calls at once and the keyless tier
 * answers such bursts with 429. A Retry-After up to 5 s is waited out (1 s when the
 * 429 names none) and the call retried once; a longer one fails the calls at once.
 */
export const COINGECKO_RETRY = { maxWaitMs: 5_000, defaultWaitMs: 1_000 } as const;

export const coingecko: Provider = {
  limiter: () => sharedLimiter({ provider: "coingecko", concurrency: () => env().COINGECKO_MAX_CONCURRENCY, ...COINGECKO_RETRY }),
  name: "coingecko",
  baseUrl: () => env().COINGECKO_BASE_URL,
  headers: (): Record<string, string> => {
    const cfg = env();
    const key = cfg.COINGECKO_API_KEY;
    return key ? { [coingeckoKeyHeader(cfg.COINGECKO_BASE_URL, cfg.COINGECKO_PLAN)]: key } : {};
  },
};

const num = z.number().finite();
const nullableNum = z.number().finite().nullable().optional().transform((v) => v ?? null);

const SimplePriceEntry = z.record(z.string(), z.number().nullable());
const SimplePrice = z.record(z.string(), SimplePriceEntry);

export interface SimplePriceQuote {
  usd: number;
  usd24hChangePct: number | null;
  usdMarketCap: number | null;
  usd24hVolume: number | null;
  btc: number | null;
  lastUpdatedAt: Date | null;
}

/** Spot prices for CoinGecko ids in USD (and BTC), with 24h change, market cap and volume. */
export async function simplePrice(ids: string[]): Promise<Record<string, SimplePriceQuote>> {
  const sorted = [...new Set(ids)].sort();
  return cached(`cg:simple:${sorted.join(",")}`, 30_000, async () => {
    const raw = await fetchJson(
      coingecko,
      "/api/v3/simple/price",
      {
        ids: sorted.join(","),
        vs_currencies: "usd,btc",
        include_24hr_change: true,
        include_market_cap: true,
        include_24hr_vol: true,
        include_last_updated_at: true,
      },
      SimplePrice,
    );
    const out: Record<string, SimplePriceQuote> = {};
    for (const id of sorted) {
      const e = raw[id];
      const usd = e?.usd;
      if (!e || typeof usd !== "number" || !(usd > 0)) continue; // unknown id: absent
      out[id] = {
        usd,
        usd24hChangePct: e.usd_24h_change ?? null,
        usdMarketCap: e.usd_market_cap ?? null,
        usd24hVolume: e.usd_24h_vol ?? null,
        btc: e.btc ?? null,
        lastUpdatedAt: typeof e.last_updated_at === "number" ? new Date(e.last_updated_at * 1000) : null,
      };
    }
    return out;
  });
}

const MarketRow = z.object({
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  current_price: nullableNum,
  market_cap: nullableNum,
  market_cap_rank: z.number().int().nullable().optional().transform((v) => v ?? null),
  total_volume: nullableNum,
  price_change_percentage_24h: nullableNum,
  circulating_supply: nullableNum,
  total_supply: nullableNum,
  max_supply: nullableNum,
  last_updated: z.string().nullable().optional().transform((v) => v ?? null),
});
export type MarketRow = z.infer<typeof MarketRow>;

/** `coins/markets` rows ordered by market cap (top `perPage`, or the given ids). */
export async function coinMarkets(opts: { ids?: string[]; perPage?: number; page?: number; vsCurrency?: "usd" | "btc" } & CacheOptions = {}): Promise<MarketRow[]> {
  const ids = opts.ids ? [...new Set(opts.ids)].sort().join(",") : undefined;
  const perPage = Math.min(opts.perPage ?? 50, 250);
  const vs = opts.vsCurrency ?? "usd";
  return cached(`cg:markets:${vs}:${ids ?? ""}:${perPage}:${opts.page ?? 1}`, 60_000, () =>
    fetchJson(
      coingecko,
      "/api/v3/coins/markets",
      {
        vs_currency: vs,
        ids,
        order: "market_cap_desc",
        per_page: perPage,
        page: opts.page ?? 1,
        price_change_percentage: "24h",
        sparkline: false,
      },
      z.array(MarketRow),
    ),
    { maxAgeMs: opts.maxAgeMs },
  );
}

const MarketChart = z.object({
  prices: z.array(z.tuple([num, num.nonnegative()])),
  market_caps: z.array(z.tuple([num, z.number().nullable()])).optional(),
  total_volumes: z.array(z.tuple([num, z.number().nullable()])).optional(),
});

export interface PricePoint {
  time: number; // ms
  price: number;
}

/**
 * Price history. `daily` asks for one point per day at 00:00 UTC (the last point is
 * "now", not a close, and is dropped). Otherwise CoinGecko picks the granularity:
 * hourly for 2..90 days (the keyless tier cannot request `interval=hourly`).
 */
export async function marketChart(id: string, days: number, granularity: "daily" | "auto"): Promise<PricePoint[]> {
  const ttl = granularity === "daily" ? 3_600_000 : 300_000;
  return cached(`cg:chart:${id}:${days}:${granularity}`, ttl, async () => {
    const raw = await fetchJson(
      coingecko,
      `/api/v3/coins/${encodeURIComponent(id)}/market_chart`,
      { vs_currency: "usd", days, interval: granularity === "daily" ? "daily" : undefined },
      MarketChart,
    );
    const points = raw.prices.filter(([, p]) => p > 0).map(([t, p]) => ({ time: t, price: p }));
    if (granularity === "daily" && points.length > 1) {
      const last = points[points.length - 1]!;
      // The trailing point is the current price at an arbitrary time of day.
      if (last.time % 86_400_000 !== 0) points.pop();
    }
    return points;
  });
}

const Global = z.object({
  data: z.object({
    active_cryptocurrencies: z.number().int(),
    markets: z.number().int().optional(),
    total_market_cap: z.record(z.string(), num),
    total_volume: z.record(z.string(), num),
    market_cap_percentage: z.record(z.string(), num),
    market_cap_change_percentage_24h_usd: num,
    updated_at: z.number().int(),
  }),
});
export type GlobalData = z.infer<typeof Global>["data"];

/** Global market figures (CoinGecko refreshes them every 10 minutes). */
export async function globalMarket(): Promise<GlobalData> {
  return cached("cg:global", 120_000, async () => (await fetchJson(coingecko, "/api/v3/global", {}, Global)).data);
}
