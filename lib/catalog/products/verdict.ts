// GET /v1/verdict — one normalised trading verdict fusing composite sentiment, F&G, momentum and breadth.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { readXlmSentiment } from "@/lib/market/xlm/snapshot";
import { computeBreadth } from "@/lib/catalog/products/markets/breadth";
import { breadthToScore, fusedVerdict } from "@/lib/market/signals/verdict";
import { UnavailableError } from "@/lib/errors";
import { round } from "@/lib/market/signals/math";

const reason = (r: PromiseSettledResult<unknown>) => (r.status === "rejected" ? ((r.reason as Error)?.message ?? "failed").slice(0, 200) : null);

export const verdict = defineProduct({
  id: "verdict",
  path: "/v1/verdict",
  title: "Fused XLM verdict",
  description: "Single normalised XLM trading verdict (strong_buy..strong_sell) with a confidence grade, fusing composite sentiment, Fear & Greed, 24h momentum and market breadth.",
  tags: ["sentiment", "xlm", "signal"],
  kind: "data",
  httpPrice: "0.005",
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: z.object({
    verdict: z.enum(["strong_buy", "buy", "hold", "sell", "strong_sell"]),
    score: z.number().min(-1).max(1).describe("Weighted mean of the inputs: composite 0.40, breadth 0.25, momentum 0.20, fear_greed 0.15 (renormalised over available inputs)"),
    confidence: z.number().min(0).max(1).describe("coverage x (0.5 + 0.5 x agreement) x (0.5 + 0.5 x strength)"),
    grade: z.enum(["A", "B", "C", "D"]).describe("A >= 0.75, B >= 0.5, C >= 0.25, else D"),
    agreement: z.number().min(0).max(1).describe("Share of inputs on the verdict's side"),
    coverage: z.number().min(0).max(1).describe("Sum of the weights of the available inputs"),
    inputs: z.object({
      composite: z.number().nullable().describe("Composite XLM sentiment, -1..1"),
      fear_greed: z.number().nullable().describe("Fear & Greed mapped to -1..1"),
      momentum: z.number().nullable().describe("24h momentum score, -1..1"),
      breadth: z.number().nullable().describe("Breadth score: 0.5 x (breadth% - 50)/50 + 0.5 x mean change/5, clamped"),
    }),
    breadth: z.object({ breadth_pct: z.number(), mean_change_24h_pct: z.number(), regime: z.string() }).nullable(),
    price_usd: z.number().nullable(),
    missing: z.array(z.string()).describe("Inputs that were unavailable"),
    errors: z.record(z.string(), z.string()).describe("Why each missing input is unavailable"),
    ts: z.string(),
  }),
  example: {
    verdict: "buy",
    score: 0.2209,
    confidence: 0.6308,
    grade: "B",
    agreement: 0.75,
    coverage: 1,
    inputs: {
      composite: 0.1469,
      fear_greed: -0.38,
      momentum: 1,
      breadth: 0.0766,
    },
    breadth: {
      breadth_pct: 56,
      mean_change_24h_pct: 0.166,
      regime: "mild_risk_on",
    },
    price_usd: 0.4202588,
    missing: [],
    errors: {},
    ts: "2026-11-26T19:18:58.385Z",
  },
  cacheTtlSeconds: 15,
  sources: ["alternative", "horizon", "coingecko"],
  handler: async (_p, ctx) => {
    const [sR, bR] = await Promise.allSettled([readXlmSentiment(ctx.now), computeBreadth(ctx.now)]);
    const s = sR.status === "fulfilled" ? sR.value : null;
    const b = bR.status === "fulfilled" ? bR.value : null;
    const breadthScore = b ? breadthToScore(b.breadth_pct, b.mean_change_24h_pct) : null;
    const fused = fusedVerdict({
      composite: s?.composite.score ?? null,
      fngScore: s?.scores.fear_greed ?? null,
      momentum: s?.scores.momentum ?? null,
      breadthScore,
    });
    if (!fused) {
      throw new UnavailableError("The verdict is unavailable: neither sentiment nor breadth could be computed.", { sources: ["alternative", "horizon", "coingecko"] });
    }
    const errors: Record<string, string> = {};
    if (!s) errors.composite = reason(sR) ?? "unavailable";
    else for (const [k, e] of Object.entries(s.errors)) if (e) errors[k === "order_flow" ? "composite.order_flow" : k] = e;
    if (!b) errors.breadth = reason(bR) ?? "unavailable";
    const r4 = (x: number | null) => (x === null ? null : round(x, 4));
    return {
      verdict: fused.verdict,
      score: fused.score,
      confidence: fused.confidence,
      grade: fused.grade,
      agreement: fused.agreement,
      coverage: fused.coverage,
      inputs: {
        composite: r4(s?.composite.score ?? null),
        fear_greed: r4(s?.scores.fear_greed ?? null),
        momentum: r4(s?.scores.momentum ?? null),
        breadth: r4(breadthScore),
      },
      breadth: b ? { breadth_pct: b.breadth_pct, mean_change_24h_pct: b.mean_change_24h_pct, regime: b.regime } : null,
      price_usd: s?.quote?.usd ?? null,
      missing: fused.missing,
      errors,
      ts: ctx.now.toISOString(),
    };
  },
});
