import { describe, expect, it } from "vitest";
import { prediction } from "@/lib/catalog/products/onchain/prediction";
import { UnavailableError } from "@/lib/errors";
import { round } from "@/lib/market/signals/math";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, freezeClock, rawGet, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

interface RawMarket {
  question: string;
  slug: string;
  endDate: string;
  volume24hr?: number;
  volumeNum: number;
  liquidityNum: number;
  outcomes: string;
  outcomePrices?: string;
  closed: boolean;
  events: Array<{ slug: string }>;
}
interface OutMarket {
  rank: number;
  question: string;
  slug: string;
  url: string;
  end_date: string;
  days_to_end: number;
  volume_24h_usd: number | null;
  volume_usd: number;
  liquidity_usd: number;
  outcomes: Array<{ outcome: string; probability: number }>;
  leading_outcome: string | null;
  leading_probability: number | null;
  yes_probability: number | null;
  overround: number | null;
}
interface Out {
  markets: OutMarket[];
  count: number;
  limit: number;
  total_volume_24h_usd: number;
}

const rawTop = () => rawGet<RawMarket[]>(sim(), "/polymarket/markets?active=true&closed=false&order=volume24hr&ascending=false&limit=50");

function expectMarket(m: OutMarket, r: RawMarket, rank: number, now: number): void {
  expect(m.rank).toBe(rank);
  expect(m.question).toBe(r.question);
  expect(m.slug).toBe(r.slug);
  expect(m.url).toBe(`https://polymarket.com/event/${r.events[0]!.slug}`);
  expect(m.end_date).toBe(new Date(r.endDate).toISOString());
  expect(m.days_to_end).toBeCloseTo((Date.parse(r.endDate) - now) / 86_400_000, 1);
  expect(m.volume_24h_usd).toBe(r.volume24hr === undefined ? null : round(r.volume24hr, 2));
  expect(Math.abs(m.volume_usd - r.volumeNum)).toBeLessThanOrEqual(0.0051);
  expect(Math.abs(m.liquidity_usd - r.liquidityNum)).toBeLessThanOrEqual(0.0051);
  const names = JSON.parse(r.outcomes) as string[];
  if (r.outcomePrices === undefined) {
    expect(m.outcomes).toEqual([]);
    expect(m.leading_outcome).toBeNull();
    expect(m.yes_probability).toBeNull();
    return;
  }
  const prices = (JSON.parse(r.outcomePrices) as string[]).map(Number);
  expect(m.outcomes).toEqual(names.map((n, i) => ({ outcome: n, probability: round(prices[i]!, 4) })));
  const lead = prices[0]! >= prices[1]! ? 0 : 1;
  expect(m.leading_outcome).toBe(names[lead]);
  expect(m.leading_probability).toBeCloseTo(prices[lead]!, 4);
  expect(m.yes_probability).toBe(names[0] === "Yes" ? round(prices[0]!, 4) : null);
  expect(m.overround).toBeCloseTo(prices[0]! + prices[1]! - 1, 4);
}

describe("GET /v1/prediction", () => {
  it("returns the top 10 markets by 24h volume with implied odds decoded from the JSON strings", async () => {
    const out = await run<Out>(prediction);
    const raw = await rawTop();
    expect(out.limit).toBe(10);
    expect(out.count).toBe(10);
    out.markets.forEach((m, i) => expectMarket(m, raw[i]!, i + 1, Date.now()));
    for (const m of out.markets) {
      const sum = m.outcomes.reduce((a, o) => a + o.probability, 0);
      if (m.outcomes.length) expect(Math.abs(sum - 1)).toBeLessThan(0.02);
    }
    const vols = out.markets.map((m) => m.volume_24h_usd!);
    for (let i = 1; i < vols.length; i++) expect(vols[i]!).toBeLessThanOrEqual(vols[i - 1]!);
    expect(out.total_volume_24h_usd).toBeCloseTo(vols.reduce((a, b) => a + b, 0), 1);
  });

  it("limit=50 returns every open market (fewer than 50), thin ones with null volume or no odds", async () => {
    const out = await run<Out>(prediction, { limit: "50" });
    const raw = await rawTop();
    expect(out.count).toBe(raw.length);
    expect(out.count).toBeGreaterThanOrEqual(25);
    expect(out.count).toBeLessThan(50);
    out.markets.forEach((m, i) => expectMarket(m, raw[i]!, i + 1, Date.now()));
    expect(out.markets.some((m) => m.volume_24h_usd === null)).toBe(true);
    expect(out.markets.some((m) => m.outcomes.length === 0)).toBe(true);
    expect(raw.every((r) => !r.closed)).toBe(true);
  });

  it("accepts the tool's string limit and serves every limit from one upstream request", async () => {
    const [a, b, c] = await Promise.all([run<Out>(prediction, { limit: "1" }), run<Out>(prediction, { limit: "5" }), run<Out>(prediction, { limit: "25" })]);
    expect([a.count, b.count, c.count]).toEqual([1, 5, 25]);
    expect(b.markets[0]).toEqual(a.markets[0]);
    expect(sim().total("polymarket")).toBe(1);
  });

  it("answers 422 with pydantic-style details for a bad limit", async () => {
    expect(await detailOf(prediction, { limit: "0" })).toEqual([
      { loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal", input: "0", ctx: { ge: 1 } },
    ]);
    expect(await detailOf(prediction, { limit: "51" })).toEqual([
      { loc: ["query", "limit"], msg: "Input should be less than or equal to 50", type: "less_than_equal", input: "51", ctx: { le: 50 } },
    ]);
    expect(await detailOf(prediction, { limit: "ten" })).toEqual([
      { loc: ["query", "limit"], msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing", input: "ten" },
    ]);
  });

  it("is unavailable (503) when Polymarket is down or answers garbage", async () => {
    sim().setFault("polymarket", { mode: "error", status: 500 });
    await expect(run(prediction)).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("polymarket", { mode: "not_json" });
    await expect(run(prediction, { limit: "3" })).rejects.toBeInstanceOf(UnavailableError);
  });
});
