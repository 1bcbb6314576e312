/**
 * The composite XLM sentiment snapshot (spec 2.1): Fear & Greed, SDEX order-flow
 * imbalance and 24h momentum, fetched in parallel and combined with the configured
 * weights. A component whose upstream is down is reported as unavailable and the other
 * weights are renormalised; with all three down there is no score (UnavailableError).
 *
 * `xlmSnapshot` is the full object (/v1/sentiment and the free MCP tool
 * get_xlm_sentiment); `sampleFromSnapshot` the reduced one for the free /v1/sample.
 */
import { z } from "zod";
import { UnavailableError } from "@/lib/errors";
import { getFearGreed, type FngPoint } from "@/lib/market/sources/alternative-me";
import { simplePrice, type SimplePriceQuote } from "@/lib/market/sources/coingecko";
import {
  COMPONENT_NAMES,
  compositeSentiment,
  fngToScore,
  momentumScore,
  sentimentLabel,
  type ComponentName,
  type CompositeSentiment,
  type Weights,
} from "@/lib/market/signals/sentiment";
import { sdexBook, type SdexBook } from "@/lib/market/xlm/sdex";
import { sentimentWeights } from "@/lib/market/xlm/weights";
import { failureReason } from "@/lib/market/xlm/failure";
import { dp, dpOrNull, sigOrNull } from "@/lib/market/xlm/format";

/** Where each component comes from (also the `source` field of each component). */
export const COMPONENT_SOURCES: Record<ComponentName, string> = {
  fear_greed: "alternative.me",
  order_flow: "stellar-horizon",
  momentum: "coingecko",
};

/** Everything one sentiment computation read, for products that show more than the snapshot. */
export interface XlmSentimentReading {
  now: Date;
  /** Configured weights (normalised to sum 1). */
  weights: Weights;
  fng: FngPoint | null;
  sdex: SdexBook | null;
  quote: SimplePriceQuote | null;
  /** Component scores in [−1, 1]; null when unavailable. */
  scores: Record<ComponentName, number | null>;
  /** Raw inputs: F&G index, order-flow imbalance, 24h change %; null when unavailable. */
  raw: Record<ComponentName, number | null>;
  /** Why a component is unavailable; null when it is ok. */
  errors: Record<ComponentName, string | null>;
  composite: CompositeSentiment;
}

function settle<T>(r: PromiseSettledResult<T>, what: string): { value: T | null; error: string | null } {
  return r.status === "fulfilled" ? { value: r.value, error: null } : { value: null, error: failureReason(r.reason, what) };
}

/**
 * Reads the three components in parallel and computes the composite. Throws
 * UnavailableError when no component is available, and a configuration error when
 * SENTIMENT_WEIGHTS is invalid.
 */
export async function readXlmSentiment(now: Date): Promise<XlmSentimentReading> {
  const weights = sentimentWeights();
  const [fngR, bookR, priceR] = await Promise.allSettled([getFearGreed(31), sdexBook(), simplePrice(["stellar"])]);
  const fng = settle(fngR, "fear_greed");
  const sdex = settle(bookR, "order_flow");
  const prices = settle(priceR, "momentum");

  const latestFng = fng.value?.[0] ?? null;
  const quote = prices.value?.stellar ?? null;
  const change = quote?.usd24hChangePct ?? null;

  const raw: Record<ComponentName, number | null> = {
    fear_greed: latestFng?.value ?? null,
    order_flow: sdex.value?.imbalance ?? null,
    momentum: change,
  };
  const scores: Record<ComponentName, number | null> = {
    fear_greed: raw.fear_greed === null ? null : fngToScore(raw.fear_greed),
    order_flow: raw.order_flow,
    momentum: change === null ? null : momentumScore(change),
  };
  const errors: Record<ComponentName, string | null> = {
    fear_greed: fng.error ?? (latestFng ? null : "alternative: no index value"),
    order_flow: sdex.error,
    momentum: prices.error ?? (quote === null ? "coingecko: no stellar quote" : change === null ? "coingecko: 24h change missing" : null),
  };
  const composite = compositeSentiment(scores, weights);
  if (!composite) {
    throw new UnavailableError(
      `XLM sentiment is unavailable: every component failed (${COMPONENT_NAMES.map((n) => errors[n] ?? `${n}: weight 0`).join("; ")}).`,
      { sources: ["alternative", "horizon", "coingecko"] },
    );
  }
  return { now, weights, fng: latestFng, sdex: sdex.value, quote, scores, raw, errors, composite };
}

const componentSchema = (rawMeaning: string) =>
  z.object({
    status: z.enum(["ok", "unavailable"]).describe("ok, or unavailable when its upstream failed (the component is then left out and the other weights renormalised)"),
    score: z.number().min(-1).max(1).nullable().describe("Component score in [-1, 1], positive = bullish; null when unavailable"),
    raw: z.number().nullable().describe(rawMeaning),
    weight: z.number().min(0).max(1).describe("Weight actually applied in this composite (renormalised over available components; 0 when unavailable)"),
    configured_weight: z.number().min(0).max(1).describe("Configured weight before renormalisation (SENTIMENT_WEIGHTS, normalised to sum 1)"),
    source: z.string().describe("Upstream provider of the raw value"),
    error: z.string().nullable().describe("Why the component is unavailable; null when ok"),
  });

