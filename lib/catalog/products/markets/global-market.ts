// GET /v1/global-market — total crypto market cap, 24h volume, BTC/ETH dominance.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { coingecko, globalMarket } from "@/lib/market/sources/coingecko";
import { upstreamFailure } from "@/lib/market/upstream";
import { dp, dpOrNull } from "@/lib/catalog/products/markets/format";

export const globalMarketProduct = defineProduct({
  id: "global-market",
  path: "/v1/global-market",
  title: "Global crypto market",
  description:
    "Total crypto market capitalisation and 24h volume in USD, BTC and ETH dominance, 24h market-cap change and the number of active cryptocurrencies (CoinGecko global figures, refreshed upstream every 10 minutes).",
  tags: ["markets", "macro"],
  kind: "data",
  httpPrice: "0.01",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    total_market_cap_usd: z.number().nonnegative().describe("Total market capitalisation of all tracked cryptocurrencies, USD"),
    total_volume_24h_usd: z.number().nonnegative().describe("Total traded volume over the last 24 hours, USD"),
    volume_to_market_cap_pct: z.number().nullable().describe("24h volume as a percentage of total market cap (turnover)"),
    btc_dominance_pct: z.number().nullable().describe("Bitcoin's share of total market cap, percent"),
    eth_dominance_pct: z.number().nullable().describe("Ethereum's share of total market cap, percent"),
    market_cap_change_24h_pct: z.number().describe("Change of total market cap over 24 hours, percent"),
    active_cryptocurrencies: z.number().int().describe("Number of cryptocurrencies CoinGecko tracks as active"),
    markets: z.number().int().nullable().describe("Number of exchanges (markets) CoinGecko tracks"),
    updated_at: z.string().describe("Time CoinGecko last refreshed these figures (ISO 8601)"),
    source: z.literal("coingecko").describe("Upstream provider"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    total_market_cap_usd: 3452154637222,
    total_volume_24h_usd: 216399205043,
    volume_to_market_cap_pct: 6.27,
    btc_dominance_pct: 55.38,
    eth_dominance_pct: 11.79,
    market_cap_change_24h_pct: 0.76,
    active_cryptocurrencies: 17512,
    markets: 1301,
    updated_at: "2026-11-26T19:18:16.000Z",
    source: "coingecko",
    ts: "2026-11-26T19:18:58.676Z",
  },
  // Market rows change by the minute; CoinGecko itself refreshes global figures every 10 min.
  cacheTtlSeconds: 60,
  sources: ["coingecko"],
  handler: async (_params, ctx) => {
    const g = await globalMarket();
    const cap = g.total_market_cap.usd;
    const vol = g.total_volume.usd;
    if (cap === undefined || vol === undefined) upstreamFailure(coingecko, "global figures lack USD totals");
    return {
      total_market_cap_usd: Math.round(cap),
      total_volume_24h_usd: Math.round(vol),
      volume_to_market_cap_pct: cap > 0 ? dp((vol / cap) * 100, 2) : null,
      btc_dominance_pct: dpOrNull(g.market_cap_percentage.btc, 2),
      eth_dominance_pct: dpOrNull(g.market_cap_percentage.eth, 2),
      market_cap_change_24h_pct: dp(g.market_cap_change_percentage_24h_usd, 2),
      active_cryptocurrencies: g.active_cryptocurrencies,
      markets: g.markets ?? null,
      updated_at: new Date(g.updated_at * 1000).toISOString(),
      source: "coingecko" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
