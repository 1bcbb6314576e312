// GET /v1/prediction — top Polymarket markets by 24h volume with implied odds.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { intParam } from "@/lib/catalog/params";
import { topMarketsByVolume } from "@/lib/market/sources/polymarket";
import { summarizeMarket } from "@/lib/market/signals/prediction";
import { dpOrNull } from "@/lib/catalog/products/onchain/format";

const DAY = 86_400_000;
const prob = (d: string) => z.number().min(0).max(1).nullable().describe(d);

const Market = z.object({
  rank: z.number().int().positive().describe("Position by 24h volume (1 = most traded)"),
  question: z.string().describe("Market question"),
  slug: z.string().nullable().describe("Polymarket market slug"),
  url: z.string().nullable().describe("Polymarket page of the market"),
  end_date: z.string().nullable().describe("Scheduled end / resolution date (ISO 8601); null when unknown"),
  days_to_end: z.number().nullable().describe("Days from now to end_date (negative once passed but not yet resolved); null when unknown"),
  volume_24h_usd: z.number().nullable().describe("Traded volume over the last 24 hours, USD; null when Polymarket reports none"),
  volume_usd: z.number().nullable().describe("Lifetime traded volume, USD"),
  liquidity_usd: z.number().nullable().describe("Order-book liquidity, USD"),
  outcomes: z
    .array(
      z.object({
        outcome: z.string().describe("Outcome name (e.g. Yes / No, or a team)"),
        probability: z.number().min(0).max(1).describe("Implied probability 0..1 (the outcome's mid price in USDC)"),
      }),
    )
    .describe("Implied odds per outcome; empty when the market has no prices yet"),
  leading_outcome: z.string().nullable().describe("Outcome with the highest implied probability"),
  leading_probability: prob("Implied probability of the leading outcome"),
  yes_probability: prob("Probability of 'Yes' for Yes/No markets; null otherwise"),
  overround: z.number().nullable().describe("Sum of the outcome probabilities minus 1 (≈0 for a fresh two-sided book)"),
});

export const prediction = defineProduct({
  id: "prediction",
  path: "/v1/prediction",
  title: "Prediction market pulse",
  description:
    "Top active, open Polymarket markets by 24h volume with the implied probability (0..1) of each outcome, 24h and lifetime volume, liquidity, end date and the market's slug / URL. `limit` (1-50, default 10) sets how many markets are returned.",
  tags: ["prediction-markets", "polymarket", "sentiment"],
  kind: "data",
  httpPrice: "0.02",
  tool: { name: "get_prediction_market_pulse", price: "0.02", label: "Prediction market pulse" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    limit: intParam({ description: "Number of markets to return (1-50).", min: 1, max: 50, default: 10 }),
  },
  output: z.object({
    markets: z.array(Market).describe("Markets ordered by 24h volume, highest first"),
    count: z.number().int().nonnegative().describe("Number of markets returned (may be below limit when fewer are open)"),
    limit: z.number().int().describe("Requested limit"),
    total_volume_24h_usd: z.number().nonnegative().describe("Sum of the returned markets' 24h volume, USD"),
    source: z.literal("polymarket").describe("Upstream provider (Polymarket Gamma API)"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    markets: [
      {
        rank: 1,
        question: "Will an XRP spot ETF be approved this year?",
        slug: "will-an-xrp-spot-etf-be-approved-this-year",
        url: "https://polymarket.com/event/an-xrp-spot-etf-be-approved-this-year",
        end_date: "2027-06-22T12:00:00.000Z",
        days_to_end: 207.7,
        volume_24h_usd: 6692914.54,
        volume_usd: 427680204.64,
        liquidity_usd: 122804.22,
        outcomes: [
          {
            outcome: "Yes",
            probability: 0.5805,
          },
        ],
        leading_outcome: "Yes",
        leading_probability: 0.5805,
        yes_probability: 0.5805,
        overround: 0,
      },
    ],
    count: 10,
    limit: 10,
    total_volume_24h_usd: 24664779.74,
    source: "polymarket",
    ts: "2026-11-26T19:18:58.799Z",
  },
  cacheTtlSeconds: 60,
  sources: ["polymarket"],
  handler: async ({ limit }, ctx) => {
    const all = await topMarketsByVolume();
    const now = ctx.now.getTime();
    const markets = all.slice(0, limit).map((m, i) => {
      const s = summarizeMarket(m);
      const eventSlug = m.events.find((e) => e.slug)?.slug ?? null;
      const end = m.endDate ? Date.parse(m.endDate) : Number.NaN;
      return {
        rank: i + 1,
        question: m.question,
        slug: m.slug,
        url: eventSlug || m.slug ? `https://polymarket.com/event/${eventSlug ?? m.slug}` : null,
        end_date: Number.isFinite(end) ? new Date(end).toISOString() : null,
        days_to_end: Number.isFinite(end) ? dpOrNull((end - now) / DAY, 1) : null,
        volume_24h_usd: dpOrNull(s.volume24hUsd, 2),
        volume_usd: dpOrNull(s.volumeUsd, 2),
        liquidity_usd: dpOrNull(s.liquidityUsd, 2),
        outcomes: s.outcomes.map((o) => ({ outcome: o.outcome, probability: dpOrNull(o.probability, 4)! })),
        leading_outcome: s.leading?.outcome ?? null,
        leading_probability: s.leading ? dpOrNull(s.leading.probability, 4) : null,
        yes_probability: dpOrNull(s.yesProbability, 4),
        overround: dpOrNull(s.overround, 4),
      };
    });
    return {
      markets,
      count: markets.length,
      limit,
      total_volume_24h_usd: dpOrNull(markets.reduce((a, m) => a + (m.volume_24h_usd ?? 0), 0), 2)!,
      source: "polymarket" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
