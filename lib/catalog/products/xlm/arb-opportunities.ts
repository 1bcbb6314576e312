// GET /v1/arb-opportunities — CEX-to-SDEX XLM net spreads after fees, go/no-go verdict.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { xlmArbitrage } from "@/lib/market/xlm/arbitrage";
import { dp, sig, sigOrNull } from "@/lib/market/xlm/format";
import { arbLegSchema, EXAMPLE_BEST_LEG, legOut, venueOut, venueSchema } from "@/lib/catalog/products/xlm/arb-format";

const output = z.object({
  verdict: z.enum(["go", "no_go"]).describe("go when at least one leg fills the size on SDEX and nets at least threshold_pct after fees"),
  best: arbLegSchema.nullable().describe("Leg with the highest net spread among those that fill the full size (null when no leg could be priced)"),
  opportunities: z.array(arbLegSchema).describe("Every venue and direction priced, both directions per available venue"),
  venues: z.array(venueSchema).describe("CEX tickers read (an unavailable venue is listed with its error)"),
  sdex: z
    .object({
      best_bid: z.number().positive().describe("SDEX best bid, USDC per XLM"),
      best_ask: z.number().positive().describe("SDEX best ask, USDC per XLM"),
      mid: z.number().positive().describe("SDEX mid"),
      spread_pct: z.number().describe("SDEX spread, percent of mid"),
      buy_vwap: z.number().positive().nullable().describe("Average price to buy size_xlm from the SDEX asks (null if the book is empty)"),
      sell_vwap: z.number().positive().nullable().describe("Average price to sell size_xlm into the SDEX bids (null if the book is empty)"),
      buy_slippage_pct: z.number().nullable().describe("buy_vwap versus best ask, percent"),
      sell_slippage_pct: z.number().nullable().describe("sell_vwap versus best bid, percent"),
    })
    .describe("SDEX XLM/USDC side of the scan (Stellar Horizon order book, top 20 levels)"),
  size_xlm: z.number().positive().describe("Trade size walked through the SDEX book (ARB_TRADE_SIZE_XLM)"),
  threshold_pct: z.number().describe("Net spread a leg needs to be 'go', percent"),
  unavailable: z.array(z.string()).describe("Venues that could not be read (empty when all answered)"),
  notes: z.array(z.string()).describe("Assumptions and caveats of the scan"),
  sources: z.array(z.string()).describe("Upstream providers used"),
  ts: z.string().describe("Time the scan was computed (ISO 8601)"),
});

export const arbOpportunities = defineProduct({
  id: "arb-opportunities",
  path: "/v1/arb-opportunities",
  title: "XLM CEX-SDEX arbitrage scan",
  description:
    "Net spread after taker fees between the SDEX XLM/USDC order book (walked for the configured trade size) and Kraken XLMUSD, Coinbase XLM-USD and Binance XLMUSDT, both directions per venue, with a go/no-go verdict. Unavailable venues are listed and skipped.",
  tags: ["arbitrage", "xlm", "orderbook"],
  kind: "data",
  httpPrice: "0.005",
  tool: { name: "get_arbitrage_opportunities", price: "0.10", label: "XLM CEX-SDEX arbitrage scan" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output,
  example: {
    verdict: "no_go",
    best: EXAMPLE_BEST_LEG,
    opportunities: [
      {
        venue: "kraken",
        direction: "buy_sdex_sell_cex",
        buy_price: 0.4204213,
        sell_price: 0.4192012,
        gross_spread_pct: -0.0303,
        net_spread_pct: -0.2902,
        filled_xlm: 10000,
        complete: true,
        go: false,
        quote_currency: "USD",
      },
    ],
    venues: [
      {
        venue: "kraken",
        pair: "XLMUSD",
        status: "ok",
        bid: 0.420294,
        ask: 0.420427,
        quote_currency: "USD",
        taker_fee_pct: 0.26,
        error: null,
      },
    ],
    sdex: {
      best_bid: 0.4201693,
      best_ask: 0.4204213,
      mid: 0.4202953,
      spread_pct: 0.06,
      buy_vwap: 0.4204213,
      sell_vwap: 0.4198608,
      buy_slippage_pct: 0,
      sell_slippage_pct: 0.0734,
    },
    size_xlm: 10000,
    threshold_pct: 0.5,
    unavailable: [],
    notes: ["Withdrawal fees, transfer time and inventory/rebalancing costs are ignored.", "SDEX quotes are in USDC; the USDC/USD and USDT/USD basis is ignored (treated as 1:1)."],
    sources: ["stellar-horizon", "kraken"],
    ts: "2026-11-26T19:18:46.019Z",
  },
  cacheTtlSeconds: 10,
  sources: ["horizon", "kraken", "coinbase", "binance"],
  handler: async (_params, ctx) => {
    const a = await xlmArbitrage();
    const s = a.sdex.snapshot;
    const slip = (x: number) => (Number.isFinite(x) ? dp(x, 4) : null);
    return {
      verdict: a.scan.verdict,
      best: a.scan.best ? legOut(a.scan.best) : null,
      opportunities: a.scan.legs.map(legOut),
      venues: a.venues.map(venueOut),
      sdex: {
        best_bid: sig(s.bestBid, 7),
        best_ask: sig(s.bestAsk, 7),
        mid: sig(s.mid, 7),
        spread_pct: dp(s.spreadPct, 4),
        buy_vwap: sigOrNull(a.sdexBuy.vwap, 7),
        sell_vwap: sigOrNull(a.sdexSell.vwap, 7),
        buy_slippage_pct: slip(a.sdexBuy.slippagePct),
        sell_slippage_pct: slip(a.sdexSell.slippagePct),
      },
      size_xlm: a.sizeXlm,
      threshold_pct: a.scan.thresholdPct,
      unavailable: a.venues.filter((v) => v.status === "unavailable").map((v) => v.error ?? v.venue),
      notes: a.scan.notes,
      sources: ["stellar-horizon", ...a.venues.filter((v) => v.status === "ok").map((v) => v.venue)],
      ts: ctx.now.toISOString(),
    };
  },
});
