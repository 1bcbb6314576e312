// GET /v1/fng — Fear & Greed index, label and mapped sentiment score.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { getFearGreed } from "@/lib/market/sources/alternative-me";
import { fngToScore } from "@/lib/market/signals/sentiment";
import { round } from "@/lib/market/signals/math";

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

export const fng = defineProduct({
  id: "fng",
  path: "/v1/fng",
  title: "Fear & Greed index",
  description: "Crypto Fear & Greed index (0-100) with its label, the mapped sentiment score in -1..1, 7- and 30-day means and the change from yesterday.",
  tags: ["sentiment", "macro"],
  kind: "data",
  httpPrice: "0.01",
  tool: { name: "get_fear_greed_index", price: "0.01", label: "Fear & Greed index" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    index: z.number().int().min(0).max(100).describe("Latest Fear & Greed value, 0 = extreme fear, 100 = extreme greed"),
    label: z.string().describe("Classification published with the value"),
    score: z.number().min(-1).max(1).describe("(index - 50) / 50: sentiment in -1..1"),
    as_of: z.string().describe("Day the value belongs to (ISO 8601)"),
    mean_7d: z.number().nullable(),
    mean_30d: z.number().nullable(),
    change_1d: z.number().nullable().describe("Index points versus the previous day"),
    source: z.literal("alternative.me"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    index: 31,
    label: "Fear",
    score: -0.38,
    as_of: "2026-11-26T00:00:00.000Z",
    mean_7d: 39.86,
    mean_30d: 43.9,
    change_1d: -4,
    source: "alternative.me",
    ts: "2026-11-26T19:18:45.754Z",
  },
  cacheTtlSeconds: 300,
  sources: ["alternative"],
  handler: async (_params, ctx) => {
    const points = await getFearGreed(31);
    const latest = points[0]!;
    const values = points.map((p) => p.value);
    const m7 = mean(values.slice(0, 7));
    const m30 = mean(values.slice(0, 30));
    return {
      index: latest.value,
      label: latest.label,
      score: fngToScore(latest.value),
      as_of: latest.time.toISOString(),
      mean_7d: m7 === null ? null : round(m7, 2),
      mean_30d: m30 === null ? null : round(m30, 2),
      change_1d: points[1] ? latest.value - points[1].value : null,
      source: "alternative.me" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
