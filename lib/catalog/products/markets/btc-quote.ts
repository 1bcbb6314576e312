// GET /v1/btc-quote — Bitcoin price, 24h range, market cap, volume, supply and dominance.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { coingecko, globalMarket } from "@/lib/market/sources/coingecko";
import { coinQuotes } from "@/lib/market/sources/coingecko-extra";
import { upstreamFailure } from "@/lib/market/upstream";
import { dpOrNull, sig, sigOrNull } from "@/lib/catalog/products/markets/format";

const usd = (d: string) => z.number().nullable().describe(d);

export const btcQuote = defineProduct({
  id: "btc-quote",
  path: "/v1/btc-quote",
  title: "BTC quote",
  description:
    "Bitcoin spot price in USD with 24h change, 24h high/low, market cap, 24h volume, circulating and maximum supply, and BTC dominance of the whole crypto market.",
  tags: ["markets", "quote", "btc"],
  kind: "data",
  httpPrice: "0.005",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    symbol: z.literal("BTC").describe("Asset symbol"),
    price_usd: z.number().positive().describe("Last BTC price, USD (7 significant digits)"),
    change_24h_usd: usd("Absolute price change over 24 hours, USD"),
    change_24h_pct: z.number().nullable().describe("Price change over 24 hours, percent"),
    high_24h_usd: usd("Highest price of the last 24 hours, USD"),
    low_24h_usd: usd("Lowest price of the last 24 hours, USD"),
    market_cap_usd: usd("Market capitalisation, USD"),
    market_cap_rank: z.number().int().nullable().describe("Rank by market capitalisation"),
    volume_24h_usd: usd("Traded volume over 24 hours, USD"),
    circulating_supply: z.number().nullable().describe("Coins in circulation (BTC)"),
    max_supply: z.number().nullable().describe("Hard cap on supply (BTC)"),
    supply_mined_pct: z.number().nullable().describe("Circulating supply as a percentage of the maximum supply"),
    btc_dominance_pct: z.number().nullable().describe("Bitcoin's share of total crypto market cap, percent; null when the global figures are unavailable"),
    last_updated: z.string().nullable().describe("Time CoinGecko last updated the quote (ISO 8601)"),
    unavailable: z.array(z.string()).describe("Components that could not be fetched (e.g. 'global' for dominance); empty when complete"),
    source: z.literal("coingecko").describe("Upstream provider"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    symbol: "BTC",
    price_usd: 96551.38,
    change_24h_usd: 1545.926,
    change_24h_pct: 1.6272,
    high_24h_usd: 97601.65,
    low_24h_usd: 94436.37,
    market_cap_usd: 1911717278997,
    market_cap_rank: 1,
    volume_24h_usd: 68651872272,
    circulating_supply: 19800000,
    max_supply: 21000000,
    supply_mined_pct: 94.29,
    btc_dominance_pct: 55.38,
    last_updated: "2026-11-26T19:18:38.661Z",
    unavailable: [],
    source: "coingecko",
    ts: "2026-11-26T19:18:58.660Z",
  },
  cacheTtlSeconds: 60,
  sources: ["coingecko"],
  handler: async (_params, ctx) => {
    // Dominance is a nice-to-have: the quote is still served when /global is down.
    const [rowsR, globalR] = await Promise.allSettled([coinQuotes(["bitcoin"]), globalMarket()]);
    if (rowsR.status === "rejected") throw rowsR.reason;
    const row = rowsR.value.find((r) => r.id === "bitcoin");
    if (!row || row.current_price === null || !(row.current_price > 0)) upstreamFailure(coingecko, "no bitcoin market row");
    const dominance = globalR.status === "fulfilled" ? (globalR.value.market_cap_percentage.btc ?? null) : null;
    const circ = row.circulating_supply;
    const max = row.max_supply;
    return {
      symbol: "BTC" as const,
      price_usd: sig(row.current_price),
      change_24h_usd: sigOrNull(row.price_change_24h),
      change_24h_pct: dpOrNull(row.price_change_percentage_24h, 4),
      high_24h_usd: sigOrNull(row.high_24h),
      low_24h_usd: sigOrNull(row.low_24h),
      market_cap_usd: row.market_cap === null ? null : Math.round(row.market_cap),
      market_cap_rank: row.market_cap_rank,
      volume_24h_usd: row.total_volume === null ? null : Math.round(row.total_volume),
      circulating_supply: circ,
      max_supply: max,
      supply_mined_pct: circ !== null && max !== null && max > 0 ? dpOrNull((circ / max) * 100, 2) : null,
      btc_dominance_pct: dpOrNull(dominance, 2),
      last_updated: row.last_updated,
      unavailable: globalR.status === "fulfilled" ? [] : ["global"],
      source: "coingecko" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
