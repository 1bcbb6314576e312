import { describe, expect, it } from "vitest";
import { getKrakenTicker } from "@/lib/market/sources/kraken";
import { useSimulator } from "../helpers/in-process";
import { freezeTime, raw } from "../products/xlm/raw";

const { sim } = useSimulator();

describe("kraken adapter over HTTP against the simulator", () => {
  it("reads the first key of result (Kraken renames XLMUSD to XXLMZUSD) and parses the strings", async () => {
    freezeTime();
    const t = await getKrakenTicker("XLMUSD");
    const body = await raw(sim(), "/kraken/0/public/Ticker?pair=XLMUSD");
    const entry = body.result.XXLMZUSD;
    expect(Object.keys(body.result)).toEqual(["XXLMZUSD"]);
    expect(t.pair).toBe("XXLMZUSD");
    expect(t.bid).toBe(Number(entry.b[0]));
    expect(t.ask).toBe(Number(entry.a[0]));
    expect(t.last).toBe(Number(entry.c[0]));
    expect(t.openToday).toBe(Number(entry.o));
    expect(t.volume24h).toBe(Number(entry.v[1]));
    expect(t.trades24h).toBe(entry.t[1]);
    expect(typeof entry.a[0]).toBe("string");
    expect(t.ask).toBeGreaterThan(t.bid);
    // Agrees with the world price within a few basis points.
    const cg = await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd");
    expect(Math.abs((t.bid + t.ask) / 2 / cg.stellar.usd - 1)).toBeLessThan(0.002);
  });

  it("treats a non-empty error[] in a 200 body as an upstream error", async () => {
    await expect(getKrakenTicker("NOPEUSD")).rejects.toMatchObject({ name: "UpstreamError", provider: "kraken", kind: "upstream_error" });
    await expect(getKrakenTicker("NOPEUSD")).rejects.toThrow(/EQuery:Unknown asset pair/);
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => getKrakenTicker()));
    expect(sim().total("kraken")).toBe(1);
  });

  it("turns malformed bodies, HTTP errors and hangs into typed errors", async () => {
    sim().setFault("kraken", { mode: "malformed" });
    await expect(getKrakenTicker()).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("kraken", { mode: "error", status: 520 });
    await expect(getKrakenTicker()).rejects.toMatchObject({ kind: "http", status: 520 });
    sim().setFault("kraken", { mode: "error", status: 429 });
    await expect(getKrakenTicker()).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("kraken", { mode: "hang" });
    await expect(getKrakenTicker()).rejects.toMatchObject({ kind: "timeout" });
  });
});
