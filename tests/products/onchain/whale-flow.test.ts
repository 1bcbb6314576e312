import { describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { whaleFlowProduct } from "@/lib/catalog/products/onchain/whale-flow";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, evmAddr, freezeClock, rawGet, rel, run, solMint } from "./helpers";

const { sim } = useSimulator();
freezeClock();

const CHAINS = ["base", "solana", "ethereum", "bsc", "polygon", "arbitrum", "optimism", "avalanche"] as const;
type Chain = (typeof CHAINS)[number];
type Counts = { buys: number; sells: number };
interface RawPair {
  dexId: string;
  pairAddress: string;
  baseToken: { symbol: string };
  priceUsd: string;
  txns: { h1: Counts; h24: Counts };
  volume: { h1: number; h24: number };
  liquidity?: { usd: number };
}
interface Out {
  chain: string;
  token: string;
  token_symbol: string | null;
  verdict: string;
  buy_ratio_24h: number | null;
  buy_ratio_1h: number | null;
  buys_24h: number | null;
  sells_24h: number | null;
  buys_1h: number | null;
  sells_1h: number | null;
  liquidity_usd: number | null;
  volume_24h_usd: number | null;
  volume_1h_usd: number | null;
  avg_trade_usd: number | null;
  surge_ratio: number | null;
  turnover: number | null;
  price_usd: number | null;
  pairs_count: number;
  top_pairs: Array<{ pair_address: string; liquidity_usd: number | null }>;
  notes: string[];
}

const tokenFor = (chain: Chain, i: number) => (chain === "solana" ? solMint(21, i) : evmAddr(0xf10, i));
const rawPairs = (chain: Chain, token: string) => rawGet<RawPair[]>(sim(), `/dexscreener/token-pairs/v1/${chain}/${token}`);

async function find(chain: Chain, pred: (ps: RawPair[]) => boolean): Promise<{ token: string; pairs: RawPair[] }> {
  for (let i = 0; i < 300; i++) {
    const token = tokenFor(chain, i);
    const pairs = await rawPairs(chain, token);
    if (pred(pairs)) return { token, pairs };
  }
  throw new Error("no matching simulated token");
}

/** Everything the product reports, recomputed with plain arithmetic from the raw pairs. */
function expectFlow(out: Out, pairs: RawPair[]): void {
  const sum = (f: (p: RawPair) => number) => pairs.reduce((a, p) => a + f(p), 0);
  const b24 = sum((p) => p.txns.h24.buys);
  const s24 = sum((p) => p.txns.h24.sells);
  const b1 = sum((p) => p.txns.h1.buys);
  const s1 = sum((p) => p.txns.h1.sells);
  const v24 = sum((p) => p.volume.h24);
  const v1 = sum((p) => p.volume.h1);
  const withLiq = pairs.filter((p) => p.liquidity?.usd !== undefined);
  const liq = withLiq.reduce((a, p) => a + p.liquidity!.usd, 0);
  expect([out.buys_24h, out.sells_24h, out.buys_1h, out.sells_1h]).toEqual([b24, s24, b1, s1]);
  expect(out.buy_ratio_24h).toBeCloseTo(b24 / (b24 + s24), 4);
  if (b1 + s1 === 0) expect(out.buy_ratio_1h).toBeNull();
  else expect(out.buy_ratio_1h).toBeCloseTo(b1 / (b1 + s1), 4);
  // USD amounts are rounded to cents.
  expect(Math.abs(out.volume_24h_usd! - v24)).toBeLessThanOrEqual(0.0051);
  expect(rel(out.avg_trade_usd!, v24 / (b24 + s24))).toBeLessThan(1e-4);
  expect(rel(out.surge_ratio!, v1 / (v24 / 24))).toBeLessThan(1e-3);
  if (withLiq.length) {
    expect(Math.abs(out.liquidity_usd! - liq)).toBeLessThanOrEqual(0.0051);
    expect(rel(out.turnover!, v24 / liq)).toBeLessThan(1e-3);
    const top = [...withLiq].sort((a, b) => b.liquidity!.usd - a.liquidity!.usd)[0]!;
    expect(out.price_usd).toBeCloseTo(Number(top.priceUsd), 4);
    expect(out.top_pairs[0]!.pair_address).toBe(top.pairAddress);
  } else {
    expect(out.liquidity_usd).toBeNull();
  }
  const ratio = b24 / (b24 + s24);
  const expected = b24 + s24 < 20 ? "balanced" : ratio >= 0.55 ? "accumulating" : ratio <= 0.45 ? "distributing" : "balanced";
  expect(out.verdict).toBe(expected);
  expect(out.pairs_count).toBe(pairs.length);
  expect(out.top_pairs.length).toBe(Math.min(5, pairs.length));
  expect(out.token_symbol).toBe(pairs[0]!.baseToken.symbol);
}

