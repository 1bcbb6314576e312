/**
 * Polymarket Gamma market helpers (upstreams.md §9). `outcomes` and `outcomePrices`
 * arrive as JSON-ENCODED strings (e.g. "[\"Yes\",\"No\"]" and "[\"0.65\",\"0.35\"]"), so
 * they are parsed a second time here; plain arrays are accepted too.
 */
import { isFiniteNumber } from "./math";

export type OutcomeOdds = { outcome: string; probability: number };

function decodeArray(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") {
    try {
      const parsed: unknown = JSON.parse(v);
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Zip outcomes with prices; a price is the implied probability in [0, 1].
 * Returns [] when either input is not an array / JSON array, the lengths differ, an outcome
 * is not a non-empty string, or a price is not a number (or numeric string) in [0, 1] —
 * a half-parsed market is worse than none.
 */
export function parseOutcomes(outcomes: unknown, outcomePrices: unknown): OutcomeOdds[] {
  const os = decodeArray(outcomes);
  const ps = decodeArray(outcomePrices);
  if (!os || !ps || os.length !== ps.length || os.length === 0) return [];
  const out: OutcomeOdds[] = [];
  for (let i = 0; i < os.length; i++) {
    const o = os[i];
    const p = ps[i];
    if (typeof o !== "string" || o.trim() === "") return [];
    const prob = isFiniteNumber(p) ? p : typeof p === "string" && p.trim() !== "" ? Number(p) : Number.NaN;
    if (!Number.isFinite(prob) || prob < 0 || prob > 1) return [];
    out.push({ outcome: o, probability: prob });
  }
  return out;
}

function num(v: unknown): number | null {
  if (isFiniteNumber(v)) return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export type GammaMarketInput = {
  question?: unknown;
  slug?: unknown;
  endDate?: unknown;
  volume24hr?: unknown;
  volumeNum?: unknown;
  volume?: unknown;
  liquidityNum?: unknown;
  liquidity?: unknown;
  outcomes?: unknown;
  outcomePrices?: unknown;
};

export type MarketSummary = {
  question: string | null;
  slug: string | null;
  endDate: string | null;
  volume24hUsd: number | null;
  volumeUsd: number | null;
  liquidityUsd: number | null;
  outcomes: OutcomeOdds[];
  /** Outcome with the highest implied probability (first one on ties); null without outcomes. */
  leading: OutcomeOdds | null;
  /** Probability of "Yes" for binary Yes/No markets; null otherwise. */
  yesProbability: number | null;
  /**
   * Σ probabilities − 1: ≈ 0 for a fresh two-sided book; a large |value| means stale or
   * one-sided quotes. Null without outcomes.
   */
  overround: number | null;
};

/**
 * Summarise one Gamma market record. Numeric fields may be numbers or numeric strings
 * (`volumeNum` is preferred over `volume`, `liquidityNum` over `liquidity`).
 */
export function summarizeMarket(m: GammaMarketInput): MarketSummary {
  const outcomes = parseOutcomes(m.outcomes, m.outcomePrices);
  let leading: OutcomeOdds | null = null;
  for (const o of outcomes) if (leading === null || o.probability > leading.probability) leading = o;
  const yes = outcomes.length === 2 ? outcomes.find((o) => o.outcome.toLowerCase() === "yes") : undefined;
  const hasNo = outcomes.some((o) => o.outcome.toLowerCase() === "no");
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  return {
    question: str(m.question),
    slug: str(m.slug),
    endDate: str(m.endDate),
    volume24hUsd: num(m.volume24hr),
    volumeUsd: num(m.volumeNum) ?? num(m.volume),
    liquidityUsd: num(m.liquidityNum) ?? num(m.liquidity),
    outcomes,
    leading,
    yesProbability: yes && hasNo ? yes.probability : null,
    overround: outcomes.length > 0 ? outcomes.reduce((a, o) => a + o.probability, 0) - 1 : null,
  };
}
