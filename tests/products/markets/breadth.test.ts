import { describe, expect, it } from "vitest";
import { breadth, computeBreadth } from "@/lib/catalog/products/markets/breadth";
import { UnavailableError } from "@/lib/errors";
import { ASSETS } from "@/lib/upstream-sim/world";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

type Row = { id: string; symbol: string; market_cap: number; market_cap_rank: number; price_change_percentage_24h: number | null };
type Out = Record<string, unknown> & { stablecoins_excluded: string[]; unavailable: string[] };

/** Stablecoins per the simulator's own asset table (independent of the product's filter). */
const STABLE = new Set(ASSETS.filter((a) => a.stable).map((a) => a.id));

function regime(b: number, m: number): string {
  if (b >= 60 && m >= 0.5) return "risk_on";
  if (b <= 40 && m <= -0.5) return "risk_off";
  if (b >= 55 && m > 0) return "mild_risk_on";
  if (b <= 45 && m < 0) return "mild_risk_off";
  return "mixed";
}

async function expected() {
  const rows = await rawCg<Row[]>(sim(), "/api/v3/coins/markets?vs_currency=usd&order=market_cap_desc&per_page=250&page=1");
  const g = await rawCg<{ data: { market_cap_percentage: Record<string, number> } }>(sim(), "/api/v3/global");
  const top = rows.filter((r) => !STABLE.has(r.id)).sort((a, b) => b.market_cap - a.market_cap).slice(0, 50);
  const ch = top.map((r) => r.price_change_percentage_24h!);
  const adv = ch.filter((c) => c > 0).length;
  const dec = ch.filter((c) => c < 0).length;
  const mean = ch.reduce((a, b) => a + b, 0) / ch.length;
  const s = [...ch].sort((a, b) => a - b);
  const median = (s[24]! + s[25]!) / 2;
  const chg = (id: string) => rows.find((r) => r.id === id)!.price_change_percentage_24h!;
  return { rows, top, g: g.data, adv, dec, breadthPct: (100 * adv) / 50, mean, median, xlm: chg("stellar"), btc: chg("bitcoin"), eth: chg("ethereum") };
}

describe("GET /v1/breadth", () => {
  it("measures the top 50 non-stablecoins, recomputed from the raw market rows", async () => {
    const out = await run<Out>(breadth);
    const e = await expected();
    expect(out.top_n).toBe(50);
    expect(out.n).toBe(50);
    expect(out.advancers).toBe(e.adv);
    expect(out.decliners).toBe(e.dec);
    expect(out.unchanged).toBe(50 - e.adv - e.dec);
    expect(out.breadth_pct).toBeCloseTo(e.breadthPct, 2);
    expect(Math.abs((out.mean_change_24h_pct as number) - e.mean)).toBeLessThanOrEqual(0.0006);
    expect(Math.abs((out.median_change_24h_pct as number) - e.median)).toBeLessThanOrEqual(0.0006);
    expect(out.regime).toBe(regime(e.breadthPct, e.mean));
    expect(out.btc_dominance_pct).toBeCloseTo(e.g.market_cap_percentage.btc!, 2);
    expect(out.eth_dominance_pct).toBeCloseTo(e.g.market_cap_percentage.eth!, 2);
    expect(Math.abs((out.xlm_vs_btc_pp as number) - (e.xlm - e.btc))).toBeLessThanOrEqual(0.0011);
    expect(Math.abs((out.xlm_vs_eth_pp as number) - (e.xlm - e.eth))).toBeLessThanOrEqual(0.0011);
    expect(out.xlm_change_24h_pct).toBeCloseTo(e.xlm, 3);
    expect(out.xlm_market_cap_rank).toBe(e.rows.find((r) => r.id === "stellar")!.market_cap_rank);
    expect(out.unavailable).toEqual([]);
  });

  it("excludes stablecoins: they rank in the top 50 but are reported as dropped", async () => {
    const out = await run<Out>(breadth);
    const e = await expected();
    const fiftieth = e.top[49]!.market_cap;
    const displaced = e.rows.filter((r) => STABLE.has(r.id) && r.market_cap >= fiftieth).map((r) => r.id);
    expect(displaced.length).toBeGreaterThan(0);
    expect([...out.stablecoins_excluded].sort()).toEqual(displaced.sort());
    // Had stablecoins been counted, the top 50 by rank would differ.
    const naive = e.rows.slice(0, 50);
    expect(naive.some((r) => STABLE.has(r.id))).toBe(true);
  });

  it("still serves breadth when the global figures are down (dominance null)", async () => {
    sim().setFault("coingecko", { mode: "error", pathPrefix: "/api/v3/global" });
    const out = await run<Out>(breadth);
    sim().clearFaults();
    const e = await expected();
    expect(out.btc_dominance_pct).toBeNull();
    expect(out.eth_dominance_pct).toBeNull();
    expect(out.unavailable).toEqual(["global"]);
    expect(out.advancers).toBe(e.adv);
  });

  it("is unavailable when the market rows are down", async () => {
    sim().setFault("coingecko", { mode: "error", pathPrefix: "/api/v3/coins/markets" });
    await expect(run(breadth)).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("coingecko", { mode: "malformed", pathPrefix: "/api/v3/coins/markets" });
    await expect(run(breadth)).rejects.toBeInstanceOf(UnavailableError);
  });

  it("exports computeBreadth for composite products, sharing one upstream request per resource", async () => {
    const now = new Date();
    const [a, b] = await Promise.all([computeBreadth(now), run<Out>(breadth)]);
    expect({ ...a, ts: null }).toEqual({ ...b, ts: null });
    expect(a.ts).toBe(now.toISOString());
    // One market-rows request and one global request, despite two callers.
    expect(sim().total("coingecko")).toBe(2);
  });
});