describe("GET /v1/whale-flow", () => {
  it("aggregates every pool of a token on each of the 8 chains", async () => {
    for (const chain of CHAINS) {
      const { token, pairs } = await find(chain, (ps) => ps.length > 0);
      const out = await run<Out>(whaleFlowProduct, { chain, token });
      expect(out.chain).toBe(chain);
      expect(out.token).toBe(chain === "solana" ? token : getAddress(token));
      expectFlow(out, pairs);
    }
  });

  it("covers every verdict, thin liquidity and surge notes", async () => {
    const seen = new Set<string>();
    let thin = false;
    let surge = false;
    for (let i = 0; i < 80 && !(seen.size === 3 && thin && surge); i++) {
      const token = tokenFor("base", 200 + i);
      const pairs = await rawPairs("base", token);
      if (!pairs.length) continue;
      const out = await run<Out>(whaleFlowProduct, { token });
      expectFlow(out, pairs);
      seen.add(out.verdict);
      const liq = pairs.reduce((a, p) => a + (p.liquidity?.usd ?? 0), 0);
      const hasThin = out.notes.some((n) => n.startsWith("thin liquidity"));
      expect(hasThin).toBe(liq < 50_000);
      thin ||= hasThin;
      const hasSurge = out.notes.some((n) => n.startsWith("activity surge"));
      expect(hasSurge).toBe(out.surge_ratio! > 2);
      surge ||= hasSurge;
    }
    expect(seen).toEqual(new Set(["accumulating", "distributing", "balanced"]));
    expect(thin).toBe(true);
    expect(surge).toBe(true);
  });

  it("handles Solana pools without liquidity (bonding curves) as unknown, not 0", async () => {
    const { token, pairs } = await find("solana", (ps) => ps.some((p) => !p.liquidity));
    const out = await run<Out>(whaleFlowProduct, { chain: "sol", token });
    expectFlow(out, pairs);
    const noLiq = pairs.find((p) => !p.liquidity)!;
    const row = out.top_pairs.find((p) => p.pair_address === noLiq.pairAddress);
    if (row) expect(row.liquidity_usd).toBeNull();
  });

  it("answers 200 with verdict 'no_liquidity' for a token without pools", async () => {
    const { token } = await find("ethereum", (ps) => ps.length === 0);
    const out = await run<Out>(whaleFlowProduct, { chain: "eth", token });
    expect(out).toMatchObject({ chain: "ethereum", verdict: "no_liquidity", pairs_count: 0, top_pairs: [], buy_ratio_24h: null, liquidity_usd: null, token_symbol: null });
    expect(out.notes[0]).toMatch(/no pools/);
  });

  it("accepts chain aliases", async () => {
    for (const [alias, chain] of [["eth", "ethereum"], ["matic", "polygon"], ["AVAX", "avalanche"], ["arb", "arbitrum"], ["op", "optimism"], ["bnb", "bsc"]] as const) {
      const out = await run<Out>(whaleFlowProduct, { chain: alias, token: evmAddr(0xf10, 1) });
      expect(out.chain).toBe(chain);
    }
  });

  it("answers 422 for a missing token and a token of the wrong kind for the chain", async () => {
    expect(await detailOf(whaleFlowProduct, { chain: "base" })).toEqual([{ loc: ["query", "token"], msg: "Field required", type: "missing", input: null }]);
    const evm = evmAddr(0xf10, 2);
    const error = `chain 'solana' needs a base58 mint address (32-44 characters), got '${evm}'`;
    expect(await detailOf(whaleFlowProduct, { chain: "solana", token: evm })).toEqual([{ loc: ["query", "token"], msg: `Value error, ${error}`, type: "value_error", input: evm, ctx: { error } }]);
    const mint = solMint(21, 3);
    const error2 = `chain 'base' needs a 0x-prefixed 20-byte hex address, got '${mint}'`;
    expect(await detailOf(whaleFlowProduct, { token: mint })).toEqual([{ loc: ["query", "token"], msg: `Value error, ${error2}`, type: "value_error", input: mint, ctx: { error: error2 } }]);
    expect(await detailOf(whaleFlowProduct, { chain: "fantom", token: evm })).toMatchObject([{ loc: ["query", "chain"], type: "literal_error", input: "fantom" }]);
    expect(sim().total("dexscreener")).toBe(0);
  });

  it("is unavailable (503) when DexScreener is down or answers garbage", async () => {
    sim().setFault("dexscreener", { mode: "error", status: 500 });
    await expect(run(whaleFlowProduct, { token: evmAddr(0xf10, 4) })).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("dexscreener", { mode: "malformed" });
    await expect(run(whaleFlowProduct, { token: evmAddr(0xf10, 5) })).rejects.toBeInstanceOf(UnavailableError);
  });
});
