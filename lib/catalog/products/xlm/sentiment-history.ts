// GET /v1/sentiment-history?hours=24 — hourly composite XLM sentiment series.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { intParam } from "@/lib/catalog/params";
import { defineProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { getFearGreed, type FngPoint } from "@/lib/market/sources/alternative-me";
import { marketChart, type PricePoint } from "@/lib/market/sources/coingecko";
import { compositeSentiment, fngToScore, momentumScore, sentimentLabel } from "@/lib/market/signals/sentiment";
import { failureReason } from "@/lib/market/xlm/failure";
import { dp, dpOrNull, sig } from "@/lib/market/xlm/format";
import { sdexBook } from "@/lib/market/xlm/sdex";
import { sentimentWeights } from "@/lib/market/xlm/weights";

const HOUR = 3_600_000;
/** Longest gap between two price points that is still interpolated (CoinGecko skips an hour now and then). */
const MAX_GAP_MS = 3 * HOUR;
/** How stale the newest price point may be for the latest bar. */
const MAX_LAG_MS = HOUR;

const scoreOrNull = z.number().min(-1).max(1).nullable();
const bar = z.object({
  ts: z.string().describe("Time of the bar (ISO 8601); bars are exactly one hour apart and the last one is the request time"),
  price_usd: z.number().positive().describe("XLM price in USD at ts (linear interpolation between CoinGecko's hourly points)"),
  momentum_24h_pct: z.number().nullable().describe("price at ts / price 24 h earlier - 1, percent; null when the history does not reach back 24 h"),
  fng: z.number().int().min(0).max(100).nullable().describe("Fear & Greed index of the UTC day of ts (daily index); null when unavailable"),
  components: z
    .object({
      fear_greed: scoreOrNull.describe("(fng - 50) / 50"),
      order_flow: scoreOrNull.describe("Current SDEX order-flow imbalance, on the latest bar only (order-book history is not available); null on older bars"),
      momentum: scoreOrNull.describe("clamp(momentum_24h_pct / 5, -1, 1)"),
    })
    .describe("Component scores of the bar; null where the input is unknown"),
  sentiment: z.number().min(-1).max(1).nullable().describe("Composite of the bar with the configured weights, renormalised over the non-null components"),
  label: z.enum(["strongly_bearish", "bearish", "neutral", "bullish", "strongly_bullish"]).nullable().describe("Band of the composite"),
});

const output = z.object({
  hours: z.number().int().describe("Bars requested"),
  bars: z.array(bar).describe("Hourly bars, oldest first; exactly `hours` bars when the price history covers the window"),
  weights: z
    .object({ fear_greed: z.number(), order_flow: z.number(), momentum: z.number() })
    .describe("Configured weights (SENTIMENT_WEIGHTS, normalised to sum 1); each bar renormalises over its non-null components"),
  order_flow_note: z.string().describe("Why order flow appears on the latest bar only"),
  degraded: z.boolean().describe("True when Fear & Greed or the current order book was unavailable"),
  unavailable: z.array(z.string()).describe("Inputs that could not be read and why (empty when complete)"),
  sources: z.array(z.string()).describe("Upstream providers used"),
  ts: z.string().describe("Time the series was computed (ISO 8601)"),
});

/** Price at `t` by linear interpolation; null outside the data or across a long gap. */
export function interpolatePrice(points: readonly PricePoint[], t: number): number | null {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last || t < first.time) return null;
  if (t >= last.time) return t - last.time <= MAX_LAG_MS ? last.price : null;
  let lo = 0;
  let hi = points.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.time <= t) lo = mid;
    else hi = mid;
  }
  const a = points[lo]!;
  const b = points[hi]!;
  if (b.time - a.time > MAX_GAP_MS) return null;
  if (b.time === a.time) return a.price;
  return a.price + ((b.price - a.price) * (t - a.time)) / (b.time - a.time);
}

/** Fear & Greed value in force at `t`: the newest daily entry starting at or before `t`. */
function fngAt(points: readonly FngPoint[], t: number): number | null {
  let best: FngPoint | null = null;
  for (const p of points) if (p.time.getTime() <= t && (!best || p.time > best.time)) best = p;
  return best?.value ?? null;
}

