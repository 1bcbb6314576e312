// GET /v1/sentiment-report — raw components, directional verdict, live price and arbitrage context.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { env } from "@/lib/config/env";
import { directionalVerdict } from "@/lib/market/signals/verdict";
import { sentimentLabel } from "@/lib/market/signals/sentiment";
import { xlmArbitrage } from "@/lib/market/xlm/arbitrage";
import { failureReason } from "@/lib/market/xlm/failure";
import { dp, dpOrNull, sigOrNull } from "@/lib/market/xlm/format";
import { readXlmSentiment } from "@/lib/market/xlm/snapshot";
import { SDEX_BOOK_LEVELS } from "@/lib/market/xlm/sdex";
import { arbLegSchema, EXAMPLE_BEST_LEG, legOut } from "@/lib/catalog/products/xlm/arb-format";

const status = z.enum(["ok", "unavailable"]).describe("unavailable when the upstream failed (left out of the composite, weights renormalised)");
const score = z.number().min(-1).max(1).nullable().describe("Component score in [-1, 1]; null when unavailable");
const weight = z.number().min(0).max(1).describe("Weight applied in the composite (0 when unavailable)");
const error = z.string().nullable().describe("Why the component is unavailable; null when ok");

const output = z.object({
  sentiment: z.number().min(-1).max(1).describe("Composite XLM sentiment in [-1, 1], positive = bullish"),
  label: z.enum(["strongly_bearish", "bearish", "neutral", "bullish", "strongly_bullish"]).describe("Band of the composite"),
  verdict: z
    .object({
      direction: z.enum(["bullish", "bearish", "neutral"]).describe("composite ≥ 0.15 bullish, ≤ -0.15 bearish, otherwise neutral"),
      confidence: z.number().min(0).max(1).describe("Conviction in the lean: strength · (0.5 + 0.5·agreement) · (0.4 + 0.6·coverage)"),
      agreement: z.number().min(0).max(1).describe("Share of available components with the composite's sign"),
      rationale: z.array(z.string()).describe("How the verdict was reached"),
    })
    .describe("Directional verdict with confidence"),
  components: z
    .object({
      fear_greed: z.object({
        status,
        value: z.number().int().min(0).max(100).nullable().describe("Fear & Greed index 0-100"),
        classification: z.string().nullable().describe("Label published with the index (e.g. Fear, Greed)"),
        as_of: z.string().nullable().describe("Day the index belongs to (ISO 8601)"),
        score,
        weight,
        error,
      }),
      order_flow: z.object({
        status,
        imbalance: z.number().min(-1).max(1).nullable().describe("(bid depth - ask depth) / total over the top SDEX levels, both sides in XLM"),
        bid_depth_xlm: z.number().nonnegative().nullable().describe("XLM wanted by the bids (Horizon bid amounts are USDC, converted with each level's price)"),
        ask_depth_xlm: z.number().nonnegative().nullable().describe("XLM offered by the asks"),
        levels_per_side: z.number().int().positive().describe("Levels per side requested from Horizon"),
        score,
        weight,
        error,
      }),
      momentum: z.object({
        status,
        change_24h_pct: z.number().nullable().describe("XLM 24h price change, percent (CoinGecko)"),
        score,
        weight,
        error,
      }),
    })
    .describe("Raw inputs of the composite"),
  price: z
    .object({
      price_usd: z.number().positive().nullable().describe("Live XLM price in USD (CoinGecko, or SDEX mid when CoinGecko is down)"),
      price_source: z.enum(["coingecko", "sdex_mid"]).nullable().describe("Where price_usd came from"),
      xlm_btc: z.number().positive().nullable().describe("XLM price in BTC (CoinGecko)"),
      sdex_mid: z.number().positive().nullable().describe("SDEX XLM/USDC mid"),
      sdex_spread_pct: z.number().nullable().describe("SDEX spread, percent"),
    })
    .describe("Live price"),
  arbitrage: z
    .object({
      status: z.enum(["ok", "unavailable"]).describe("unavailable when the SDEX book or every CEX ticker failed"),
      verdict: z.enum(["go", "no_go"]).nullable().describe("go when a leg nets at least threshold_pct after fees"),
      best: arbLegSchema.nullable().describe("Best leg by net spread"),
      size_xlm: z.number().positive().describe("Trade size walked through the SDEX book"),
      threshold_pct: z.number().nullable().describe("Net spread needed for go, percent"),
      venues_unavailable: z.array(z.string()).describe("CEX venues that could not be read"),
      error: z.string().nullable().describe("Why the scan is unavailable; null when ok"),
    })
    .describe("CEX-to-SDEX arbitrage context (same computation as /v1/arb-opportunities)"),
  weights: z
    .object({ fear_greed: z.number(), order_flow: z.number(), momentum: z.number() })
    .describe("Configured weights (SENTIMENT_WEIGHTS, normalised to sum 1)"),
  degraded: z.boolean().describe("True when a component or the arbitrage context is unavailable"),
  missing: z.array(z.enum(["fear_greed", "order_flow", "momentum"])).describe("Unavailable sentiment components"),
  sources: z.array(z.string()).describe("Upstream providers used"),
  ts: z.string().describe("Time the report was computed (ISO 8601)"),
});

