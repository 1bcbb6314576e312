import { describe, expect, it } from "vitest";
import { btcQuote } from "@/lib/catalog/products/markets/btc-quote";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

interface RawRow {
  id: string;
  current_price: number;
  price_change_24h: number;
  price_change_percentage_24h: number;
  high_24h: number;
  low_24h: number;
  market_cap: number;
  market_cap_rank: number;
  total_volume: number;
  circulating_supply: number;
  max_supply: number | null;
}

const rel = (a: number, b: number) => Math.abs(a / b - 1);

describe("GET /v1/btc-quote", () => {
  it("matches the raw bitcoin market row and the global dominance", async () => {
    const out = await run<Record<string, number | string | null | string[]>>(btcQuote);
    const [row] = await rawCg<RawRow[]>(sim(), "/api/v3/coins/markets?vs_currency=usd&ids=bitcoin");
    const g = await rawCg<{ data: { market_cap_percentage: Record<string, number> } }>(sim(), "/api/v3/global");
    expect(rel(out.price_usd as number, row!.current_price)).toBeLessThan(1e-6);
    expect(rel(out.high_24h_usd as number, row!.high_24h)).toBeLessThan(1e-6);
    expect(rel(out.low_24h_usd as number, row!.low_24h)).toBeLessThan(1e-6);
    expect(out.low_24h_usd as number).toBeLessThanOrEqual(out.price_usd as number);
    expect(out.high_24h_usd as number).toBeGreaterThanOrEqual(out.price_usd as number);
    expect(out.change_24h_pct).toBeCloseTo(row!.price_change_percentage_24h, 4);
    expect(out.market_cap_usd).toBe(row!.market_cap);
    expect(out.volume_24h_usd).toBe(row!.total_volume);
    expect(out.market_cap_rank).toBe(1);
    expect(out.circulating_supply).toBe(row!.circulating_supply);
    expect(out.max_supply).toBe(21_000_000);
    expect(out.supply_mined_pct).toBeCloseTo((row!.circulating_supply / 21e6) * 100, 2);
    expect(out.btc_dominance_pct).toBeCloseTo(g.data.market_cap_percentage.btc!, 2);
    expect(out.unavailable).toEqual([]);
  });

  it("still serves the quote when the global figures are down, with dominance null", async () => {
    sim().setFault("coingecko", { mode: "error", status: 502, pathPrefix: "/api/v3/global" });
    const out = await run<Record<string, unknown>>(btcQuote);
    expect(out.btc_dominance_pct).toBeNull();
    expect(out.unavailable).toEqual(["global"]);
    expect(out.price_usd as number).toBeGreaterThan(1000);
  });

  it("is unavailable when the market rows are down", async () => {
    sim().setFault("coingecko", { mode: "error", status: 500, pathPrefix: "/api/v3/coins/markets" });
    await expect(run(btcQuote)).rejects.toBeInstanceOf(UnavailableError);
  });
});
