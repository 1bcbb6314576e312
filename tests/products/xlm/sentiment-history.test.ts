import { describe, expect, it } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { sentimentHistory } from "@/lib/catalog/products/xlm/sentiment-history";
import { UnavailableError, ValidationError } from "@/lib/errors";
import { clearCache } from "@/lib/market/cache";
import { useSimulator } from "../../helpers/in-process";
import { freezeTime, raw, rawBookXlm, total } from "./raw";

const { sim } = useSimulator();
const HOUR = 3_600_000;
const DAY = 86_400_000;
const params = (q: Record<string, string>) => validateOrThrow(paramsSchema(sentimentHistory.params), q, "query");
const run = (q: Record<string, string> = {}) => runProduct(sentimentHistory, params(q)) as Promise<any>;
const clamp = (x: number) => Math.max(-1, Math.min(1, x));

/** Linear interpolation over [ms, price] pairs (the test's own, independent of the product). */
function priceAt(points: Array<[number, number]>, t: number): number {
  const last = points[points.length - 1]!;
  if (t >= last[0]) return last[1];
  const i = points.findIndex(([pt]) => pt > t);
  const [ta, pa] = points[i - 1]!;
  const [tb, pb] = points[i]!;
  return pa + ((pb - pa) * (t - ta)) / (tb - ta);
}

function issue(q: Record<string, string>) {
  try {
    params(q);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).detail;
  }
  throw new Error("expected a validation error");
}

describe("GET /v1/sentiment-history: parameters", () => {
  it("answers 422 with the exact pydantic-style issue for out-of-range and non-integer hours", () => {
    expect(issue({ hours: "0" })).toEqual([
      { loc: ["query", "hours"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal", input: "0", ctx: { ge: 1 } },
    ]);
    expect(issue({ hours: "169" })).toEqual([
      { loc: ["query", "hours"], msg: "Input should be less than or equal to 168", type: "less_than_equal", input: "169", ctx: { le: 168 } },
    ]);
    for (const bad of ["abc", "1.5"]) {
      expect(issue({ hours: bad })).toEqual([
        { loc: ["query", "hours"], msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing", input: bad },
      ]);
    }
    expect(params({})).toEqual({ hours: 24 });
    expect(params({ hours: "168" })).toEqual({ hours: 168 });
  });
});

describe("GET /v1/sentiment-history: series", () => {
  it("returns exactly `hours` hourly bars, oldest first, with order flow on the latest bar only", async () => {
    freezeTime();
    for (const hours of [1, 24, 168]) {
      const out = await run({ hours: String(hours) });
      expect(out.hours).toBe(hours);
      expect(out.bars).toHaveLength(hours);
      const ts = out.bars.map((b: any) => Date.parse(b.ts));
      expect(ts.at(-1)).toBe(Date.now());
      for (let i = 1; i < ts.length; i++) expect(ts[i] - ts[i - 1]).toBe(HOUR);
      out.bars.slice(0, -1).forEach((b: any) => expect(b.components.order_flow).toBeNull());
      expect(out.bars.at(-1).components.order_flow).not.toBeNull();
      for (const b of out.bars) expect(b.momentum_24h_pct).not.toBeNull();
    }
  });

  it("reconstructs momentum from hourly prices, maps the daily Fear & Greed and recombines per bar", async () => {
    freezeTime();
    const out = await run({ hours: "30" });
    const days = Math.ceil(30 / 24) + 1; // 3
    const chart = (await raw(sim(), `/coingecko/api/v3/coins/stellar/market_chart?vs_currency=usd&days=${days}`)).prices as Array<[number, number]>;
    expect(chart[1]![0] - chart[0]![0]).toBe(HOUR); // hourly points, as the keyless API gives for 2..90 days
    const fng = (await raw(sim(), `/alternative/fng/?limit=${days + 1}`)).data as Array<{ value: string; timestamp: string }>;
    const fngOfDay = (t: number) => Number(fng.find((d) => Number(d.timestamp) * 1000 === Math.floor(t / DAY) * DAY)!.value);
    const book = await rawBookXlm(sim());
    const bx = total(book.bids.map((l) => l.xlm));
    const ax = total(book.asks.map((l) => l.xlm));
    const imbalance = (bx - ax) / (bx + ax);

    out.bars.forEach((bar: any, i: number) => {
      const t = Date.parse(bar.ts);
      const p = priceAt(chart, t);
      const mom = (p / priceAt(chart, t - 24 * HOUR) - 1) * 100;
      const f = (fngOfDay(t) - 50) / 50;
      const m = clamp(mom / 5);
      expect(bar.price_usd).toBeCloseTo(p, 6);
      expect(bar.momentum_24h_pct).toBeCloseTo(mom, 3);
      expect(bar.fng).toBe(fngOfDay(t));
      expect(bar.components.fear_greed).toBeCloseTo(f, 4);
      expect(bar.components.momentum).toBeCloseTo(m, 4);
      const last = i === out.bars.length - 1;
      // Older bars: order flow is null, so 0.4 and 0.3 are renormalised over 0.7.
      const expected = last ? 0.4 * f + 0.3 * imbalance + 0.3 * m : (0.4 * f + 0.3 * m) / 0.7;
      expect(bar.sentiment).toBeCloseTo(expected, 3);
    });
    expect(out).toMatchObject({ degraded: false, unavailable: [], weights: { fear_greed: 0.4, order_flow: 0.3, momentum: 0.3 } });
  });

  it("keeps serving when the order book or Fear & Greed is down, naming what is missing", async () => {
    freezeTime();
    sim().setFault("horizon", { mode: "error", status: 500 });
    const a = await run({ hours: "6" });
    expect(a.bars).toHaveLength(6);
    expect(a.bars.every((b: any) => b.components.order_flow === null)).toBe(true);
    expect(a.degraded).toBe(true);
    expect(a.unavailable).toEqual(["order_flow: horizon: HTTP 500"]);
    const lastA = a.bars.at(-1);
    expect(lastA.sentiment).toBeCloseTo((0.4 * lastA.components.fear_greed + 0.3 * lastA.components.momentum) / 0.7, 3);

    sim().clearFaults();
    clearCache(); // Fear & Greed read by the first call is cached
    sim().setFault("alternative", { mode: "error", status: 500 });
    const b = await run({ hours: "7" });
    expect(b.bars.every((x: any) => x.fng === null && x.components.fear_greed === null)).toBe(true);
    expect(b.unavailable).toEqual(["fear_greed: alternative: HTTP 500"]);
    expect(b.bars[0].sentiment).toBeCloseTo(b.bars[0].components.momentum, 4);
  });

  it("is unavailable without the hourly price history", async () => {
    sim().setFault("coingecko", { mode: "error", status: 429 });
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/hourly prices.*coingecko: rate limited/);
  });
});
