// GET /v1/sentiment — composite XLM sentiment from Fear & Greed, SDEX order flow and 24h momentum.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { defineProduct } from "@/lib/catalog/types";
import { xlmSnapshot, xlmSnapshotSchema } from "@/lib/market/xlm/snapshot";

export const sentiment = defineProduct({
  id: "sentiment",
  path: "/v1/sentiment",
  title: "XLM composite sentiment",
  description:
    "Composite XLM sentiment in [-1, 1] (positive = bullish) from the Fear & Greed index, the SDEX XLM/USDC order-flow imbalance and 24h price momentum, with the per-component breakdown (score, raw value, weight used, status), live price, SDEX mid and spread. A component whose source is down is marked unavailable and the other weights are renormalised.",
  tags: ["sentiment", "xlm"],
  kind: "data",
  httpPrice: "0.005",
  // The free MCP tool get_xlm_sentiment returns the same snapshot; it has no path.
  tool: null,
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: xlmSnapshotSchema,
  example: {
    sentiment: 0.1794,
    label: "bullish",
    sentiment_source: "composite:fear_greed+order_flow+momentum",
    components: {
      fear_greed: {
        status: "ok",
        score: -0.38,
        raw: 31,
        weight: 0.4,
        configured_weight: 0.4,
        source: "alternative.me",
        error: null,
      },
      order_flow: {
        status: "ok",
        score: 0.1047,
        raw: 0.1047,
        weight: 0.3,
        configured_weight: 0.3,
        source: "stellar-horizon",
        error: null,
      },
      momentum: {
        status: "ok",
        score: 1,
        raw: 5.9938,
        weight: 0.3,
        configured_weight: 0.3,
        source: "coingecko",
        error: null,
      },
    },
    price_usd: 0.4202588,
    price_source: "coingecko",
    mid: 0.4202953,
    spread_pct: 0.06,
    degraded: false,
    missing: [],
    ts: "2026-11-26T19:18:45.310Z",
  },
  // The book changes every ledger (~5.5 s); 15 s keeps the order-flow component fresh.
  cacheTtlSeconds: 15,
  sources: ["alternative", "horizon", "coingecko"],
  handler: (_params, ctx) => xlmSnapshot(ctx.now),
});
