import { describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { tokenSafety } from "@/lib/catalog/products/onchain/token-safety";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, evmAddr, rawGet, run, solMint } from "./helpers";

const { sim } = useSimulator();

const CHAIN_IDS = { base: 8453, eth: 1, bsc: 56, polygon: 137, arbitrum: 42161, optimism: 10, avalanche: 43114 } as const;
type EvmChain = keyof typeof CHAIN_IDS;
type Rec = Record<string, unknown> & { holders?: Array<{ percent: string }>; lp_holders?: Array<{ percent: string; is_locked?: number }> };

interface Out {
  chain: string;
  chain_id: number | null;
  address: string;
  found: boolean;
  token_symbol: string | null;
  risk_score: number | null;
  verdict: string;
  flags: Record<string, boolean | null>;
  buy_tax_pct: number | null;
  sell_tax_pct: number | null;
  top10_holder_pct: number | null;
  lp_locked_pct: number | null;
  holder_count: number | null;
  dex_liquidity_usd: number | null;
  trusted: boolean | null;
  reasons: string[];
  unknown_fields: string[];
  note: string | null;
}

async function rawEvm(chain: EvmChain, address: string): Promise<Rec | null> {
  const body = await rawGet<{ code: number; result: Record<string, Rec> }>(sim(), `/goplus/api/v1/token_security/${CHAIN_IDS[chain]}?contract_addresses=${address.toLowerCase()}`);
  return body.result[address.toLowerCase()] ?? null;
}
async function rawSolana(mint: string): Promise<Rec | null> {
  const body = await rawGet<{ result: Record<string, Rec> }>(sim(), `/goplus/api/v1/solana/token_security?contract_addresses=${mint}`);
  return body.result[mint] ?? null;
}

/** First EVM address on `chain` whose raw GoPlus record satisfies `pred` (null = unknown token). */
async function findEvm(chain: EvmChain, pred: (r: Rec | null) => boolean, tag = 0x5afe): Promise<{ address: string; rec: Rec | null }> {
  for (let i = 0; i < 400; i++) {
    const address = evmAddr(tag, i);
    const rec = await rawEvm(chain, address);
    if (pred(rec)) return { address, rec };
  }
  throw new Error("no matching simulated token");
}

const sumPct = (xs: Array<{ percent: string }> = []) => xs.reduce((a, h) => a + Number(h.percent), 0) * 100;

