/** Parameters shared by the history-based markets products (/v1/multi-asset, /v1/screen). */
import { enumParam, listParam, type Param } from "@/lib/catalog/params";
import { PERIOD_NAMES, SUPPORTED_TICKERS, normalizeTicker, type Period, type Ticker } from "@/lib/market/tickers";

/** Most tickers one call may screen: each costs one history request upstream. */
export const MAX_TICKERS = 10;

/** `tickers`: comma-separated `<SYMBOL>-USD` list (a bare symbol means its USD pair). */
export function tickersParam(defaults: readonly Ticker[]): Param<Ticker[]> {
  return listParam({
    description: "Tickers in `<SYMBOL>-USD` form (a bare symbol such as `xlm` means its USD pair).",
    allowed: SUPPORTED_TICKERS,
    default: defaults,
    maxItems: MAX_TICKERS,
    normalize: normalizeTicker,
  }) as Param<Ticker[]>;
}

/** `period`: trailing window of daily closes. */
export const periodParam: Param<Period> = enumParam({
  description: "Trailing window of daily closes: 1mo = 30, 3mo = 90, 6mo = 180, 1y = 365 days.",
  values: PERIOD_NAMES,
  default: "3mo",
});
