// GET /v1/top-movers — top 10 gainers and losers over 24h among liquid non-stablecoins.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { isStablecoin, topMovers } from "@/lib/market/signals/breadth";
import { coinMarkets } from "@/lib/market/sources/coingecko";
import { dp, sig } from "@/lib/catalog/products/markets/format";

/** Rows scanned: CoinGecko's maximum page, i.e. the top 250 by market cap. */
export const MARKET_ROWS = 250;
/** Coins with less 24h volume are left out: thin books produce noisy moves. */
export const MIN_VOLUME_USD = 1_000_000;
export const MOVERS_N = 10;

const mover = z.object({
  symbol: z.string().describe("Ticker symbol, upper case"),
  name: z.string().describe("Coin name"),
  coingecko_id: z.string().describe("CoinGecko coin id"),
  price_usd: z.number().describe("Current price, USD (7 significant digits)"),
  change_24h_pct: z.number().describe("Price change over 24 hours, percent"),
  volume_24h_usd: z.number().describe("Traded volume over 24 hours, USD"),
  market_cap_rank: z.number().int().nullable().describe("Rank by market capitalisation"),
});

export const topMoversProduct = defineProduct({
  id: "top-movers",
  path: "/v1/top-movers",
  title: "Top movers",
  description: `Top ${MOVERS_N} gainers and losers over 24 hours among the top ${MARKET_ROWS} cryptocurrencies by market cap, stablecoins excluded and 24h volume at least $1M, with price, change, volume and market-cap rank.`,
  tags: ["markets", "movers"],
  kind: "data",
  httpPrice: "0.005",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    gainers: z.array(mover).describe("Biggest 24h gains, largest first (only coins that rose)"),
    losers: z.array(mover).describe("Biggest 24h losses, largest first (only coins that fell)"),
    universe: z.number().int().describe("Market rows scanned (top by market cap)"),
    eligible: z.number().int().describe("Rows left after dropping stablecoins, unknown changes and volume under the minimum"),
    min_volume_usd: z.number().describe("Minimum 24h volume, USD"),
    source: z.literal("coingecko").describe("Upstream provider"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    gainers: [
      {
        symbol: "CRV",
        name: "Curve DAO",
        coingecko_id: "curve-dao-token",
        price_usd: 0.9528688,
        change_24h_pct: 14.66,
        volume_24h_usd: 39940368,
        market_cap_rank: 57,
      },
    ],
    losers: [
      {
        symbol: "PEPE",
        name: "Pepe",
        coingecko_id: "pepe",
        price_usd: 0.0000191615,
        change_24h_pct: -11.64,
        volume_24h_usd: 680884333,
        market_cap_rank: 21,
      },
    ],
    universe: 62,
    eligible: 56,
    min_volume_usd: 1000000,
    source: "coingecko",
    ts: "2026-11-26T19:18:58.465Z",
  },
  cacheTtlSeconds: 60,
  sources: ["coingecko"],
  handler: async (_params, ctx) => {
    const rows = await coinMarkets({ perPage: MARKET_ROWS });
    const coins = rows
      .filter((r) => r.current_price !== null && r.current_price > 0)
      .map((r) => ({
        id: r.id,
        symbol: r.symbol,
        name: r.name,
        price: r.current_price!,
        change24hPct: r.price_change_percentage_24h,
        volumeUsd: r.total_volume,
        rank: r.market_cap_rank,
      }));
    const movers = topMovers(coins, { n: MOVERS_N, minVolumeUsd: MIN_VOLUME_USD });
    const eligible = coins.filter(
      (c) => !isStablecoin(c) && c.change24hPct !== null && c.volumeUsd !== null && c.volumeUsd >= MIN_VOLUME_USD,
    ).length;
    const out = (c: (typeof coins)[number]) => ({
      symbol: c.symbol.toUpperCase(),
      name: c.name,
      coingecko_id: c.id,
      price_usd: sig(c.price),
      change_24h_pct: dp(c.change24hPct!, 2),
      volume_24h_usd: Math.round(c.volumeUsd!),
      market_cap_rank: c.rank,
    });
    return {
      gainers: movers.gainers.map(out),
      losers: movers.losers.map(out),
      universe: rows.length,
      eligible,
      min_volume_usd: MIN_VOLUME_USD,
      source: "coingecko" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