export const sentimentReport = defineProduct({
  id: "sentiment-report",
  path: "/v1/sentiment-report",
  title: "XLM sentiment report",
  description:
    "Full XLM sentiment report: raw components (Fear & Greed value and label, SDEX order-flow imbalance with depths, 24h momentum), the composite, a directional verdict with confidence, live price, and the CEX-to-SDEX arbitrage context.",
  tags: ["sentiment", "xlm", "report", "premium"],
  kind: "data",
  httpPrice: "0.05",
  tool: { name: "get_xlm_sentiment_report", price: "0.25", label: "XLM sentiment report" },
  credits: CREDIT_COSTS.premium_report,
  freeTier: false,
  params: {},
  output,
  example: {
    sentiment: 0.1794,
    label: "bullish",
    verdict: {
      direction: "bullish",
      confidence: 0.299,
      agreement: 0.6667,
      rationale: ["composite +0.1794 is ≥ +0.15 → bullish", "2/3 components share the composite's sign (fear_greed -0.3800, order_flow +0.1047, momentum +1.0000)"],
    },
    components: {
      fear_greed: {
        status: "ok",
        value: 31,
        classification: "Fear",
        as_of: "2026-11-26T00:00:00.000Z",
        score: -0.38,
        weight: 0.4,
        error: null,
      },
      order_flow: {
        status: "ok",
        imbalance: 0.1047,
        bid_depth_xlm: 308081.19,
        ask_depth_xlm: 249678.63,
        levels_per_side: 20,
        score: 0.1047,
        weight: 0.3,
        error: null,
      },
      momentum: {
        status: "ok",
        change_24h_pct: 5.9938,
        score: 1,
        weight: 0.3,
        error: null,
      },
    },
    price: {
      price_usd: 0.4202588,
      price_source: "coingecko",
      xlm_btc: 0.000004352696,
      sdex_mid: 0.4202953,
      sdex_spread_pct: 0.06,
    },
    arbitrage: {
      status: "ok",
      verdict: "no_go",
      best: EXAMPLE_BEST_LEG,
      size_xlm: 10000,
      threshold_pct: 0.5,
      venues_unavailable: [],
      error: null,
    },
    weights: {
      fear_greed: 0.4,
      order_flow: 0.3,
      momentum: 0.3,
    },
    degraded: false,
    missing: [],
    sources: ["alternative.me", "stellar-horizon"],
    ts: "2026-11-26T19:18:45.563Z",
  },
  cacheTtlSeconds: 15,
  sources: ["alternative", "horizon", "coingecko", "kraken", "coinbase", "binance"],
  handler: async (_params, ctx) => {
    // The arbitrage scan reads the same (cached, single-flight) SDEX book as the sentiment.
    const [r, arbR] = await Promise.all([readXlmSentiment(ctx.now), xlmArbitrage().then((v) => ({ ok: true as const, v }), (e: unknown) => ({ ok: false as const, e }))]);
    const c = r.composite;
    const v = directionalVerdict({ composite: c.score, components: r.scores });
    const w = (n: keyof typeof r.weights) => dp(c.weightsUsed[n] ?? 0, 4);
    const st = (n: keyof typeof r.weights) => (r.scores[n] === null ? ("unavailable" as const) : ("ok" as const));
    const book = r.sdex?.snapshot ?? null;
    const mid = book?.mid ?? null;
    const arbitrage = arbR.ok
      ? {
          status: "ok" as const,
          verdict: arbR.v.scan.verdict,
          best: arbR.v.scan.best ? legOut(arbR.v.scan.best) : null,
          size_xlm: arbR.v.sizeXlm,
          threshold_pct: arbR.v.scan.thresholdPct,
          venues_unavailable: arbR.v.venues.filter((x) => x.status === "unavailable").map((x) => x.error ?? x.venue),
          error: null,
        }
      : {
          status: "unavailable" as const,
          verdict: null,
          best: null,
          size_xlm: env().ARB_TRADE_SIZE_XLM,
          threshold_pct: null,
          venues_unavailable: [],
          error: failureReason(arbR.e, "arbitrage"),
        };
    const sources = [
      ...(r.fng ? ["alternative.me"] : []),
      ...(r.sdex ? ["stellar-horizon"] : []),
      ...(r.quote ? ["coingecko"] : []),
      ...(arbR.ok ? arbR.v.venues.filter((x) => x.status === "ok").map((x) => x.venue) : []),
    ];
    return {
      sentiment: c.score,
      label: sentimentLabel(c.score),
      verdict: { direction: v.verdict, confidence: v.confidence, agreement: v.agreement, rationale: v.rationale },
      components: {
        fear_greed: {
          status: st("fear_greed"),
          value: r.fng?.value ?? null,
          classification: r.fng?.label ?? null,
          as_of: r.fng ? r.fng.time.toISOString() : null,
          score: dpOrNull(r.scores.fear_greed, 4),
          weight: w("fear_greed"),
          error: r.errors.fear_greed,
        },
        order_flow: {
          status: st("order_flow"),
          imbalance: dpOrNull(r.raw.order_flow, 4),
          bid_depth_xlm: dpOrNull(book?.bidDepthXlm, 2),
          ask_depth_xlm: dpOrNull(book?.askDepthXlm, 2),
          levels_per_side: SDEX_BOOK_LEVELS,
          score: dpOrNull(r.scores.order_flow, 4),
          weight: w("order_flow"),
          error: r.errors.order_flow,
        },
        momentum: {
          status: st("momentum"),
          change_24h_pct: dpOrNull(r.raw.momentum, 4),
          score: dpOrNull(r.scores.momentum, 4),
          weight: w("momentum"),
          error: r.errors.momentum,
        },
      },
      price: {
        price_usd: sigOrNull(r.quote?.usd ?? mid, 7),
        price_source: r.quote ? ("coingecko" as const) : mid !== null ? ("sdex_mid" as const) : null,
        xlm_btc: sigOrNull(r.quote?.btc, 7),
        sdex_mid: sigOrNull(mid, 7),
        sdex_spread_pct: dpOrNull(book?.spreadPct, 4),
      },
      arbitrage,
      weights: { fear_greed: dp(r.weights.fear_greed, 4), order_flow: dp(r.weights.order_flow, 4), momentum: dp(r.weights.momentum, 4) },
      degraded: c.missing.length > 0 || !arbR.ok,
      missing: [...c.missing],
      sources,
      ts: ctx.now.toISOString(),
    };
  },
});
