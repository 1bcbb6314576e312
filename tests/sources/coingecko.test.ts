import { describe, expect, it } from "vitest";
import { coinMarkets, globalMarket, marketChart, simplePrice } from "@/lib/market/sources/coingecko";
import { UpstreamError } from "@/lib/market/upstream";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();

describe("coingecko adapter over HTTP against the simulator", () => {
  it("reads simple prices with change, market cap and volume", async () => {
    const q = await simplePrice(["stellar", "bitcoin", "no-such-coin"]);
    expect(Object.keys(q).sort()).toEqual(["bitcoin", "stellar"]);
    expect(q.stellar!.usd).toBeGreaterThan(0.05);
    expect(q.stellar!.usd).toBeLessThan(5);
    expect(q.stellar!.btc).toBeCloseTo(q.stellar!.usd / q.bitcoin!.usd, 10);
    expect(typeof q.stellar!.usd24hChangePct).toBe("number");
  });

  it("single-flights concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => simplePrice(["stellar"])));
    expect(sim().total("coingecko")).toBe(1);
  });

  it("returns top-N markets ranked by market cap", async () => {
    const rows = await coinMarkets({ perPage: 50 });
    expect(rows).toHaveLength(50);
    expect(rows[0]!.id).toBe("bitcoin");
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.market_cap!).toBeLessThanOrEqual(rows[i - 1]!.market_cap!);
  });

  it("drops the trailing 'now' point of daily history", async () => {
    const pts = await marketChart("stellar", 90, "daily");
    expect(pts.length).toBe(90);
    for (const p of pts) expect(p.time % 86_400_000).toBe(0);
  });

  it("returns hourly points for 2..90 days", async () => {
    const pts = await marketChart("stellar", 2, "auto");
    expect(pts.length).toBeGreaterThanOrEqual(48);
    expect(pts[1]!.time - pts[0]!.time).toBe(3_600_000);
  });

  it("parses global figures", async () => {
    const g = await globalMarket();
    expect(g.total_market_cap.usd).toBeGreaterThan(1e12);
    expect(g.market_cap_percentage.btc).toBeGreaterThan(20);
  });

  it("turns a malformed response into a typed parse error", async () => {
    sim().setFault("coingecko", { mode: "malformed" });
    await expect(globalMarket()).rejects.toMatchObject({ name: "UpstreamError", kind: "parse", provider: "coingecko" });
  });

  it("turns an HTTP 429 into a rate_limited error and a hang into a timeout", async () => {
    sim().setFault("coingecko", { mode: "error", status: 429 });
    await expect(simplePrice(["stellar"])).rejects.toBeInstanceOf(UpstreamError);
    await expect(simplePrice(["stellar"])).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("coingecko", { mode: "hang" });
    await expect(coinMarkets({ perPage: 10 })).rejects.toMatchObject({ kind: "timeout" });
  });
});
