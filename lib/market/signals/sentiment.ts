/**
 * Composite XLM sentiment in [−1, 1] from three components (upstreams.md §1, §2, §3a):
 *   fear_greed  = (FNG index − 50) / 50
 *   order_flow  = SDEX order-flow imbalance (both sides in XLM, see orderbook.ts)
 *   momentum    = clamp(24h change % / 5, −1, 1)
 * Missing components are dropped and the remaining weights renormalised, so an upstream
 * outage degrades the score instead of silently pulling it toward 0.
 */
import { isFiniteNumber, round } from "./math";

/** Clamp x into [lo, hi]. NaN stays NaN so bad input is visible, not hidden as a bound. */
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

/** Fear & Greed index (0..100) → score in [−1, 1]: clamp((index − 50) / 50, −1, 1). */
export function fngToScore(index: number): number {
  return clamp((index - 50) / 50, -1, 1);
}

/**
 * 24h price change (%) → score in [−1, 1]: clamp(change / scalePct, −1, 1).
 * With the default scale a ±5 % day saturates the component.
 */
export function momentumScore(change24hPct: number, scalePct = 5): number {
  if (!(scalePct > 0)) throw new RangeError(`scalePct must be > 0, got ${scalePct}`);
  return clamp(change24hPct / scalePct, -1, 1);
}

export type ComponentName = "fear_greed" | "order_flow" | "momentum";
export type Weights = Record<ComponentName, number>;

/** Component names in a fixed order (used for iteration and error messages). */
export const COMPONENT_NAMES: readonly ComponentName[] = ["fear_greed", "order_flow", "momentum"];

/** Prototype weights; they already sum to 1. */
export const DEFAULT_WEIGHTS: Readonly<Weights> = Object.freeze({ fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 });

function isComponentName(s: string): s is ComponentName {
  return (COMPONENT_NAMES as readonly string[]).includes(s);
}

/**
 * Parse a weight spec such as "fear_greed=0.4,order_flow=0.3,momentum=0.3" (typically an
 * env value read by the caller). Names not mentioned keep their DEFAULT_WEIGHTS value;
 * the result is normalised to sum to 1. Undefined/blank → defaults.
 * Throws an Error naming the problem for: an unknown name, a duplicate name, an entry
 * without "=", a non-numeric or negative value, or weights that are all zero — a bad
 * weight config should fail loudly at startup, not skew every score.
 */
export function parseWeights(spec: string | undefined): Weights {
  const w: Weights = { ...DEFAULT_WEIGHTS };
  const seen = new Set<string>();
  if (spec !== undefined) {
    for (const raw of spec.split(",")) {
      const entry = raw.trim();
      if (entry === "") continue; // tolerate trailing commas
      const eq = entry.indexOf("=");
      if (eq < 0) throw new Error(`invalid sentiment weight entry "${entry}": expected name=value`);
      const name = entry.slice(0, eq).trim();
      const valueText = entry.slice(eq + 1).trim();
      if (!isComponentName(name)) {
        throw new Error(`unknown sentiment weight "${name}"; expected one of ${COMPONENT_NAMES.join(", ")}`);
      }
      if (seen.has(name)) throw new Error(`duplicate sentiment weight "${name}"`);
      seen.add(name);
      // Number("") is 0 and Number(" ") too, so reject empty text explicitly.
      const value = valueText === "" ? Number.NaN : Number(valueText);
      if (!Number.isFinite(value)) throw new Error(`sentiment weight "${name}" is not a number: "${valueText}"`);
      if (value < 0) throw new Error(`sentiment weight "${name}" must not be negative: ${value}`);
      w[name] = value;
    }
  }
  const total = w.fear_greed + w.order_flow + w.momentum;
  if (!(total > 0)) throw new Error("sentiment weights must not all be zero");
  return { fear_greed: w.fear_greed / total, order_flow: w.order_flow / total, momentum: w.momentum / total };
}

export type CompositeSentiment = {
  /** Weighted mean of the available components, clamped to [−1, 1], 4 dp. */
  score: number;
  /** Renormalised weights actually applied (available components only; sum to 1). */
  weightsUsed: Partial<Weights>;
  /** Components that were null, undefined or non-finite. */
  missing: ComponentName[];
};

/**
 * Weighted composite over the available components:
 *   score = Σ wᵢ·sᵢ / Σ wᵢ  over components whose score is a finite number.
 * Component scores are clamped to [−1, 1] first. Components with weight 0 are available
 * but contribute nothing. Returns null when no component with positive weight is
 * available (an all-missing composite is unknown, not neutral).
 */
export function compositeSentiment(
  scores: Partial<Record<ComponentName, number | null>>,
  weights: Weights,
): CompositeSentiment | null {
  const missing: ComponentName[] = [];
  const avail: Array<[ComponentName, number, number]> = [];
  for (const name of COMPONENT_NAMES) {
    const s = scores[name];
    if (!isFiniteNumber(s)) {
      missing.push(name);
      continue;
    }
    const w = weights[name];
    avail.push([name, clamp(s, -1, 1), isFiniteNumber(w) && w > 0 ? w : 0]);
  }
  const totalW = avail.reduce((acc, [, , w]) => acc + w, 0);
  if (!(totalW > 0)) return null;
  const weightsUsed: Partial<Weights> = {};
  let score = 0;
  for (const [name, s, w] of avail) {
    const wn = w / totalW;
    weightsUsed[name] = round(wn, 6);
    score += wn * s;
  }
  return { score: round(clamp(score, -1, 1), 4), weightsUsed, missing };
}

export type SentimentLabel = "strongly_bearish" | "bearish" | "neutral" | "bullish" | "strongly_bullish";

/** |score| below this is "neutral". Shared with verdict.ts so labels and verdicts agree. */
export const NEUTRAL_BAND = 0.15;
/** |score| at or above this is "strongly_*". */
export const STRONG_BAND = 0.5;

/**
 * Label a score in [−1, 1]:
 *   score ≥ 0.5 → strongly_bullish; 0.15 ≤ score < 0.5 → bullish;
 *   −0.15 < score < 0.15 → neutral;
 *   −0.5 < score ≤ −0.15 → bearish; score ≤ −0.5 → strongly_bearish.
 * A non-finite score is "neutral" (nothing to lean on).
 */
export function sentimentLabel(score: number): SentimentLabel {
  if (!Number.isFinite(score)) return "neutral";
  if (score >= STRONG_BAND) return "strongly_bullish";
  if (score >= NEUTRAL_BAND) return "bullish";
  if (score > -NEUTRAL_BAND) return "neutral";
  if (score > -STRONG_BAND) return "bearish";
  return "strongly_bearish";
}
