// GET /v1/quote — XLM/USD price plus the SDEX XLM/USDC order-book snapshot.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { simplePrice, type SimplePriceQuote } from "@/lib/market/sources/coingecko";
import { failureReason } from "@/lib/market/xlm/failure";
import { dp, dpOrNull, sig, sigOrNull } from "@/lib/market/xlm/format";
import { sdexBook, SDEX_BOOK_LEVELS } from "@/lib/market/xlm/sdex";

const output = z.object({
  price_usd: z.number().positive().describe("XLM price in USD (CoinGecko; the SDEX mid when CoinGecko is down, see price_source)"),
  price_source: z.enum(["coingecko", "sdex_mid"]).describe("Where price_usd came from"),
  change_24h_pct: z.number().nullable().describe("XLM 24h price change in percent (CoinGecko); null when unavailable"),
  xlm_btc: z.number().positive().nullable().describe("XLM price in BTC (CoinGecko); null when unavailable"),
  sdex: z
    .object({
      pair: z.literal("XLM/USDC").describe("SDEX pair: base XLM (native), counter Circle USDC"),
      best_bid: z.number().positive().describe("Highest bid, USDC per XLM"),
      best_ask: z.number().positive().describe("Lowest ask, USDC per XLM"),
      mid: z.number().positive().describe("(best_bid + best_ask) / 2"),
      spread_pct: z.number().describe("(best_ask - best_bid) / mid, percent"),
      bid_depth_xlm: z.number().nonnegative().describe("XLM wanted by the listed bids (Horizon bid amounts are USDC and are converted: amount / price)"),
      ask_depth_xlm: z.number().nonnegative().describe("XLM offered by the listed asks (Horizon ask amounts are already XLM)"),
      bid_depth_usd: z.number().nonnegative().describe("USDC notional of the listed bids"),
      ask_depth_usd: z.number().nonnegative().describe("USDC notional of the listed asks"),
      bid_levels: z.number().int().nonnegative().describe("Number of bid price levels read"),
      ask_levels: z.number().int().nonnegative().describe("Number of ask price levels read"),
      levels: z.number().int().nonnegative().describe("Total price levels read (bids + asks)"),
      imbalance: z.number().min(-1).max(1).describe("(bid depth - ask depth) / total, both in XLM; positive = more resting demand"),
      crossed: z.boolean().describe("True if best bid ≥ best ask (should not happen; flagged rather than hidden)"),
    })
    .describe("SDEX order-book snapshot over the top levels per side (Stellar Horizon)"),
  sdex_premium_pct: z.number().nullable().describe("SDEX mid versus the CoinGecko price, percent (USDC/USD basis included); null without a CoinGecko price"),
  degraded: z.boolean().describe("True when a source was unavailable"),
  unavailable: z.array(z.string()).describe("Why a source was unavailable (empty when complete)"),
  sources: z.array(z.string()).describe("Upstream providers used"),
  ts: z.string().describe("Time the quote was computed (ISO 8601)"),
});

export const quote = defineProduct({
  id: "quote",
  path: "/v1/quote",
  title: "XLM quote with SDEX order book",
  description: `XLM/USD price with 24h change and XLM/BTC, plus a snapshot of the SDEX XLM/USDC order book (top ${SDEX_BOOK_LEVELS} levels per side): best bid/ask, mid, spread, depth per side in XLM and USD, number of levels and order-flow imbalance.`,
  tags: ["price", "xlm", "orderbook"],
  kind: "data",
  httpPrice: "0.005",
  tool: { name: "get_xlm_quote", price: "0.10", label: "XLM quote with SDEX order book" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output,
  example: {
    price_usd: 0.4202588,
    price_source: "coingecko",
    change_24h_pct: 5.9938,
    xlm_btc: 0.000004352696,
    sdex: {
      pair: "XLM/USDC",
      best_bid: 0.4201693,
      best_ask: 0.4204213,
      mid: 0.4202953,
      spread_pct: 0.06,
      bid_depth_xlm: 308081.19,
      ask_depth_xlm: 249678.63,
      bid_depth_usd: 128006.33,
      ask_depth_usd: 106188.72,
      bid_levels: 20,
      ask_levels: 20,
      levels: 40,
      imbalance: 0.1047,
      crossed: false,
    },
    sdex_premium_pct: 0.0087,
    degraded: false,
    unavailable: [],
    sources: ["stellar-horizon", "coingecko"],
    ts: "2026-11-26T19:18:45.546Z",
  },
  cacheTtlSeconds: 10,
  sources: ["horizon", "coingecko"],
  handler: async (_params, ctx) => {
    const [bookR, priceR] = await Promise.allSettled([sdexBook(), simplePrice(["stellar"])]);
    // The order book is what this product sells beyond a plain price: without it, no quote.
    if (bookR.status === "rejected") {
      throw new UnavailableError(`XLM quote is unavailable: the SDEX order book could not be read (${failureReason(bookR.reason, "sdex")}).`, { sources: ["horizon"] });
    }
    const { snapshot: s, imbalance } = bookR.value;
    const unavailable: string[] = [];
    let cg: SimplePriceQuote | null = null;
    if (priceR.status === "rejected") unavailable.push(failureReason(priceR.reason, "price"));
    else if (!priceR.value.stellar) unavailable.push("coingecko: no stellar quote");
    else cg = priceR.value.stellar;
    return {
      price_usd: sig(cg?.usd ?? s.mid, 7),
      price_source: cg ? ("coingecko" as const) : ("sdex_mid" as const),
      change_24h_pct: dpOrNull(cg?.usd24hChangePct, 4),
      xlm_btc: sigOrNull(cg?.btc, 7),
      sdex: {
        pair: "XLM/USDC" as const,
        best_bid: sig(s.bestBid, 7),
        best_ask: sig(s.bestAsk, 7),
        mid: sig(s.mid, 7),
        spread_pct: dp(s.spreadPct, 4),
        bid_depth_xlm: dp(s.bidDepthXlm, 2),
        ask_depth_xlm: dp(s.askDepthXlm, 2),
        bid_depth_usd: dp(s.bidDepthUsd, 2),
        ask_depth_usd: dp(s.askDepthUsd, 2),
        bid_levels: s.bidLevels,
        ask_levels: s.askLevels,
        levels: s.levels,
        imbalance: dp(imbalance, 4),
        crossed: s.crossed,
      },
      sdex_premium_pct: cg ? dp((s.mid / cg.usd - 1) * 100, 4) : null,
      degraded: unavailable.length > 0,
      unavailable,
      sources: cg ? ["stellar-horizon", "coingecko"] : ["stellar-horizon"],
      ts: ctx.now.toISOString(),
    };
  },
});