export const sentimentHistory = defineProduct({
  id: "sentiment-history",
  path: "/v1/sentiment-history",
  title: "XLM sentiment history",
  description:
    "Hourly XLM sentiment series (up to 168 bars): momentum reconstructed from hourly prices (24h change at each bar), the daily Fear & Greed index of each bar's day, and the current SDEX order flow on the latest bar only, combined with the same weights as /v1/sentiment.",
  tags: ["sentiment", "xlm", "history"],
  kind: "data",
  httpPrice: "0.10",
  tool: { name: "get_xlm_sentiment_history", price: "0.25", label: "XLM sentiment history" },
  credits: CREDIT_COSTS.premium_report,
  freeTier: false,
  params: {
    hours: intParam({ description: "Number of hourly bars to return (1-168).", min: 1, max: 168, default: 24 }),
  },
  output,
  example: {
    hours: 24,
    bars: [
      {
        ts: "2026-11-25T20:18:45.665Z",
        price_usd: 0.3936938,
        momentum_24h_pct: -3.1065,
        fng: 35,
        components: {
          fear_greed: -0.3,
          order_flow: null,
          momentum: -0.6213,
        },
        sentiment: -0.4377,
        label: "bearish",
      },
    ],
    weights: {
      fear_greed: 0.4,
      order_flow: 0.3,
      momentum: 0.3,
    },
    order_flow_note: "Order-book history is not available, so order flow is the current SDEX imbalance on the latest bar only; older bars renormalise the weights over fear_greed and momentum.",
    degraded: false,
    unavailable: [],
    sources: ["coingecko", "alternative.me"],
    ts: "2026-11-26T19:18:45.665Z",
  },
  cacheTtlSeconds: 60,
  sources: ["coingecko", "alternative", "horizon"],
  handler: async ({ hours }, ctx) => {
    const weights = sentimentWeights();
    // Keyless CoinGecko returns hourly points for 2..90 days; one extra day covers the 24h look-back.
    const days = Math.max(2, Math.ceil(hours / 24) + 1);
    const [chartR, fngR, bookR] = await Promise.allSettled([marketChart("stellar", days, "auto"), getFearGreed(days + 1), sdexBook()]);
    if (chartR.status === "rejected") {
      throw new UnavailableError(`XLM sentiment history is unavailable: hourly prices could not be read (${failureReason(chartR.reason, "prices")}).`, {
        sources: ["coingecko"],
      });
    }
    const points = [...chartR.value].sort((a, b) => a.time - b.time);
    const fng = fngR.status === "fulfilled" ? fngR.value : [];
    const unavailable: string[] = [];
    if (fngR.status === "rejected") unavailable.push(`fear_greed: ${failureReason(fngR.reason, "fear_greed")}`);
    const imbalance = bookR.status === "fulfilled" ? bookR.value.imbalance : null;
    if (bookR.status === "rejected") unavailable.push(`order_flow: ${failureReason(bookR.reason, "order_flow")}`);

    const now = ctx.now.getTime();
    const bars: Array<z.infer<typeof bar>> = [];
    for (let k = hours - 1; k >= 0; k--) {
      const t = now - k * HOUR;
      const price = interpolatePrice(points, t);
      if (price === null) continue; // outside the history: fewer bars rather than invented ones
      const before = interpolatePrice(points, t - 24 * HOUR);
      const momentumPct = before === null ? null : (price / before - 1) * 100;
      const index = fngAt(fng, t);
      const scores = {
        fear_greed: index === null ? null : fngToScore(index),
        order_flow: k === 0 ? imbalance : null,
        momentum: momentumPct === null ? null : momentumScore(momentumPct),
      };
      const composite = compositeSentiment(scores, weights);
      bars.push({
        ts: new Date(t).toISOString(),
        price_usd: sig(price, 7),
        momentum_24h_pct: dpOrNull(momentumPct, 4),
        fng: index,
        components: { fear_greed: dpOrNull(scores.fear_greed, 4), order_flow: dpOrNull(scores.order_flow, 4), momentum: dpOrNull(scores.momentum, 4) },
        sentiment: composite?.score ?? null,
        label: composite ? sentimentLabel(composite.score) : null,
      });
    }
    if (bars.length === 0) {
      throw new UnavailableError("XLM sentiment history is unavailable: the price history does not cover the requested window.", { sources: ["coingecko"] });
    }
    return {
      hours,
      bars,
      weights: { fear_greed: dp(weights.fear_greed, 4), order_flow: dp(weights.order_flow, 4), momentum: dp(weights.momentum, 4) },
      order_flow_note:
        "Order-book history is not available, so order flow is the current SDEX imbalance on the latest bar only; older bars renormalise the weights over fear_greed and momentum.",
      degraded: unavailable.length > 0,
      unavailable,
      sources: ["coingecko", ...(fngR.status === "fulfilled" ? ["alternative.me"] : []), ...(bookR.status === "fulfilled" ? ["stellar-horizon"] : [])],
      ts: ctx.now.toISOString(),
    };
  },
});
