/**
 * Live data for the pages, read server-side from the same functions the API uses (no
 * charge: the page's own display). Every failure becomes a message for the page, never
 * a crash, and results are cached briefly so page views do not multiply upstream calls.
 *
 * Both readings are shaped into one `SentimentNow` so a page shows "now" from exactly
 * one source: the home page from the composite snapshot, the market page from the latest
 * bar of the series it charts (a second source with its own cache lifetime would show a
 * different "current" value next to the chart).
 */
import { productByPath } from "@/lib/catalog";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { COMPONENT_NAMES, compositeSentiment, sentimentLabel, type ComponentName, type Weights } from "@/lib/market/signals/sentiment";
import type { XlmSnapshot } from "@/lib/market/xlm/snapshot";
import { freeSnapshot } from "@/lib/catalog/free-snapshot";

export type Live<T> = { ok: true; data: T } | { ok: false; message: string };

function failure(err: unknown, what: string): { ok: false; message: string } {
  if (err instanceof ApiError) return { ok: false, message: err.message };
  log.warn("web.live_failed", { what, message: (err as Error)?.message });
  return { ok: false, message: `${what} is unavailable right now.` };
}

export interface NowComponent {
  name: ComponentName;
  status: "ok" | "unavailable";
  /** Raw input: Fear & Greed index, order-flow imbalance, 24h change in percent. */
  raw: number | null;
  score: number | null;
  /** Weight applied in this composite (renormalised over the available components). */
  weight: number;
}

/** A composite sentiment reading as the pages show it. */
export interface SentimentNow {
  sentiment: number;
  label: string;
  price_usd: number | null;
  /** SDEX spread in percent; absent when the reading has none (history bars). */
  spread_pct?: number | null;
  ts: string;
  components: NowComponent[];
  source: string;
  missing: ComponentName[];
}

function nowFromSnapshot(s: XlmSnapshot): SentimentNow {
  return {
    sentiment: s.sentiment,
    label: s.label,
    price_usd: s.price_usd,
    spread_pct: s.spread_pct,
    ts: s.ts,
    components: COMPONENT_NAMES.map((name) => {
      const c = s.components[name];
      return { name, status: c.status, raw: c.raw, score: c.score, weight: c.weight };
    }),
    source: s.sentiment_source,
    missing: [...s.missing],
  };
}

/** The full composite snapshot (the data of the free MCP tool get_xlm_sentiment). */
export async function liveSnapshot(): Promise<Live<SentimentNow>> {
  try {
    return { ok: true, data: nowFromSnapshot(await freeSnapshot()) };
  } catch (err) {
    return failure(err, "Live XLM sentiment");
  }
}

export interface HistoryPoint {
  ts: string;
  sentiment: number | null;
  price: number;
}

export interface History {
  hours: number;
  points: HistoryPoint[];
  degraded: boolean;
  unavailable: string[];
  note: string;
  ts: string;
  /** The latest bar as a reading (null when it has no composite). */
  now: SentimentNow | null;
}

type BarScores = Record<ComponentName, number | null>;

interface HistoryOutput {
  hours: number;
  bars: Array<{ ts: string; sentiment: number | null; price_usd: number; momentum_24h_pct: number | null; fng: number | null; components: BarScores }>;
  weights: Weights;
  degraded: boolean;
  unavailable: string[];
  order_flow_note: string;
  ts: string;
  sources: string[];
}

/** The latest bar of the series, with the weights its composite used. */
function nowFromLatestBar(out: HistoryOutput, path: string): SentimentNow | null {
  const bar = out.bars.at(-1);
  if (!bar || bar.sentiment === null) return null;
  // The same renormalisation the bar's composite went through, for the weights column.
  const used = compositeSentiment(bar.components, out.weights)?.weightsUsed ?? {};
  const raw: BarScores = { fear_greed: bar.fng, order_flow: bar.components.order_flow, momentum: bar.momentum_24h_pct };
  const components = COMPONENT_NAMES.map((name) => ({
    name,
    status: bar.components[name] === null ? ("unavailable" as const) : ("ok" as const),
    raw: raw[name],
    score: bar.components[name],
    weight: used[name] ?? 0,
  }));
  return {
    sentiment: bar.sentiment,
    label: sentimentLabel(bar.sentiment),
    price_usd: bar.price_usd,
    ts: bar.ts,
    components,
    source: `latest hourly bar of ${path} (${out.sources.join(", ")})`,
    missing: components.filter((c) => c.status === "unavailable").map((c) => c.name),
  };
}

/** Hourly sentiment and XLM price from the sentiment-history product. */
export async function liveHistory(hours: number): Promise<Live<History>> {
  const product = productByPath("/v1/sentiment-history");
  if (!product) return { ok: false, message: "The sentiment history product is not in the catalog." };
  try {
    const params = validateOrThrow(paramsSchema(product.params), { hours: String(hours) }, "query");
    const out = (await runProduct(product, params)) as HistoryOutput;
    return {
      ok: true,
      data: {
        hours: out.hours,
        points: out.bars.map((b) => ({ ts: b.ts, sentiment: b.sentiment, price: b.price_usd })),
        degraded: out.degraded,
        unavailable: out.unavailable,
        note: out.order_flow_note,
        ts: out.ts,
        now: nowFromLatestBar(out, product.path),
      },
    };
  } catch (err) {
    return failure(err, "The sentiment history");
  }
}
