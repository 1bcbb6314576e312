import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { namehash, type Address } from "viem";
import {
  BASE_USDC,
  baseReverseNode,
  baseRpc,
  basename,
  blockNumber,
  erc20BalanceOf,
  ethRpc,
  feeHistory,
  gasPrice,
  getBalance,
  getCode,
  maxPriorityFeePerGas,
  rpcCall,
  transactionCount,
} from "@/lib/market/sources/evm-rpc";
import { resetEnvForTests } from "@/lib/config/env";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();

// Blocks advance with the clock (2 s on Base): freeze Date so the adapter and the raw
// reference calls below see the same block.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date());
});
afterEach(() => vi.useRealTimers());

async function raw(provider: "base-rpc" | "eth-rpc", method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(`${sim().url}/${provider}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return (await res.json()) as { result?: unknown };
}

const addr = (i: number) => `0x${(0xabc000 + i).toString(16).padStart(40, "0")}` as Address;

describe("evm-rpc adapter (JSON-RPC over POST) against the simulator", () => {
  it("reads gas price, tip and block number as bigints equal to the raw hex answers", async () => {
    for (const [p, name] of [[baseRpc, "base-rpc"], [ethRpc, "eth-rpc"]] as const) {
      const [gp, tip, bn] = await Promise.all([gasPrice(p), maxPriorityFeePerGas(p), blockNumber(p)]);
      expect(gp).toBe(BigInt((await raw(name, "eth_gasPrice", [])).result as string));
      expect(tip).toBe(BigInt((await raw(name, "eth_maxPriorityFeePerGas", [])).result as string));
      expect(bn).toBe(BigInt((await raw(name, "eth_blockNumber", [])).result as string));
      expect(tip).toBeLessThan(gp);
    }
    // Realistic magnitudes: Base ~0.005-0.05 gwei, Ethereum ~5-40 gwei.
    const baseGwei = Number(await gasPrice(baseRpc)) / 1e9;
    const ethGwei = Number(await gasPrice(ethRpc)) / 1e9;
    expect(baseGwei).toBeGreaterThan(0.003);
    expect(baseGwei).toBeLessThan(0.1);
    expect(ethGwei).toBeGreaterThan(3);
    expect(ethGwei).toBeLessThan(60);
  });

  it("parses eth_feeHistory: blockCount+1 base fees, ratios, increasing reward percentiles", async () => {
    const fh = await feeHistory(baseRpc, 20, "latest", [10, 50, 90]);
    const r = (await raw("base-rpc", "eth_feeHistory", ["0x14", "latest", [10, 50, 90]])).result as {
      oldestBlock: string;
      baseFeePerGas: string[];
      gasUsedRatio: number[];
      reward: string[][];
    };
    expect(fh.baseFeePerGas).toHaveLength(21);
    expect(fh.gasUsedRatio).toHaveLength(20);
    expect(fh.reward).toHaveLength(20);
    expect(fh.oldestBlock).toBe(BigInt(r.oldestBlock));
    expect(fh.baseFeePerGas).toEqual(r.baseFeePerGas.map((h) => h.toLowerCase()));
    expect(fh.gasUsedRatio).toEqual(r.gasUsedRatio);
    for (const row of fh.reward) {
      expect(BigInt(row[0]!)).toBeLessThanOrEqual(BigInt(row[1]!));
      expect(BigInt(row[1]!)).toBeLessThanOrEqual(BigInt(row[2]!));
    }
    for (const u of fh.gasUsedRatio) expect(u).toBeGreaterThanOrEqual(0), expect(u).toBeLessThanOrEqual(1);
    // Latest block of the window is the chain head.
    expect(fh.oldestBlock + 19n).toBe(await blockNumber(baseRpc));
  });

  it("reads nonce, code and balance per address like the raw node does", async () => {
    let eoas = 0;
    let contracts = 0;
    for (let i = 0; i < 30; i++) {
      const a = addr(i);
      const [n, code, bal] = await Promise.all([transactionCount(baseRpc, a), getCode(baseRpc, a), getBalance(baseRpc, a)]);
      expect(n).toBe(BigInt((await raw("base-rpc", "eth_getTransactionCount", [a, "latest"])).result as string));
      expect(code).toBe(((await raw("base-rpc", "eth_getCode", [a, "latest"])).result as string).toLowerCase());
      expect(bal).toBe(BigInt((await raw("base-rpc", "eth_getBalance", [a, "latest"])).result as string));
      if (code === "0x") eoas++;
      else contracts++;
    }
    expect(eoas).toBeGreaterThan(15);
    expect(contracts).toBeGreaterThan(0);
    // The USDC contract has code on Base.
    expect((await getCode(baseRpc, BASE_USDC)).length).toBeGreaterThan(10);
  });

  it("decodes USDC balanceOf from the raw eth_call result (uint256, 6 decimals)", async () => {
    let nonZero = 0;
    for (let i = 0; i < 12; i++) {
      const owner = addr(100 + i);
      const units = await erc20BalanceOf(baseRpc, BASE_USDC, owner);
      const data = `0x70a08231${owner.slice(2).toLowerCase().padStart(64, "0")}`;
      const r = (await raw("base-rpc", "eth_call", [{ to: BASE_USDC, data }, "latest"])).result as string;
      expect(r).toMatch(/^0x[0-9a-f]{64}$/);
      expect(units).toBe(BigInt(r));
      if (units > 0n) nonZero++;
    }
    expect(nonZero).toBeGreaterThan(0);
  });

  it("treats undecodable call data as an upstream error (USDC address has no code on Ethereum)", async () => {
    await expect(erc20BalanceOf(ethRpc, BASE_USDC, addr(1))).rejects.toMatchObject({ name: "UpstreamError", kind: "upstream_error", provider: "eth-rpc" });
  });

  it("computes the legacy reverse node as namehash('<addr>.80002105.reverse')", () => {
    const a = "0x1234567890AbcdEF1234567890aBcdef12345678" as Address;
    expect(baseReverseNode(a)).toBe(namehash(`${a.slice(2).toLowerCase()}.80002105.reverse`));
  });

  it("resolves basenames through the L2ReverseRegistrar, then the legacy L2Resolver", async () => {
    const seen = { l2_reverse_registrar: 0, l2_resolver_legacy: 0, none: 0 };
    for (let i = 0; i < 40; i++) {
      const a = addr(200 + i);
      const bn = await basename(a);
      if (bn.name === null) {
        expect(bn.source).toBeNull();
        seen.none++;
        continue;
      }
      expect(bn.name).toMatch(/^[a-z0-9]+\.base\.eth$/);
      seen[bn.source!]++;
    }
    expect(seen.l2_reverse_registrar).toBeGreaterThan(0);
    expect(seen.l2_resolver_legacy).toBeGreaterThan(0);
    expect(seen.none).toBeGreaterThan(10);
  });

  it("turns a JSON-RPC error object into an upstream_error naming the code", async () => {
    await expect(rpcCall(baseRpc, "eth_notAMethod", [], z.string())).rejects.toMatchObject({ kind: "upstream_error", provider: "base-rpc" });
    await expect(rpcCall(baseRpc, "eth_notAMethod", [], z.string())).rejects.toThrow(/-32601/);
    // Invalid params (decreasing percentiles) are refused by the node with -32602.
    await expect(feeHistory(ethRpc, 5, "latest", [90, 10])).rejects.toThrow(/JSON-RPC error -32602 on eth_feeHistory/);
  });

  it("rejects non-hex results and malformed bodies as parse errors", async () => {
    await expect(rpcCall(baseRpc, "eth_chainId", [], z.string().regex(/^0x[0-9a-f]+$/).transform(BigInt))).resolves.toBe(8453n);
    await expect(rpcCall(baseRpc, "net_version", [], z.string().regex(/^0x[0-9a-f]+$/))).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("base-rpc", { mode: "malformed" });
    await expect(gasPrice(baseRpc)).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("base-rpc", { mode: "not_json" });
    await expect(blockNumber(baseRpc)).rejects.toMatchObject({ kind: "parse" });
  });

  it("maps HTTP 500 / 429 / hang to http / rate_limited / timeout", async () => {
    sim().setFault("eth-rpc", { mode: "error", status: 500 });
    await expect(gasPrice(ethRpc)).rejects.toMatchObject({ kind: "http", status: 500 });
    sim().setFault("eth-rpc", { mode: "error", status: 429 });
    await expect(blockNumber(ethRpc)).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("eth-rpc", { mode: "hang" });
    await expect(maxPriorityFeePerGas(ethRpc)).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => gasPrice(baseRpc)));
    expect(sim().total("base-rpc")).toBe(1);
    await Promise.all(Array.from({ length: 50 }, () => feeHistory(ethRpc, 20, "latest", [10, 50, 90])));
    expect(sim().total("eth-rpc")).toBe(1);
  });

  it("keeps a key in the RPC URL's query out of error messages", async () => {
    const before = process.env.BASE_RPC_URL;
    process.env.BASE_RPC_URL = `${sim().url}/base-rpc?apikey=sup3rs3cret`;
    resetEnvForTests();
    try {
      expect(await blockNumber(baseRpc)).toBeGreaterThan(0n);
      sim().setFault("base-rpc", { mode: "error", status: 503 });
      const err = await gasPrice(baseRpc).then(() => new Error("expected a failure"), (e: Error) => e);
      expect(err.message).toContain("HTTP 503");
      expect(err.message).not.toContain("sup3rs3cret");
    } finally {
      process.env.BASE_RPC_URL = before;
      resetEnvForTests();
    }
  });
});
