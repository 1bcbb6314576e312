/**
 * Daily closes for a list of tickers, fetched in parallel from CoinGecko. One failing
 * asset does not sink the others: it is reported as unavailable with a short reason.
 */
import { marketChart } from "@/lib/market/sources/coingecko";
import { UpstreamError } from "@/lib/market/upstream";
import { coingeckoId, periodDays, type Period, type Ticker } from "@/lib/market/tickers";

/** Extra days fetched before the window so SMA(30)/Bollinger(20)/RSI(14) are warm at its start. */
export const WARMUP_DAYS = 30;
/** Keyless and Demo CoinGecko keys reach 365 days back. */
export const MAX_HISTORY_DAYS = 365;

export interface AssetHistory {
  ticker: Ticker;
  id: string;
  /** Daily closes (00:00 UTC), oldest first, including the warm-up days. */
  closes: number[];
  times: number[];
  /** How many of the last closes form the period's window (period days + 1 where available). */
  windowCloses: number;
}

export interface Unavailable {
  ticker: Ticker;
  reason: string;
}

/** Short, secret-free reason for a failed asset. */
export function failureReason(err: unknown): string {
  if (err instanceof UpstreamError) {
    // A named refusal (rate limited after the retry, retry-after too long) says more than the kind.
    return err.note ? `${err.provider}: ${err.note}` : `${err.provider} ${err.kind}${err.status ? ` (HTTP ${err.status})` : ""}`;
  }
  return err instanceof Error ? err.message : "unknown error";
}

/** Days of history requested for a period (window plus warm-up, capped at 365). */
export function historyDays(period: Period): number {
  return Math.min(periodDays(period) + WARMUP_DAYS, MAX_HISTORY_DAYS);
}

/** Loads every ticker's daily closes in parallel; failures are collected, not thrown. */
export async function loadHistories(tickers: Ticker[], period: Period): Promise<{ ok: AssetHistory[]; unavailable: Unavailable[] }> {
  const days = historyDays(period);
  const settled = await Promise.allSettled(tickers.map((t) => marketChart(coingeckoId(t), days, "daily")));
  const ok: AssetHistory[] = [];
  const unavailable: Unavailable[] = [];
  settled.forEach((r, i) => {
    const ticker = tickers[i]!;
    if (r.status === "rejected") {
      unavailable.push({ ticker, reason: failureReason(r.reason) });
      return;
    }
    const points = r.value;
    if (points.length < 2) {
      unavailable.push({ ticker, reason: `insufficient history: ${points.length} daily closes` });
      return;
    }
    ok.push({
      ticker,
      id: coingeckoId(ticker),
      closes: points.map((p) => p.price),
      times: points.map((p) => p.time),
      // A window of N days spans N daily returns, i.e. N + 1 closes.
      windowCloses: Math.min(periodDays(period) + 1, points.length),
    });
  });
  return { ok, unavailable };
}
