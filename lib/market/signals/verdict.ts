/**
 * Verdicts built on top of the sentiment components: a directional call for the
 * sentiment report, and a fused trading verdict for /v1/verdict.
 */
import { isFiniteNumber, round } from "./math";
import { clamp, COMPONENT_NAMES, NEUTRAL_BAND, STRONG_BAND, type ComponentName } from "./sentiment";

export type DirectionalVerdict = {
  verdict: "bullish" | "bearish" | "neutral";
  /** 0..1, see {@link directionalVerdict}. */
  confidence: number;
  /** Fraction of available components whose sign equals the composite's sign (0 if none). */
  agreement: number;
  /** Number of components that were available (finite). */
  available: number;
  missing: ComponentName[];
  rationale: string[];
};

const fmt = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(4);

/**
 * Directional verdict from the composite score.
 *
 * verdict:  composite ≥ +0.15 → bullish, ≤ −0.15 → bearish, otherwise neutral
 *           (same band as sentimentLabel).
 * confidence = strength · (0.5 + 0.5·agreement) · (0.4 + 0.6·coverage), rounded to 4 dp, where
 *   strength  = min(1, |composite| / 0.5)   — saturates at the "strong" band;
 *   agreement = share of available components with the composite's sign;
 *   coverage  = available components / 3    — one missing component costs 20 %.
 * Confidence is conviction in the lean, so a neutral verdict naturally has a low value.
 */
export function directionalVerdict(input: {
  composite: number;
  components: Partial<Record<ComponentName, number | null>>;
}): DirectionalVerdict {
  const { composite } = input;
  if (!isFiniteNumber(composite)) throw new RangeError(`composite must be a finite number, got ${composite}`);
  const verdict = composite >= NEUTRAL_BAND ? "bullish" : composite <= -NEUTRAL_BAND ? "bearish" : "neutral";
  const sign = Math.sign(composite);
  const available: Array<[ComponentName, number]> = [];
  const missing: ComponentName[] = [];
  for (const name of COMPONENT_NAMES) {
    const v = input.components[name];
    if (isFiniteNumber(v)) available.push([name, v]);
    else missing.push(name);
  }
  const agreeing = available.filter(([, v]) => Math.sign(v) === sign).length;
  const agreement = available.length > 0 ? agreeing / available.length : 0;
  const strength = Math.min(1, Math.abs(composite) / STRONG_BAND);
  const coverage = available.length / COMPONENT_NAMES.length;
  const confidence = clamp(strength * (0.5 + 0.5 * agreement) * (0.4 + 0.6 * coverage), 0, 1);

  const rationale: string[] = [];
  rationale.push(
    verdict === "neutral"
      ? `composite ${fmt(composite)} is inside the neutral band (|x| < ${NEUTRAL_BAND})`
      : `composite ${fmt(composite)} is ${verdict === "bullish" ? "≥ +" : "≤ −"}${NEUTRAL_BAND} → ${verdict}`,
  );
  if (available.length > 0) {
    rationale.push(
      `${agreeing}/${available.length} components share the composite's sign (` +
        available.map(([n, v]) => `${n} ${fmt(v)}`).join(", ") +
        ")",
    );
  } else {
    rationale.push("no component scores available");
  }
  if (missing.length > 0) rationale.push(`missing components lower confidence: ${missing.join(", ")}`);

  return { verdict, confidence: round(confidence, 4), agreement: round(agreement, 4), available: available.length, missing, rationale };
}

export type FusedInputName = "composite" | "fear_greed" | "momentum" | "breadth";

/**
 * Fused-verdict weights. The composite already contains F&G and momentum; the fused view
 * deliberately tilts toward it and adds market breadth as the one outside-XLM input.
 */
export const FUSED_WEIGHTS: Readonly<Record<FusedInputName, number>> = Object.freeze({
  composite: 0.4,
  breadth: 0.25,
  momentum: 0.2,
  fear_greed: 0.15,
});

export type FusedVerdict = {
  verdict: "strong_buy" | "buy" | "hold" | "sell" | "strong_sell";
  /** Weighted mean of the available inputs, renormalised, clamped to [−1, 1], 4 dp. */
  score: number;
  confidence: number;
  grade: "A" | "B" | "C" | "D";
  inputsUsed: FusedInputName[];
  missing: FusedInputName[];
  /** Share of available inputs on the verdict's side (see fusedVerdict). */
  agreement: number;
  /** Sum of the nominal weights of the available inputs (1 when nothing is missing). */
  coverage: number;
};

