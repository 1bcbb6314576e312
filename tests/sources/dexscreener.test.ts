import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEXSCREENER_CHAINS, tokenPairs } from "@/lib/market/sources/dexscreener";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();

// Simulated flows move with the clock: freeze Date so adapter and raw reads agree.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date());
});
afterEach(() => vi.useRealTimers());
const evmAddr = (i: number) => `0x${(0xde5c00 + i).toString(16).padStart(40, "0")}`;
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const mint = (i: number) => `Dex${Array.from({ length: 40 }, (_, k) => B58[(i * 11 + k * 17) % 58]).join("")}`;

type RawPair = { pairAddress: string; priceUsd: string; liquidity?: { usd: number }; txns: Record<string, { buys: number; sells: number }>; volume: Record<string, number> };

describe("dexscreener adapter (token-pairs) against the simulator", () => {
  it("parses pairs on every supported chain: string price to number, counts and USD volumes kept", async () => {
    for (const chain of DEXSCREENER_CHAINS) {
      let withPairs = 0;
      for (let i = 0; i < 4; i++) {
        const token = chain === "solana" ? mint(i) : evmAddr(i);
        const pairs = await tokenPairs(chain, token);
        const raw = (await (await fetch(`${sim().url}/dexscreener/token-pairs/v1/${chain}/${token}`)).json()) as RawPair[];
        expect(pairs).toHaveLength(raw.length);
        if (raw.length) withPairs++;
        pairs.forEach((p, k) => {
          const r = raw[k]!;
          expect(p.chainId).toBe(chain);
          expect(p.pairAddress).toBe(r.pairAddress);
          expect(p.priceUsd).toBe(Number(r.priceUsd));
          expect(p.txns.h24).toEqual(r.txns.h24);
          expect(p.volume.h24).toBe(r.volume.h24);
          expect(p.liquidity?.usd ?? null).toBe(r.liquidity?.usd ?? null);
        });
      }
      expect(withPairs).toBeGreaterThan(0);
    }
  });

  it("returns [] for a token without pools", async () => {
    let empty = 0;
    for (let i = 0; i < 60 && empty === 0; i++) {
      const t = evmAddr(500 + i);
      const raw = (await (await fetch(`${sim().url}/dexscreener/token-pairs/v1/base/${t}`)).json()) as unknown[];
      if (raw.length === 0) {
        empty++;
        expect(await tokenPairs("base", t)).toEqual([]);
      }
    }
    expect(empty).toBe(1);
  });

  it("keeps missing liquidity as null (pump.fun bonding curves)", async () => {
    let missing = 0;
    for (let i = 0; i < 40; i++) for (const p of await tokenPairs("solana", mint(100 + i))) if (p.liquidity === null) missing++;
    expect(missing).toBeGreaterThan(0);
  });

  it("maps malformed / 500 / hang to parse / http / timeout", async () => {
    sim().setFault("dexscreener", { mode: "malformed" });
    await expect(tokenPairs("base", evmAddr(1))).rejects.toMatchObject({ kind: "parse", provider: "dexscreener" });
    sim().setFault("dexscreener", { mode: "error", status: 500 });
    await expect(tokenPairs("base", evmAddr(2))).rejects.toMatchObject({ kind: "http" });
    sim().setFault("dexscreener", { mode: "hang" });
    await expect(tokenPairs("base", evmAddr(3))).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => tokenPairs("ethereum", evmAddr(7))));
    expect(sim().total("dexscreener")).toBe(1);
  });
});
