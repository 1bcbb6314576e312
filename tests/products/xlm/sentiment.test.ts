import { describe, expect, it } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { toolTitle } from "@/lib/catalog/types";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { sentiment } from "@/lib/catalog/products/xlm/sentiment";
import { XLM_PRODUCTS } from "@/lib/catalog/products/xlm";
import { resetEnvForTests } from "@/lib/config/env";
import { UnavailableError } from "@/lib/errors";
import { sampleFromSnapshot, xlmSnapshot } from "@/lib/market/xlm/snapshot";
import { freeSnapshot } from "@/lib/catalog/free-snapshot";
import { useSimulator } from "../../helpers/in-process";
import { freezeTime, raw, rawBookXlm, total } from "./raw";

const { sim } = useSimulator();
const run = (q: Record<string, string> = {}) => runProduct(sentiment, validateOrThrow(paramsSchema(sentiment.params), q, "query")) as Promise<any>;
const clamp = (x: number) => Math.max(-1, Math.min(1, x));

/** The three raw inputs read straight from the simulator's wire format. */
async function rawInputs() {
  const fng = Number((await raw(sim(), "/alternative/fng/?limit=1")).data[0].value);
  const book = await rawBookXlm(sim());
  const b = total(book.bids.map((l) => l.xlm));
  const a = total(book.asks.map((l) => l.xlm));
  const cg = (await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd&include_24hr_change=true")).stellar;
  return {
    fng,
    imbalance: (b - a) / (b + a),
    change: cg.usd_24h_change as number,
    usd: cg.usd as number,
    bestBid: book.bids[0]!.price,
    bestAsk: book.asks[0]!.price,
  };
}

describe("catalog facts", () => {
  it("lists the family in order with the spec's prices", () => {
    expect(XLM_PRODUCTS.map((p) => [p.id, p.path, p.httpPrice, p.tool?.name ?? null, p.tool?.price ?? null, p.credits, p.freeTier])).toEqual([
      ["sentiment", "/v1/sentiment", "0.005", null, null, 1, true],
      ["quote", "/v1/quote", "0.005", "get_xlm_quote", "0.10", 1, true],
      ["sentiment-report", "/v1/sentiment-report", "0.05", "get_xlm_sentiment_report", "0.25", 2, false],
      ["sentiment-history", "/v1/sentiment-history", "0.10", "get_xlm_sentiment_history", "0.25", 2, false],
      ["xlm-network", "/v1/xlm-network", "0.01", "get_xlm_network_pulse", "0.10", 1, true],
      ["arb-opportunities", "/v1/arb-opportunities", "0.005", "get_arbitrage_opportunities", "0.10", 1, true],
    ]);
    for (const p of XLM_PRODUCTS) if (p.tool) expect(toolTitle(p.tool)).toMatch(new RegExp(`^.+ \\(\\$${p.tool.price.replace(".", "\\.")}\\)$`));
    expect(sentiment.tags).toEqual(["sentiment", "xlm"]);
    expect(sentiment.cacheTtlSeconds).toBe(15);
  });
});

describe("GET /v1/sentiment", () => {
  it("combines Fear & Greed, order flow (units fixed per side) and momentum with the default weights", async () => {
    freezeTime();
    const out = await run();
    const r = await rawInputs();
    const f = (r.fng - 50) / 50;
    const o = r.imbalance;
    const m = clamp(r.change / 5);
    expect(out.components.fear_greed).toMatchObject({ status: "ok", raw: r.fng, weight: 0.4, configured_weight: 0.4, error: null });
    expect(out.components.fear_greed.score).toBeCloseTo(f, 4);
    expect(out.components.order_flow.raw).toBeCloseTo(o, 4);
    expect(out.components.order_flow.score).toBeCloseTo(o, 4);
    expect(out.components.momentum.raw).toBeCloseTo(r.change, 4);
    expect(out.components.momentum.score).toBeCloseTo(m, 4);
    expect(out.sentiment).toBeCloseTo(0.4 * f + 0.3 * o + 0.3 * m, 4);
    expect(out.sentiment_source).toBe("composite:fear_greed+order_flow+momentum");
    expect(out.price_usd).toBeCloseTo(r.usd, 6);
    expect(out.price_source).toBe("coingecko");
    const mid = (r.bestBid + r.bestAsk) / 2;
    expect(out.mid).toBeCloseTo(mid, 6);
    expect(out.spread_pct).toBeCloseTo(((r.bestAsk - r.bestBid) / mid) * 100, 4);
    expect(out).toMatchObject({ degraded: false, missing: [] });
    expect(out.ts).toBe(new Date().toISOString());
    expect(["strongly_bearish", "bearish", "neutral", "bullish", "strongly_bullish"]).toContain(out.label);
  });

  it("serves a degraded 200 when the order book is down, renormalising the other weights", async () => {
    freezeTime();
    sim().setFault("horizon", { mode: "error", status: 503 });
    const out = await run();
    const fng = Number((await raw(sim(), "/alternative/fng/?limit=1")).data[0].value);
    const chg = (await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd&include_24hr_change=true")).stellar.usd_24h_change;
    const f = (fng - 50) / 50;
    const m = clamp(chg / 5);
    expect(out.degraded).toBe(true);
    expect(out.missing).toEqual(["order_flow"]);
    expect(out.components.order_flow).toMatchObject({ status: "unavailable", score: null, raw: null, weight: 0, configured_weight: 0.3 });
    expect(out.components.order_flow.error).toMatch(/horizon.*503/);
    // 0.4 and 0.3 renormalised over 0.7: 4/7 and 3/7.
    expect(out.components.fear_greed.weight).toBeCloseTo(4 / 7, 4);
    expect(out.components.momentum.weight).toBeCloseTo(3 / 7, 4);
    expect(out.sentiment).toBeCloseTo((4 / 7) * f + (3 / 7) * m, 4);
    expect(out.sentiment_source).toBe("composite:fear_greed+momentum");
    expect(out.mid).toBeNull();
    expect(out.spread_pct).toBeNull();
    expect(out.price_source).toBe("coingecko");
  });

  it("names the Fear & Greed component when alternative.me is down and prices from the SDEX mid when CoinGecko is down", async () => {
    freezeTime();
    sim().setFault("alternative", { mode: "malformed" });
    sim().setFault("coingecko", { mode: "hang" });
    const out = await run();
    const book = await rawBookXlm(sim());
    const b = total(book.bids.map((l) => l.xlm));
    const a = total(book.asks.map((l) => l.xlm));
    expect(out.missing).toEqual(["fear_greed", "momentum"]);
    expect(out.components.fear_greed.error).toBe("alternative: unexpected response format");
    expect(out.components.momentum.error).toBe("coingecko: timed out");
    expect(out.components.order_flow.weight).toBe(1);
    expect(out.sentiment).toBeCloseTo((b - a) / (b + a), 4);
    expect(out.price_source).toBe("sdex_mid");
    expect(out.price_usd).toBeCloseTo((book.bids[0]!.price + book.asks[0]!.price) / 2, 6);
  });

  it("rejects with UnavailableError when all three components are down", async () => {
    sim().setFault("alternative", { mode: "error", status: 500 });
    sim().setFault("horizon", { mode: "error", status: 500 });
    sim().setFault("coingecko", { mode: "error", status: 429 });
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as UnavailableError).status).toBe(503);
    expect((err as Error).message).toMatch(/alternative.*horizon.*coingecko/);
  });

  it("applies SENTIMENT_WEIGHTS and fails loudly on an invalid setting", async () => {
    freezeTime();
    const saved = process.env.SENTIMENT_WEIGHTS;
    try {
      process.env.SENTIMENT_WEIGHTS = "fear_greed=1,order_flow=1,momentum=2";
      resetEnvForTests();
      const out = await xlmSnapshot(new Date());
      const r = await rawInputs();
      expect(out.components.momentum.configured_weight).toBe(0.5);
      expect(out.sentiment).toBeCloseTo(0.25 * ((r.fng - 50) / 50) + 0.25 * r.imbalance + 0.5 * clamp(r.change / 5), 4);

      process.env.SENTIMENT_WEIGHTS = "fear_greed=0.5,vibes=0.5";
      resetEnvForTests();
      await expect(xlmSnapshot(new Date())).rejects.toThrow(/SENTIMENT_WEIGHTS.*unknown sentiment weight "vibes"/);
    } finally {
      if (saved === undefined) delete process.env.SENTIMENT_WEIGHTS;
      else process.env.SENTIMENT_WEIGHTS = saved;
      resetEnvForTests();
    }
  });

  it("caches the response and reads each upstream once for concurrent callers", async () => {
    await Promise.all(Array.from({ length: 20 }, () => run()));
    expect(sim().total("horizon")).toBe(1);
    expect(sim().total("alternative")).toBe(1);
    expect(sim().total("coingecko")).toBe(1);
  });
});

describe("reduced sample snapshot", () => {
  it("carries only sentiment, label, price, ts and a note pointing to the paid endpoints", async () => {
    freezeTime();
    // The path /v1/sample takes: the shared free snapshot, reduced.
    const s = await sampleFromSnapshot(await freeSnapshot());
    const full = await run();
    expect(Object.keys(s).sort()).toEqual(["label", "note", "price_usd", "sentiment", "ts"]);
    expect(s.sentiment).toBe(full.sentiment);
    expect(s.price_usd).toBe(full.price_usd);
    expect(s.note).toContain("GET /v1/sentiment ($0.005)");
    expect(s.note).toContain("GET /v1/sentiment-report ($0.05)");
  });
});
