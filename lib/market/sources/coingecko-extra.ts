/**
 * CoinGecko calls the base adapter (`coingecko.ts`) does not cover. `coins/markets`
 * rows carry the 24h high/low and the absolute 24h change, which `coinMarkets` drops
 * from its schema; the quote products need them.
 */
import { z } from "zod";
import { cached } from "@/lib/market/cache";
import { coingecko } from "@/lib/market/sources/coingecko";
import { fetchJson } from "@/lib/market/upstream";

const nullableNum = z.number().finite().nullable().optional().transform((v) => v ?? null);

const QuoteRow = z.object({
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  current_price: nullableNum,
  market_cap: nullableNum,
  market_cap_rank: z.number().int().nullable().optional().transform((v) => v ?? null),
  fully_diluted_valuation: nullableNum,
  total_volume: nullableNum,
  high_24h: nullableNum,
  low_24h: nullableNum,
  price_change_24h: nullableNum,
  price_change_percentage_24h: nullableNum,
  circulating_supply: nullableNum,
  total_supply: nullableNum,
  max_supply: nullableNum,
  ath: nullableNum,
  ath_date: z.string().nullable().optional().transform((v) => v ?? null),
  last_updated: z.string().nullable().optional().transform((v) => v ?? null),
});
export type QuoteRow = z.infer<typeof QuoteRow>;

/** Full `coins/markets` rows (USD) for the given CoinGecko ids, including 24h high/low. */
export async function coinQuotes(ids: string[]): Promise<QuoteRow[]> {
  const sorted = [...new Set(ids)].sort().join(",");
  return cached(`cg:quotes:${sorted}`, 60_000, () =>
    fetchJson(
      coingecko,
      "/api/v3/coins/markets",
      { vs_currency: "usd", ids: sorted, order: "market_cap_desc", per_page: 250, page: 1, price_change_percentage: "24h", sparkline: false },
      z.array(QuoteRow),
    ),
  );
}