/**
 * Single normalised trading verdict.
 *
 * score = Σ wᵢ·xᵢ / Σ wᵢ over available inputs (each clamped to [−1, 1]) with
 *   w = composite 0.40, breadth 0.25, momentum 0.20, fear_greed 0.15.
 * verdict: score ≥ 0.5 strong_buy; ≥ 0.15 buy; > −0.15 hold; > −0.5 sell; else strong_sell.
 * confidence = coverage · (0.5 + 0.5·agreement) · (0.5 + 0.5·strength), 4 dp, where
 *   coverage  = Σ nominal weights of the available inputs;
 *   agreement = share of available inputs on the verdict's side (buy side: x > 0,
 *               sell side: x < 0, hold: |x| < 0.15);
 *   strength  = buy/sell: min(1, |score| / 0.5); hold: 1 − |score| / 0.15
 *               (how firmly the score sits inside its band).
 * grade: A ≥ 0.75, B ≥ 0.5, C ≥ 0.25, else D.
 * Returns null when no input is available.
 */
export function fusedVerdict(input: {
  composite: number | null;
  fngScore: number | null;
  momentum: number | null;
  breadthScore: number | null;
}): FusedVerdict | null {
  const values: Record<FusedInputName, number | null> = {
    composite: input.composite,
    fear_greed: input.fngScore,
    momentum: input.momentum,
    breadth: input.breadthScore,
  };
  const order: FusedInputName[] = ["composite", "fear_greed", "momentum", "breadth"];
  const used: Array<[FusedInputName, number]> = [];
  const missing: FusedInputName[] = [];
  for (const name of order) {
    const v = values[name];
    if (isFiniteNumber(v)) used.push([name, clamp(v, -1, 1)]);
    else missing.push(name);
  }
  if (used.length === 0) return null;
  const coverage = used.reduce((a, [n]) => a + FUSED_WEIGHTS[n], 0);
  const raw = used.reduce((a, [n, v]) => a + FUSED_WEIGHTS[n] * v, 0) / coverage;
  const score = round(clamp(raw, -1, 1), 4);

  const verdict: FusedVerdict["verdict"] =
    score >= STRONG_BAND ? "strong_buy" : score >= NEUTRAL_BAND ? "buy" : score > -NEUTRAL_BAND ? "hold" : score > -STRONG_BAND ? "sell" : "strong_sell";
  const side = verdict === "strong_buy" || verdict === "buy" ? 1 : verdict === "hold" ? 0 : -1;
  const onSide = (x: number) => (side === 1 ? x > 0 : side === -1 ? x < 0 : Math.abs(x) < NEUTRAL_BAND);
  const agreement = used.filter(([, v]) => onSide(v)).length / used.length;
  const strength = side === 0 ? 1 - Math.abs(score) / NEUTRAL_BAND : Math.min(1, Math.abs(score) / STRONG_BAND);
  const confidence = round(clamp(coverage * (0.5 + 0.5 * agreement) * (0.5 + 0.5 * strength), 0, 1), 4);
  const grade = confidence >= 0.75 ? "A" : confidence >= 0.5 ? "B" : confidence >= 0.25 ? "C" : "D";

  return {
    verdict,
    score,
    confidence,
    grade,
    inputsUsed: used.map(([n]) => n),
    missing,
    agreement: round(agreement, 4),
    coverage: round(coverage, 4),
  };
}

/**
 * Market breadth → score in [−1, 1]:
 *   0.5 · clamp((breadthPct − 50) / 50, −1, 1) + 0.5 · clamp(meanChangePct / 5, −1, 1)
 * i.e. half "how many coins are up", half "by how much on average" (±5 % saturates).
 * Throws on non-finite input (call it only when breadthStats returned a value).
 */
export function breadthToScore(breadthPct: number, meanChangePct: number): number {
  if (!isFiniteNumber(breadthPct) || !isFiniteNumber(meanChangePct)) {
    throw new RangeError(`breadthToScore needs finite numbers, got ${breadthPct}, ${meanChangePct}`);
  }
  const b = clamp((breadthPct - 50) / 50, -1, 1);
  const m = clamp(meanChangePct / 5, -1, 1);
  return round(0.5 * b + 0.5 * m, 4);
}
