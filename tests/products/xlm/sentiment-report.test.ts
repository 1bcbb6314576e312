import { describe, expect, it } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { arbOpportunities } from "@/lib/catalog/products/xlm/arb-opportunities";
import { sentiment } from "@/lib/catalog/products/xlm/sentiment";
import { sentimentReport } from "@/lib/catalog/products/xlm/sentiment-report";
import type { AnyProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { freezeTime, raw, rawBookXlm, total } from "./raw";

const { sim } = useSimulator();
const run = (p: AnyProduct) => runProduct(p, validateOrThrow(paramsSchema(p.params), {}, "query")) as Promise<any>;
const clamp = (x: number) => Math.max(-1, Math.min(1, x));

describe("GET /v1/sentiment-report", () => {
  it("shows the raw components, the composite and a directional verdict consistent with them", async () => {
    freezeTime();
    const out = await run(sentimentReport);
    const fng = (await raw(sim(), "/alternative/fng/?limit=1")).data[0];
    const book = await rawBookXlm(sim());
    const bx = total(book.bids.map((l) => l.xlm));
    const ax = total(book.asks.map((l) => l.xlm));
    const cg = (await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd,btc&include_24hr_change=true")).stellar;

    expect(out.components.fear_greed).toMatchObject({ status: "ok", value: Number(fng.value), classification: fng.value_classification, weight: 0.4 });
    expect(out.components.fear_greed.as_of).toBe(new Date(Number(fng.timestamp) * 1000).toISOString());
    expect(out.components.order_flow.imbalance).toBeCloseTo((bx - ax) / (bx + ax), 4);
    expect(out.components.order_flow.bid_depth_xlm).toBeCloseTo(bx, 1);
    expect(out.components.order_flow.ask_depth_xlm).toBeCloseTo(ax, 1);
    expect(out.components.order_flow.levels_per_side).toBe(20);
    expect(out.components.momentum.change_24h_pct).toBeCloseTo(cg.usd_24h_change, 4);

    const scores = [(Number(fng.value) - 50) / 50, (bx - ax) / (bx + ax), clamp(cg.usd_24h_change / 5)];
    const composite = 0.4 * scores[0]! + 0.3 * scores[1]! + 0.3 * scores[2]!;
    expect(out.sentiment).toBeCloseTo(composite, 4);
    const same = await run(sentiment);
    expect(out.sentiment).toBe(same.sentiment);

    const direction = composite >= 0.15 ? "bullish" : composite <= -0.15 ? "bearish" : "neutral";
    const agreement = scores.filter((s) => Math.sign(s) === Math.sign(composite)).length / 3;
    expect(out.verdict.direction).toBe(direction);
    expect(out.verdict.agreement).toBeCloseTo(agreement, 4);
    expect(out.verdict.confidence).toBeCloseTo(Math.min(1, Math.abs(composite) / 0.5) * (0.5 + 0.5 * agreement), 3);
    expect(out.verdict.rationale.length).toBeGreaterThan(0);

    expect(out.price).toMatchObject({ price_source: "coingecko" });
    expect(out.price.price_usd).toBeCloseTo(cg.usd, 6);
    expect(out.price.xlm_btc).toBeCloseTo(cg.btc, 10);
    expect(out.price.sdex_mid).toBeCloseTo((book.bids[0]!.price + book.asks[0]!.price) / 2, 6);
    expect(out).toMatchObject({ degraded: false, missing: [] });
  });

  it("carries the same arbitrage result as /v1/arb-opportunities (one shared computation)", async () => {
    freezeTime();
    const out = await run(sentimentReport);
    const arb = await run(arbOpportunities);
    expect(out.arbitrage).toMatchObject({ status: "ok", verdict: arb.verdict, size_xlm: arb.size_xlm, threshold_pct: arb.threshold_pct, error: null });
    expect(out.arbitrage.best).toEqual(arb.best);
    // One SDEX book read served the sentiment, the report's arbitrage context and the arb product.
    expect(Object.entries(sim().counts()).filter(([k]) => k.startsWith("horizon /order_book")).reduce((a, [, n]) => a + n, 0)).toBe(1);
  });

  it("still answers when Horizon is down: order flow and arbitrage context are marked unavailable", async () => {
    freezeTime();
    sim().setFault("horizon", { mode: "error", status: 504 });
    const out = await run(sentimentReport);
    expect(out.components.order_flow).toMatchObject({ status: "unavailable", imbalance: null, bid_depth_xlm: null, score: null, weight: 0, error: "horizon: HTTP 504" });
    expect(out.components.fear_greed.weight).toBeCloseTo(4 / 7, 4);
    expect(out.components.momentum.weight).toBeCloseTo(3 / 7, 4);
    expect(out.sentiment).toBeCloseTo((4 / 7) * out.components.fear_greed.score + (3 / 7) * out.components.momentum.score, 3);
    expect(out.arbitrage).toMatchObject({ status: "unavailable", verdict: null, best: null });
    expect(out.arbitrage.error).toMatch(/SDEX order book/);
    expect(out.verdict.rationale.join(" ")).toMatch(/order_flow/);
    expect(out).toMatchObject({ degraded: true, missing: ["order_flow"] });
  });

  it("rejects with UnavailableError when every sentiment component is down", async () => {
    for (const p of ["alternative", "horizon", "coingecko"]) sim().setFault(p, { mode: "error", status: 500 });
    await expect(run(sentimentReport)).rejects.toBeInstanceOf(UnavailableError);
  });
});
