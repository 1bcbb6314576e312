/**
 * Live data for the pages, read server-side from the same functions the API uses (no
 * charge: the page's own display). Every failure becomes a message for the page, never
 * a crash, and results are cached briefly so page views do not multiply upstream calls.
 */
import { productByPath } from "@/lib/catalog";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { cached } from "@/lib/market/cache";
import { xlmSnapshot, type XlmSnapshot } from "@/lib/market/xlm/snapshot";

export type Live<T> = { ok: true; data: T } | { ok: false; message: string };

function failure(err: unknown, what: string): { ok: false; message: string } {
  if (err instanceof ApiError) return { ok: false, message: err.message };
  log.warn("web.live_failed", { what, message: (err as Error)?.message });
  return { ok: false, message: `${what} is unavailable right now.` };
}

/** The full composite snapshot (the data of the free MCP tool get_xlm_sentiment). */
export async function liveSnapshot(): Promise<Live<XlmSnapshot>> {
  try {
    return { ok: true, data: await cached("web:snapshot", 30_000, () => xlmSnapshot(new Date())) };
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
}

interface HistoryOutput {
  hours: number;
  bars: Array<{ ts: string; sentiment: number | null; price_usd: number }>;
  degraded: boolean;
  unavailable: string[];
  order_flow_note: string;
  ts: string;
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
      },
    };
  } catch (err) {
    return failure(err, "The sentiment history");
  }
}
