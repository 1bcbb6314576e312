import { describe, expect, it } from "vitest";
import { getCoinbaseStats, getCoinbaseTicker } from "@/lib/market/sources/coinbase";
import { useSimulator } from "../helpers/in-process";
import { freezeTime, raw } from "../products/xlm/raw";

const { sim } = useSimulator();

describe("coinbase adapter over HTTP against the simulator", () => {
  it("parses the product ticker (decimal strings, numeric trade_id)", async () => {
    freezeTime();
    const t = await getCoinbaseTicker("XLM-USD");
    const body = await raw(sim(), "/coinbase/products/XLM-USD/ticker");
    expect(t.bid).toBe(Number(body.bid));
    expect(t.ask).toBe(Number(body.ask));
    expect(t.last).toBe(Number(body.price));
    expect(typeof body.trade_id).toBe("number");
    expect(t.ask).toBeGreaterThan(t.bid);
    expect(Math.abs(t.time.getTime() - Date.now())).toBeLessThan(10_000);
  });

  it("parses 24h stats and derives the rolling change from open and last", async () => {
    freezeTime();
    const s = await getCoinbaseStats("XLM-USD");
    const body = await raw(sim(), "/coinbase/products/XLM-USD/stats");
    expect(s.open24h).toBe(Number(body.open));
    expect(s.change24hPct!).toBeCloseTo((Number(body.last) / Number(body.open) - 1) * 100, 10);
    expect(s.high24h).toBeGreaterThanOrEqual(s.low24h);
    // The simulated venue agrees with the world's 24h change within a few tenths of a percent.
    const cg = await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd&include_24hr_change=true");
    expect(Math.abs(s.change24hPct! - cg.stellar.usd_24h_change)).toBeLessThan(0.3);
  });

  it("maps an unknown product (404 {message}) to an http error", async () => {
    await expect(getCoinbaseTicker("NOPE-USD")).rejects.toMatchObject({ provider: "coinbase", kind: "http", status: 404 });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => getCoinbaseTicker()));
    expect(sim().total("coinbase")).toBe(1);
  });

  it("turns malformed bodies, 429 and hangs into typed errors", async () => {
    sim().setFault("coinbase", { mode: "malformed" });
    await expect(getCoinbaseStats()).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("coinbase", { mode: "error", status: 429 });
    await expect(getCoinbaseTicker()).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("coinbase", { mode: "hang" });
    await expect(getCoinbaseTicker()).rejects.toMatchObject({ kind: "timeout" });
  });
});