describe("GET /v1/token-safety", () => {
  it("checks a known token on each EVM chain: taxes, holders and LP lock recomputed from the raw record", async () => {
    for (const chain of Object.keys(CHAIN_IDS) as EvmChain[]) {
      const { address, rec } = await findEvm(chain, (r) => r !== null && r.is_open_source === "1");
      const out = await run<Out>(tokenSafety, { chain, address });
      const r = rec!;
      expect(out.chain).toBe(chain);
      expect(out.chain_id).toBe(CHAIN_IDS[chain]);
      expect(out.address).toBe(getAddress(address));
      expect(out.found).toBe(true);
      expect(out.token_symbol).toBe(r.token_symbol);
      expect(out.buy_tax_pct).toBeCloseTo(Number(r.buy_tax) * 100, 4);
      expect(out.sell_tax_pct).toBeCloseTo(Number(r.sell_tax) * 100, 4);
      expect(out.top10_holder_pct).toBeCloseTo(sumPct(r.holders), 2);
      expect(out.lp_locked_pct).toBeCloseTo(sumPct((r.lp_holders ?? []).filter((h) => h.is_locked === 1)), 2);
      expect(out.holder_count).toBe(Number(r.holder_count));
      expect(out.flags.honeypot).toBe(r.is_honeypot === "1");
      expect(out.flags.mintable).toBe(r.is_mintable === "1");
      expect(out.flags.freeze_authority).toBeNull(); // Solana-only flag
      const liq = (r.dex as Array<{ liquidity: string }>).reduce((a, d) => a + Number(d.liquidity), 0);
      expect(out.dex_liquidity_usd).toBeCloseTo(liq, 1);
      expect(out.risk_score).toBeGreaterThanOrEqual(0);
      expect(out.risk_score).toBeLessThanOrEqual(100);
    }
  });

  it("checks a Solana mint: authorities as flags, transfer fee as taxes, burned LP share", async () => {
    let checked = 0;
    for (let i = 0; i < 30 && checked < 3; i++) {
      const mint = solMint(11, i);
      const rec = await rawSolana(mint);
      if (!rec) continue;
      checked++;
      const out = await run<Out>(tokenSafety, { chain: "solana", address: mint });
      expect(out).toMatchObject({ chain: "solana", chain_id: null, address: mint, found: true });
      const status = (k: string) => (rec[k] as { status: string }).status === "1";
      expect(out.flags.mintable).toBe(status("mintable"));
      expect(out.flags.freeze_authority).toBe(status("freezable"));
      expect(out.flags.honeypot).toBeNull(); // EVM-only flag
      const fee = (rec.transfer_fee as { current_fee_rate?: { fee_rate: string } }).current_fee_rate;
      expect(out.buy_tax_pct).toBeCloseTo(fee ? Number(fee.fee_rate) * 100 : 0, 4);
      expect(out.sell_tax_pct).toBe(out.buy_tax_pct);
      expect(out.top10_holder_pct).toBeCloseTo(sumPct(rec.holders), 2);
      const burned = Math.max(...(rec.dex as Array<{ burn_percent: number }>).map((d) => d.burn_percent));
      expect(out.lp_locked_pct).toBeCloseTo(burned, 2);
      expect(out.flags.lp_mostly_unlocked).toBe(burned < 50);
      if (status("freezable")) expect(out.reasons.join(" ")).toMatch(/freeze authority/);
    }
    expect(checked).toBe(3);
  });

  it("scores a clean token 0 / low_risk and a honeypot ≥ 80 / likely_scam", async () => {
    const clean = await findEvm("base", (r) => r !== null && r.is_honeypot === "0" && r.is_mintable === "0" && r.hidden_owner === "0" && r.is_proxy === "0" && !r.trust_list && r.slippage_modifiable === "0" && sumPct(r.holders) < 50 && Number(r.sell_tax) < 0.1);
    const c = await run<Out>(tokenSafety, { chain: "base", address: clean.address });
    expect(c.risk_score).toBe(0);
    expect(c.verdict).toBe("low_risk");
    expect(c.reasons).toEqual([]);
    expect(c.unknown_fields).toEqual([]);

    const pot = await findEvm("base", (r) => r?.is_honeypot === "1");
    const h = await run<Out>(tokenSafety, { chain: "base", address: pot.address });
    expect(h.flags.honeypot).toBe(true);
    expect(h.risk_score).toBeGreaterThanOrEqual(80);
    expect(h.verdict).toBe("likely_scam");
    expect(h.sell_tax_pct).toBe(100);
    expect(h.reasons.join(" ")).toMatch(/honeypot/);
  });

  it("lists missing flags as unknown for a closed-source contract (never counted as safe)", async () => {
    const { address } = await findEvm("eth", (r) => r?.is_open_source === "0");
    const out = await run<Out>(tokenSafety, { chain: "ethereum", address });
    expect(out.chain).toBe("eth");
    expect(out.flags.closed_source).toBe(true);
    expect(out.flags.honeypot).toBeNull();
    expect(out.flags.mintable).toBeNull();
    expect(out.unknown_fields).toEqual(expect.arrayContaining(["is_honeypot", "is_mintable", "hidden_owner"]));
    expect(out.risk_score).toBeGreaterThanOrEqual(20);
    expect(out.note).toMatch(/not verified/);
  });

  it("caps a trusted token (Base USDC: mintable, pausable proxy) at a low score", async () => {
    const out = await run<Out>(tokenSafety, { address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" });
    expect(out.chain).toBe("base");
    expect(out.token_symbol).toBe("USDC");
    expect(out.trusted).toBe(true);
    expect(out.flags.mintable).toBe(true);
    expect(out.risk_score).toBeLessThanOrEqual(10);
    expect(out.verdict).toBe("low_risk");
  });

  it("answers 200 with found=false, verdict 'unknown' and a null score for a token GoPlus does not know", async () => {
    const { address } = await findEvm("bsc", (r) => r === null);
    const out = await run<Out>(tokenSafety, { chain: "bnb", address });
    expect(out).toMatchObject({ chain: "bsc", chain_id: 56, found: false, risk_score: null, verdict: "unknown", buy_tax_pct: null, trusted: null });
    expect(Object.values(out.flags).every((v) => v === null)).toBe(true);
    expect(out.note).toMatch(/no security record/);
    let unknownMint: string | null = null;
    for (let i = 0; i < 60 && !unknownMint; i++) if ((await rawSolana(solMint(12, i))) === null) unknownMint = solMint(12, i);
    const s = await run<Out>(tokenSafety, { chain: "sol", address: unknownMint! });
    expect(s).toMatchObject({ chain: "solana", found: false, verdict: "unknown", risk_score: null });
  });

  it("accepts chain aliases", async () => {
    const a = evmAddr(0x5afe, 1);
    const cases: Array<[string, string, number]> = [
      ["ethereum", "eth", 1],
      ["MATIC", "polygon", 137],
      ["avax", "avalanche", 43114],
      ["arb", "arbitrum", 42161],
      ["op", "optimism", 10],
      ["BNB", "bsc", 56],
    ];
    for (const [alias, chain, id] of cases) {
      const out = await run<Out>(tokenSafety, { chain: alias, address: a });
      expect([out.chain, out.chain_id]).toEqual([chain, id]);
    }
  });

  it("answers 422 for a missing / malformed address, an unknown chain and an address of the wrong kind", async () => {
    expect(await detailOf(tokenSafety, { chain: "base" })).toEqual([{ loc: ["query", "address"], msg: "Field required", type: "missing", input: null }]);
    expect(await detailOf(tokenSafety, { address: "0xnothex" })).toMatchObject([{ loc: ["query", "address"], type: "string_pattern_mismatch", input: "0xnothex" }]);
    expect(await detailOf(tokenSafety, { chain: "tron", address: evmAddr(1, 1) })).toEqual([
      {
        loc: ["query", "chain"],
        msg: "Input should be 'base', 'eth', 'bsc', 'polygon', 'arbitrum', 'optimism', 'avalanche' or 'solana'",
        type: "literal_error",
        input: "tron",
        ctx: { expected: "'base', 'eth', 'bsc', 'polygon', 'arbitrum', 'optimism', 'avalanche' or 'solana'" },
      },
    ]);
    const evm = evmAddr(0x5afe, 2);
    const error = `chain 'solana' needs a base58 mint address (32-44 characters), got '${evm}'`;
    expect(await detailOf(tokenSafety, { chain: "solana", address: evm })).toEqual([{ loc: ["query", "address"], msg: `Value error, ${error}`, type: "value_error", input: evm, ctx: { error } }]);
    const mint = solMint(11, 1);
    const error2 = `chain 'eth' needs a 0x-prefixed 20-byte hex address, got '${mint}'`;
    expect(await detailOf(tokenSafety, { chain: "eth", address: mint })).toEqual([{ loc: ["query", "address"], msg: `Value error, ${error2}`, type: "value_error", input: mint, ctx: { error: error2 } }]);
    expect(sim().total("goplus")).toBe(0);
  });

  it("is unavailable (503) when GoPlus is down or answers garbage", async () => {
    sim().setFault("goplus", { mode: "error", status: 500 });
    await expect(run(tokenSafety, { address: evmAddr(0x5afe, 3) })).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("goplus", { mode: "malformed" });
    await expect(run(tokenSafety, { chain: "solana", address: solMint(11, 2) })).rejects.toBeInstanceOf(UnavailableError);
  });
});
