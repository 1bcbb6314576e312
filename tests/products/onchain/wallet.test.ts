import { describe, expect, it } from "vitest";
import { decodeFunctionResult, encodeFunctionData, getAddress, keccak256, namehash, concat, toBytes } from "viem";
import { wallet } from "@/lib/catalog/products/onchain/wallet";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { detailOf, evmAddr, freezeClock, rawGet, rawRpc, rel, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const REGISTRAR = "0x0000000000D8e504002cC26E3Ec46D81971C1664";
const RESOLVER = "0xC6d566A56A1aFf6508b41f6c90ff131615583BCD";
const nameForAddrAbi = [{ type: "function", name: "nameForAddr", stateMutability: "view", inputs: [{ name: "addr", type: "address" }], outputs: [{ name: "", type: "string" }] }] as const;
const nameAbi = [{ type: "function", name: "name", stateMutability: "view", inputs: [{ name: "node", type: "bytes32" }], outputs: [{ name: "", type: "string" }] }] as const;

interface Out {
  address: string;
  basename: string | null;
  basename_source: string | null;
  is_contract: boolean;
  account_type: string;
  tx_count: number;
  tx_count_note: string;
  eth_balance: number;
  eth_balance_wei: string;
  usdc_balance: number;
  usdc_balance_units: string;
  total_transactions: number | null;
  token_transfers: number | null;
  gas_used: number | null;
  activity: { level: string; transactions_basis: number; summary: string };
  unavailable: string[];
  notes: string[];
  sources: string[];
}

/** The wallet facts recomputed from the raw node and Blockscout answers. */
async function expected(address: string) {
  const a = address.toLowerCase();
  const code = await rawRpc(sim(), "base-rpc", "eth_getCode", [a, "latest"]);
  const nonce = Number(BigInt(await rawRpc(sim(), "base-rpc", "eth_getTransactionCount", [a, "latest"])));
  const wei = BigInt(await rawRpc(sim(), "base-rpc", "eth_getBalance", [a, "latest"]));
  // balanceOf(address): selector 0x70a08231 + the address left-padded to 32 bytes.
  const usdcHex = await rawRpc(sim(), "base-rpc", "eth_call", [{ to: USDC, data: `0x70a08231${a.slice(2).padStart(64, "0")}` }, "latest"]);
  const primary = decodeFunctionResult({
    abi: nameForAddrAbi,
    functionName: "nameForAddr",
    data: await rawRpc(sim(), "base-rpc", "eth_call", [{ to: REGISTRAR, data: encodeFunctionData({ abi: nameForAddrAbi, functionName: "nameForAddr", args: [getAddress(a)] }) }, "latest"]),
  });
  const node = keccak256(concat([namehash("80002105.reverse"), keccak256(toBytes(a.slice(2)))]));
  const legacy = decodeFunctionResult({
    abi: nameAbi,
    functionName: "name",
    data: await rawRpc(sim(), "base-rpc", "eth_call", [{ to: RESOLVER, data: encodeFunctionData({ abi: nameAbi, functionName: "name", args: [node] }) }, "latest"]),
  });
  const counters = await rawGet<Record<string, string>>(sim(), `/blockscout/api/v2/addresses/${a}/counters`);
  return { code, nonce, wei, usdc: BigInt(usdcHex), primary, legacy, counters };
}

describe("GET /v1/wallet", () => {
  it("recomputes nonce, code, ETH and USDC balances, basename and counters from the raw answers", async () => {
    const kinds = new Set<string>();
    const sources = new Set<string | null>();
    for (let i = 0; i < 24; i++) {
      const a = evmAddr(0xa11e, i);
      const out = await run<Out>(wallet, { address: a });
      const e = await expected(a);
      expect(out.address).toBe(getAddress(a));
      expect(out.tx_count).toBe(e.nonce);
      expect(out.is_contract).toBe(e.code !== "0x");
      expect(out.account_type).toBe(e.code === "0x" ? "eoa" : "contract");
      expect(out.eth_balance_wei).toBe(e.wei.toString());
      // 12 significant digits; the exact amount is eth_balance_wei.
      expect(e.wei === 0n ? out.eth_balance : rel(out.eth_balance, Number(e.wei) / 1e18)).toBeLessThan(1e-11);
      expect(out.usdc_balance_units).toBe(e.usdc.toString());
      expect(out.usdc_balance).toBeCloseTo(Number(e.usdc) / 1e6, 6);
      expect(out.basename).toBe(e.primary || e.legacy || null);
      expect(out.basename_source).toBe(e.primary ? "l2_reverse_registrar" : e.legacy ? "l2_resolver_legacy" : null);
      expect(out.total_transactions).toBe(Number(e.counters.transactions_count));
      expect(out.token_transfers).toBe(Number(e.counters.token_transfers_count));
      expect(out.gas_used).toBe(Number(e.counters.gas_usage_count));
      const basis = Math.max(Number(e.counters.transactions_count), e.nonce);
      expect(out.activity.transactions_basis).toBe(basis);
      expect(out.activity.level).toBe(basis === 0 ? "none" : basis < 10 ? "light" : basis < 1000 ? "active" : "heavy");
      expect(out.activity.summary).toContain(out.basename ?? getAddress(a));
      expect(out.tx_count_note).toMatch(/only transactions this address sent as an EOA/);
      expect(out.unavailable).toEqual([]);
      expect(out.sources).toEqual(["base-rpc", "blockscout"]);
      kinds.add(out.account_type);
      sources.add(out.basename_source);
    }
    expect(kinds).toEqual(new Set(["eoa", "contract"]));
    expect(sources).toEqual(new Set(["l2_reverse_registrar", "l2_resolver_legacy", null]));
  });

  it("normalises any letter case to the EIP-55 checksum form", async () => {
    const lower = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
    const out = await run<Out>(wallet, { address: lower.toUpperCase().replace("0X", "0x") });
    expect(out.address).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    expect(out.is_contract).toBe(true); // the USDC contract itself
  });

  it("still serves the RPC facts when Blockscout is down: counters null, with a note", async () => {
    sim().setFault("blockscout", { mode: "error", status: 503 });
    const a = evmAddr(0xa11e, 3);
    const out = await run<Out>(wallet, { address: a });
    const e = await expected(a).catch(() => null); // raw Blockscout is down too
    expect(e).toBeNull();
    expect(out.total_transactions).toBeNull();
    expect(out.token_transfers).toBeNull();
    expect(out.gas_used).toBeNull();
    expect(out.unavailable).toEqual(["blockscout"]);
    expect(out.notes.join(" ")).toMatch(/Blockscout counters are unavailable/);
    expect(out.sources).toEqual(["base-rpc"]);
    const nonce = Number(BigInt(await rawRpc(sim(), "base-rpc", "eth_getTransactionCount", [a, "latest"])));
    expect(out.tx_count).toBe(nonce);
    expect(out.activity.transactions_basis).toBe(nonce);
  });

  it("is unavailable (503) when the Base RPC is down", async () => {
    sim().setFault("base-rpc", { mode: "error", status: 502 });
    await expect(run(wallet, { address: evmAddr(0xa11e, 1) })).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("base-rpc", { mode: "hang" });
    await expect(run(wallet, { address: evmAddr(0xa11e, 2) })).rejects.toBeInstanceOf(UnavailableError);
  });

  it("answers 422 for a missing or malformed address", async () => {
    expect(await detailOf(wallet, {})).toEqual([{ loc: ["query", "address"], msg: "Field required", type: "missing", input: null }]);
    expect(await detailOf(wallet, { address: "" })).toEqual([{ loc: ["query", "address"], msg: "Field required", type: "missing", input: null }]);
    expect(await detailOf(wallet, { address: "0x1234" })).toEqual([
      { loc: ["query", "address"], msg: "String should match pattern '^0x[0-9a-fA-F]{40}$'", type: "string_pattern_mismatch", input: "0x1234", ctx: { pattern: "^0x[0-9a-fA-F]{40}$" } },
    ]);
    expect(await detailOf(wallet, { address: "alice.base.eth" })).toMatchObject([{ loc: ["query", "address"], type: "string_pattern_mismatch" }]);
  });
});
