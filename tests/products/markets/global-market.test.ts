import { describe, expect, it } from "vitest";
import { globalMarketProduct } from "@/lib/catalog/products/markets/global-market";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, rawCg, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

interface RawGlobal {
  data: {
    total_market_cap: { usd: number };
    total_volume: { usd: number };
    market_cap_percentage: Record<string, number>;
    market_cap_change_percentage_24h_usd: number;
    active_cryptocurrencies: number;
    markets: number;
    updated_at: number;
  };
}

describe("GET /v1/global-market", () => {
  it("reports CoinGecko's global figures, rounded", async () => {
    const out = await run<Record<string, unknown>>(globalMarketProduct);
    const raw = (await rawCg<RawGlobal>(sim(), "/api/v3/global")).data;
    expect(out.total_market_cap_usd).toBe(Math.round(raw.total_market_cap.usd));
    expect(out.total_volume_24h_usd).toBe(Math.round(raw.total_volume.usd));
    expect(out.btc_dominance_pct).toBeCloseTo(raw.market_cap_percentage.btc!, 2);
    expect(out.eth_dominance_pct).toBeCloseTo(raw.market_cap_percentage.eth!, 2);
    expect(out.market_cap_change_24h_pct).toBeCloseTo(raw.market_cap_change_percentage_24h_usd, 2);
    expect(out.volume_to_market_cap_pct).toBeCloseTo((raw.total_volume.usd / raw.total_market_cap.usd) * 100, 2);
    expect(out.active_cryptocurrencies).toBe(raw.active_cryptocurrencies);
    expect(out.markets).toBe(raw.markets);
    expect(out.updated_at).toBe(new Date(raw.updated_at * 1000).toISOString());
    expect(out.source).toBe("coingecko");
    // Sanity of magnitudes: trillions of USD, dominance between 20 and 80 %.
    expect(out.total_market_cap_usd as number).toBeGreaterThan(1e12);
    expect(out.btc_dominance_pct as number).toBeGreaterThan(20);
    expect(out.btc_dominance_pct as number).toBeLessThan(80);
  });

  it("is unavailable (503) when CoinGecko fails", async () => {
    sim().setFault("coingecko", { mode: "error", status: 500 });
    await expect(run(globalMarketProduct)).rejects.toBeInstanceOf(UnavailableError);
  });

  it("is unavailable when CoinGecko changes its format", async () => {
    sim().setFault("coingecko", { mode: "malformed" });
    await expect(run(globalMarketProduct)).rejects.toBeInstanceOf(UnavailableError);
  });
});
