import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GAMMA_FETCH_LIMIT, topMarketsByVolume } from "@/lib/market/sources/polymarket";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();

// Simulated flows move with the clock: freeze Date so adapter and raw reads agree.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date());
});
afterEach(() => vi.useRealTimers());

type RawMarket = Record<string, unknown> & { outcomes: string; outcomePrices?: string; volume24hr?: number };

describe("polymarket adapter (Gamma /markets) against the simulator", () => {
  it("decodes the JSON-encoded outcomes and prices of active markets ordered by 24h volume", async () => {
    const ms = await topMarketsByVolume();
    const raw = (await (await fetch(`${sim().url}/polymarket/markets?active=true&closed=false&order=volume24hr&ascending=false&limit=${GAMMA_FETCH_LIMIT}`)).json()) as RawMarket[];
    expect(ms.length).toBe(raw.length);
    expect(ms.length).toBeGreaterThanOrEqual(25);
    expect(typeof raw[0]!.outcomes).toBe("string"); // double-encoded on the wire
    for (let i = 0; i < ms.length; i++) {
      const m = ms[i]!;
      const r = raw[i]!;
      expect(m.question).toBe(r.question);
      expect(m.outcomes).toEqual(JSON.parse(r.outcomes));
      expect(m.outcomePrices).toEqual(r.outcomePrices === undefined ? null : JSON.parse(r.outcomePrices));
      expect(m.volume24hr).toBe(r.volume24hr ?? null);
      expect(m.closed).toBe(false);
      if (m.outcomePrices) {
        const sum = m.outcomePrices.map(Number).reduce((a, b) => a + b, 0);
        expect(sum).toBeGreaterThan(0.98);
        expect(sum).toBeLessThan(1.02);
      }
    }
    const vols = ms.map((m) => m.volume24hr).filter((v): v is number => v !== null);
    for (let i = 1; i < vols.length; i++) expect(vols[i]!).toBeLessThanOrEqual(vols[i - 1]!);
    // Markets without a 24h volume (thin) sort last and stay null, not 0.
    expect(ms.at(-1)!.volume24hr).toBeNull();
  });

  it("maps malformed / not JSON / 500 / hang to typed errors", async () => {
    sim().setFault("polymarket", { mode: "malformed" });
    await expect(topMarketsByVolume()).rejects.toMatchObject({ kind: "parse", provider: "polymarket" });
    sim().setFault("polymarket", { mode: "not_json" });
    await expect(topMarketsByVolume()).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("polymarket", { mode: "error", status: 500 });
    await expect(topMarketsByVolume()).rejects.toMatchObject({ kind: "http", status: 500 });
    sim().setFault("polymarket", { mode: "hang" });
    await expect(topMarketsByVolume()).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => topMarketsByVolume()));
    expect(sim().total("polymarket")).toBe(1);
  });
});
