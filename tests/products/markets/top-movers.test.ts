import { describe, expect, it } from "vitest";
import { topMoversProduct } from "@/lib/catalog/products/markets/top-movers";
import { UnavailableError } from "@/lib/errors";
import { ASSETS } from "@/lib/upstream-sim/world";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

type Row = { id: string; symbol: string; current_price: number; market_cap_rank: number; total_volume: number; price_change_percentage_24h: number };
type Mover = { symbol: string; coingecko_id: string; price_usd: number; change_24h_pct: number; volume_24h_usd: number; market_cap_rank: number };
type Out = { gainers: Mover[]; losers: Mover[]; universe: number; eligible: number; min_volume_usd: number };

const STABLE = new Set(ASSETS.filter((a) => a.stable).map((a) => a.id));

describe("GET /v1/top-movers", () => {
  it("lists the 10 biggest gainers and losers among liquid non-stablecoins", async () => {
    const out = await run<Out>(topMoversProduct);
    const rows = await rawCg<Row[]>(sim(), "/api/v3/coins/markets?vs_currency=usd&order=market_cap_desc&per_page=250&page=1");
    const eligible = rows.filter((r) => !STABLE.has(r.id) && r.total_volume >= 1e6);
    const gainers = eligible.filter((r) => r.price_change_percentage_24h > 0).sort((a, b) => b.price_change_percentage_24h - a.price_change_percentage_24h).slice(0, 10);
    const losers = eligible.filter((r) => r.price_change_percentage_24h < 0).sort((a, b) => a.price_change_percentage_24h - b.price_change_percentage_24h).slice(0, 10);
    expect(out.universe).toBe(rows.length);
    expect(out.eligible).toBe(eligible.length);
    expect(out.min_volume_usd).toBe(1_000_000);
    expect(out.gainers.map((m) => m.coingecko_id)).toEqual(gainers.map((r) => r.id));
    expect(out.losers.map((m) => m.coingecko_id)).toEqual(losers.map((r) => r.id));
    for (const [m, r] of [...out.gainers.map((m, i) => [m, gainers[i]!] as const), ...out.losers.map((m, i) => [m, losers[i]!] as const)]) {
      expect(m.symbol).toBe(r.symbol.toUpperCase());
      // Rounded to 2 decimals: at most half a hundredth off, ties included (toBeCloseTo(x, 2)
      // wants strictly less, so a change of exactly -12.545 reported as -12.54 failed it).
      expect(Math.abs(m.change_24h_pct - r.price_change_percentage_24h)).toBeLessThanOrEqual(0.005 + 1e-9);
      expect(Math.abs(m.price_usd / r.current_price - 1)).toBeLessThan(1e-6);
      expect(m.volume_24h_usd).toBe(r.total_volume);
      expect(m.market_cap_rank).toBe(r.market_cap_rank);
    }
    for (const m of [...out.gainers, ...out.losers]) expect(STABLE.has(m.coingecko_id)).toBe(false);
    expect(out.gainers.length).toBeLessThanOrEqual(10);
    expect(out.losers.length).toBeLessThanOrEqual(10);
  });

  it("is unavailable when CoinGecko is down", async () => {
    sim().setFault("coingecko", { mode: "not_json" });
    await expect(run(topMoversProduct)).rejects.toBeInstanceOf(UnavailableError);
  });
});
