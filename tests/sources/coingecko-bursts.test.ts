/**
 * CoinGecko burst bounding over real HTTP against the simulator's keyless-tier budget:
 * one limiter for every CoinGecko call (at most COINGECKO_MAX_CONCURRENCY in flight), a
 * 429's Retry-After paused for by every caller, and exactly one retry.
 */
import { describe, expect, it } from "vitest";
import { marketChart, simplePrice } from "@/lib/market/sources/coingecko";
import { coingeckoId, SUPPORTED_TICKERS } from "@/lib/market/tickers";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();
const ids = SUPPORTED_TICKERS.slice(0, 10).map(coingeckoId);
const chartKey = (id: string) => `coingecko /api/v3/coins/${id}/market_chart?days=30&interval=daily&vs_currency=usd`;

describe("coingecko bursts", () => {
  it("the simulator answers 429 past its budget, with Retry-After and CoinGecko's error body", async () => {
    sim().setRateLimit("coingecko", { limit: 1, windowMs: 30_000 });
    const url = `${sim().url}/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd`;
    expect((await fetch(url)).status).toBe(200);
    const res = await fetch(url);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(29);
    expect(await res.json()).toMatchObject({ status: { error_code: 429, error_message: expect.stringMatching(/exceeded the Rate Limit/) } });
  });

  it("keeps at most 3 requests in flight when 10 charts are asked at once (default COINGECKO_MAX_CONCURRENCY)", async () => {
    sim().setFault("coingecko", { mode: "delay", ms: 150 });
    const charts = await Promise.all(ids.map((id) => marketChart(id, 30, "daily")));
    expect(charts.every((c) => c.length > 20)).toBe(true);
    expect(sim().total("coingecko")).toBe(10);
    expect(sim().peakConcurrency("coingecko")).toBe(3);
  });

  it("waits out a 429's Retry-After, then one retry succeeds", async () => {
    sim().setRateLimit("coingecko", { limit: 1, windowMs: 1_000 });
    const t0 = performance.now();
    const [a, b] = await Promise.all([marketChart("bitcoin", 30, "daily"), marketChart("ethereum", 30, "daily")]);
    expect(a.length).toBeGreaterThan(20);
    expect(b.length).toBeGreaterThan(20);
    // One of the two was refused once (Retry-After: 1) and retried after the window.
    expect(sim().total("coingecko")).toBe(3);
    expect([sim().counts()[chartKey("bitcoin")], sim().counts()[chartKey("ethereum")]].sort()).toEqual([1, 2]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it("retries a 429 without Retry-After once, after 1 s, then names the failure", async () => {
    sim().setFault("coingecko", { mode: "error", status: 429 });
    const t0 = performance.now();
    const err = await simplePrice(["stellar"]).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(err).toMatchObject({ name: "UpstreamError", provider: "coingecko", kind: "rate_limited", status: 429 });
    expect((err as { note: string }).note).toBe("rate limited (HTTP 429), still after one retry 1 s later");
    expect(sim().total("coingecko")).toBe(2);
  });

  it("does not wait out a long Retry-After: fails at once, and later calls do not contact CoinGecko until it passes", async () => {
    sim().setRateLimit("coingecko", { limit: 1, windowMs: 60_000 });
    await marketChart("bitcoin", 30, "daily");
    const t0 = performance.now();
    const err = await marketChart("ethereum", 30, "daily").catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(900);
    expect(err).toMatchObject({ kind: "rate_limited", status: 429 });
    expect((err as { note: string }).note).toMatch(/^rate limited \(HTTP 429\), retry after (59|60) s$/);
    expect(sim().total("coingecko")).toBe(2);
    const later = await marketChart("solana", 30, "daily").catch((e: unknown) => e);
    expect(later).toMatchObject({ kind: "rate_limited" });
    expect((later as Error).message).toMatch(/not contacted/);
    expect(sim().total("coingecko")).toBe(2);
  });
});
