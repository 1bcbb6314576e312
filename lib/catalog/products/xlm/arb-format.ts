/** Output shape of the XLM arbitrage scan, shared by /v1/arb-opportunities and the sentiment report. */
import { z } from "zod";
import type { ArbLeg } from "@/lib/market/signals/arbitrage";
import type { VenueRead } from "@/lib/market/xlm/arbitrage";
import { dp, sig } from "@/lib/market/xlm/format";

export const arbLegSchema = z.object({
  venue: z.enum(["kraken", "coinbase", "binance"]).describe("Centralised exchange of the leg"),
  direction: z.enum(["buy_sdex_sell_cex", "buy_cex_sell_sdex"]).describe("Where XLM is bought and where it is sold"),
  buy_price: z.number().positive().describe("Effective buy price per XLM after taker fee (SDEX side: VWAP of walking the book for the trade size)"),
  sell_price: z.number().positive().describe("Effective sell price per XLM after taker fee (SDEX side: VWAP for the trade size)"),
  gross_spread_pct: z.number().describe("(raw sell / raw buy - 1) * 100, before fees"),
  net_spread_pct: z.number().describe("(sell_price / buy_price - 1) * 100, after fees"),
  filled_xlm: z.number().nonnegative().describe("XLM the SDEX side can absorb (at most size_xlm)"),
  complete: z.boolean().describe("SDEX side fills the whole trade size"),
  go: z.boolean().describe("complete and net_spread_pct ≥ threshold_pct"),
  quote_currency: z.enum(["USD", "USDT"]).describe("Quote currency of the CEX leg (Binance quotes USDT)"),
});

export const venueSchema = z.object({
  venue: z.enum(["kraken", "coinbase", "binance"]).describe("Exchange"),
  pair: z.string().describe("Pair as the exchange names it"),
  status: z.enum(["ok", "unavailable"]).describe("unavailable when its ticker could not be read (the scan continues without it)"),
  bid: z.number().positive().nullable().describe("Best bid; null when unavailable"),
  ask: z.number().positive().nullable().describe("Best ask; null when unavailable"),
  quote_currency: z.enum(["USD", "USDT"]).describe("Quote currency"),
  taker_fee_pct: z.number().nonnegative().describe("Taker fee applied, percent (configuration)"),
  error: z.string().nullable().describe("Why the venue is unavailable; null when ok"),
});

export function legOut(l: ArbLeg): z.infer<typeof arbLegSchema> {
  return {
    venue: l.venue as "kraken" | "coinbase" | "binance",
    direction: l.direction,
    buy_price: sig(l.effBuy, 7),
    sell_price: sig(l.effSell, 7),
    gross_spread_pct: dp(l.grossPct, 4),
    net_spread_pct: dp(l.netPct, 4),
    filled_xlm: dp(l.filledXlm, 2),
    complete: l.complete,
    go: l.go,
    quote_currency: l.quoteCurrency,
  };
}

export function venueOut(v: VenueRead): z.infer<typeof venueSchema> {
  return {
    venue: v.venue,
    pair: v.pair,
    status: v.status,
    bid: v.bid,
    ask: v.ask,
    quote_currency: v.quoteCurrency,
    taker_fee_pct: v.takerFeePct,
    error: v.error,
  };
}

/** The best leg of the arbitrage scan's example answer: one fact for both examples that carry it (arb-opportunities, sentiment-report). */
export const EXAMPLE_BEST_LEG: z.infer<typeof arbLegSchema> = {
  venue: "binance",
  direction: "buy_sdex_sell_cex",
  buy_price: 0.4204213,
  sell_price: 0.4198797,
  gross_spread_pct: -0.0289,
  net_spread_pct: -0.1288,
  filled_xlm: 10000,
  complete: true,
  go: false,
  quote_currency: "USDT",
};
