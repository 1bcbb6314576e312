import { describe, expect, it } from "vitest";
import { getBinance24h, getBinanceBookTicker, isGeoBlocked } from "@/lib/market/sources/binance";
import { BINANCE_REFUSALS } from "@/lib/upstream-sim/providers/binance";
import { useSimulator } from "../helpers/in-process";
import { freezeTime, raw } from "../products/xlm/raw";

const { sim } = useSimulator();

describe("binance adapter over HTTP against the simulator", () => {
  it("parses bookTicker in USDT", async () => {
    freezeTime();
    const t = await getBinanceBookTicker("XLMUSDT");
    const body = await raw(sim(), "/binance/api/v3/ticker/bookTicker?symbol=XLMUSDT");
    expect(t).toEqual({
      symbol: "XLMUSDT",
      bid: Number(body.bidPrice),
      bidQty: Number(body.bidQty),
      ask: Number(body.askPrice),
      askQty: Number(body.askQty),
    });
    expect(body.bidPrice).toMatch(/^\d+\.\d{8}$/);
    expect(t.ask).toBeGreaterThan(t.bid);
    // USDT ≈ USD, so the USDT quote sits within a few basis points of the world's USD price.
    const cg = await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar,tether&vs_currencies=usd");
    expect(Math.abs(((t.bid + t.ask) / 2) * cg.tether.usd / cg.stellar.usd - 1)).toBeLessThan(0.003);
  });

  it("parses the rolling 24h ticker", async () => {
    freezeTime();
    const d = await getBinance24h("XLMUSDT");
    const body = await raw(sim(), "/binance/api/v3/ticker/24hr?symbol=XLMUSDT");
    expect(d.changePct).toBe(Number(body.priceChangePercent));
    expect(d.changePct).toBeCloseTo((d.last / d.open - 1) * 100, 2);
    expect(d.trades).toBe(body.count);
    expect(d.high).toBeGreaterThanOrEqual(d.low);
  });

  it("reports HTTP 451 (restricted location) as a clear 'unavailable from this location' error", async () => {
    sim().setFault("binance", { mode: "error", status: 451 });
    const err = await getBinanceBookTicker().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "UpstreamError", provider: "binance", kind: "http", status: 451 });
    expect((err as Error).message).toMatch(/restricted location/);
    expect(isGeoBlocked(err)).toBe(true);
  });

  it("names CloudFront's region block (HTTP 403 page) as unavailable from this location", async () => {
    sim().setFault("binance", BINANCE_REFUSALS.cloudfrontRegionBlock);
    const err = await getBinance24h().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "UpstreamError", provider: "binance", kind: "http", status: 403 });
    expect((err as { note: string }).note).toBe("unavailable from this server's location (HTTP 403: CloudFront blocks this region)");
    expect(isGeoBlocked(err)).toBe(true);
  });

  it("names a WAF 403 as a firewall refusal, not a location block", async () => {
    sim().setFault("binance", BINANCE_REFUSALS.wafBlock);
    const err = await getBinanceBookTicker().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "http", status: 403 });
    expect((err as { note: string }).note).toBe("refused by Binance's firewall (HTTP 403 from CloudFront: this server's IP or region is blocked)");
    expect(isGeoBlocked(err)).toBe(false);
  });

  it("names HTTP 418 as an IP ban with its Retry-After", async () => {
    sim().setFault("binance", BINANCE_REFUSALS.ipBan);
    const err = await getBinanceBookTicker().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "http", status: 418, retryAfterMs: 120_000 });
    expect((err as { note: string }).note).toBe("this server's IP is banned by Binance (HTTP 418, after repeated 429s; ban lifts in 120 s)");
    expect((err as Error).message).not.toMatch(/http:\/\//); // no URL of ours in the reason
    expect(isGeoBlocked(err)).toBe(false);
  });

  it("keeps the 451 restricted-location answer named with Binance's real body", async () => {
    sim().setFault("binance", BINANCE_REFUSALS.restrictedLocation);
    const err = await getBinance24h().catch((e: unknown) => e);
    expect((err as { note: string }).note).toBe("unavailable from this server's location (HTTP 451 restricted location)");
  });

  it("maps Binance's {code,msg} 400 for an unknown symbol to an http error", async () => {
    await expect(getBinanceBookTicker("NOPEUSDT")).rejects.toMatchObject({ kind: "http", status: 400 });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => getBinanceBookTicker()));
    expect(sim().total("binance")).toBe(1);
  });

  it("turns malformed bodies, 429 and hangs into typed errors", async () => {
    sim().setFault("binance", { mode: "malformed" });
    await expect(getBinance24h()).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("binance", { mode: "error", status: 429 });
    await expect(getBinanceBookTicker()).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("binance", { mode: "hang" });
    await expect(getBinanceBookTicker()).rejects.toMatchObject({ kind: "timeout" });
  });
});