/** Output schema of the full snapshot (spec 2.1 plus label/degraded/missing). */
export const xlmSnapshotSchema = z.object({
  sentiment: z.number().min(-1).max(1).describe("Composite XLM sentiment in [-1, 1], positive = bullish: weighted mean of the available components"),
  label: z.enum(["strongly_bearish", "bearish", "neutral", "bullish", "strongly_bullish"]).describe("Band of the composite: |x| < 0.15 neutral, ≥ 0.5 strongly_*"),
  sentiment_source: z.string().describe("Origin of the score: 'composite:' followed by the components used, e.g. composite:fear_greed+order_flow+momentum"),
  components: z
    .object({
      fear_greed: componentSchema("Fear & Greed index 0-100 (alternative.me); score = (index - 50) / 50"),
      order_flow: componentSchema("SDEX XLM/USDC order-flow imbalance (bid depth - ask depth) / total, both sides in XLM, top 20 levels; score = imbalance"),
      momentum: componentSchema("XLM 24h price change in percent (CoinGecko); score = clamp(change / 5, -1, 1)"),
    })
    .describe("Per-component breakdown"),
  price_usd: z.number().positive().nullable().describe("Live XLM price in USD (CoinGecko; SDEX mid when CoinGecko is down; null when both are down)"),
  price_source: z.enum(["coingecko", "sdex_mid"]).nullable().describe("Where price_usd came from"),
  mid: z.number().positive().nullable().describe("SDEX XLM/USDC mid price (best bid + best ask) / 2, USDC per XLM; null when Horizon is down"),
  spread_pct: z.number().nullable().describe("SDEX bid/ask spread in percent of mid; null when Horizon is down"),
  degraded: z.boolean().describe("True when at least one component is unavailable"),
  missing: z.array(z.enum(["fear_greed", "order_flow", "momentum"])).describe("Unavailable components (empty when complete)"),
  ts: z.string().describe("Time the snapshot was computed (ISO 8601)"),
});
export type XlmSnapshot = z.infer<typeof xlmSnapshotSchema>;

/** Shapes a reading into the spec 2.1 snapshot. */
export function snapshotFromReading(r: XlmSentimentReading): XlmSnapshot {
  const c = r.composite;
  const used = COMPONENT_NAMES.filter((n) => c.weightsUsed[n] !== undefined);
  const component = (n: ComponentName) => ({
    status: r.scores[n] === null ? ("unavailable" as const) : ("ok" as const),
    score: dpOrNull(r.scores[n], 4),
    raw: n === "fear_greed" ? r.raw[n] : dpOrNull(r.raw[n], 4),
    weight: dp(c.weightsUsed[n] ?? 0, 4),
    configured_weight: dp(r.weights[n], 4),
    source: COMPONENT_SOURCES[n],
    error: r.errors[n],
  });
  const mid = r.sdex?.snapshot.mid ?? null;
  const price = r.quote?.usd ?? mid;
  return {
    sentiment: c.score,
    label: sentimentLabel(c.score),
    sentiment_source: `composite:${used.join("+")}`,
    components: { fear_greed: component("fear_greed"), order_flow: component("order_flow"), momentum: component("momentum") },
    price_usd: sigOrNull(price, 7),
    price_source: r.quote ? "coingecko" : mid !== null ? "sdex_mid" : null,
    mid: sigOrNull(mid, 7),
    spread_pct: dpOrNull(r.sdex?.snapshot.spreadPct, 4),
    degraded: c.missing.length > 0,
    missing: [...c.missing],
    ts: r.now.toISOString(),
  };
}

/** Full sentiment snapshot (spec 2.1) at `now`. */
export async function xlmSnapshot(now: Date): Promise<XlmSnapshot> {
  return snapshotFromReading(await readXlmSentiment(now));
}

/** Output schema of the reduced snapshot served by /v1/sample. */
export const sampleSnapshotSchema = z.object({
  sentiment: z.number().min(-1).max(1).describe("Composite XLM sentiment in [-1, 1], positive = bullish"),
  label: z.enum(["strongly_bearish", "bearish", "neutral", "bullish", "strongly_bullish"]).describe("Band of the composite"),
  price_usd: z.number().positive().nullable().describe("Live XLM price in USD"),
  ts: z.string().describe("Time the snapshot was computed (ISO 8601)"),
  note: z.string().describe("What the sample leaves out and which paid endpoints carry it"),
});
export type SampleSnapshot = z.infer<typeof sampleSnapshotSchema>;

/** The paid endpoints the sample points to, read from the catalog (no second copy of paths or prices). */
async function paidPointers(): Promise<string> {
  // Imported lazily: the catalog imports the product that imports this module.
  const { XLM_PRODUCTS } = await import("@/lib/catalog/products/xlm");
  const find = (id: string) => XLM_PRODUCTS.find((p) => p.id === id);
  const full = find("sentiment");
  const report = find("sentiment-report");
  const parts: string[] = [];
  if (full) parts.push(`components and the SDEX book: GET ${full.path} ($${full.httpPrice})`);
  if (report) parts.push(`raw inputs, directional verdict and arbitrage context: GET ${report.path} ($${report.httpPrice})`);
  return parts.join("; ");
}

/** The /v1/sample reduction of a full snapshot (score, label, price and a pointer to the paid data). */
export async function sampleFromSnapshot(snap: XlmSnapshot): Promise<SampleSnapshot> {
  const pointers = await paidPointers();
  return {
    sentiment: snap.sentiment,
    label: snap.label,
    price_usd: snap.price_usd,
    ts: snap.ts,
    note: `Reduced sample without the component breakdown or order book${snap.degraded ? ` (computed without ${snap.missing.join(", ")})` : ""}. Full data: ${pointers}.`,
  };
}
