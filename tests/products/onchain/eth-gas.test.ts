import { describe, expect, it } from "vitest";
import { ethGas } from "@/lib/catalog/products/onchain/eth-gas";
import { UnavailableError } from "@/lib/errors";
import { clearCache } from "@/lib/market/cache";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, median, rawGet, rawRpc, rel, run, withEnv } from "./helpers";

// Start without a key: the RPC path is the default.
const { sim } = useSimulator({ env: { ETHERSCAN_API_KEY: "" } });
freezeClock();

type Out = Record<string, unknown> & {
  base_fee_gwei: number;
  safe_gwei: number;
  standard_gwei: number;
  fast_gwei: number;
  tips_gwei: Record<"safe" | "standard" | "fast", number>;
  max_fee_gwei: Record<"safe" | "standard" | "fast", number>;
  utilization_pct: number;
  base_fee_trend_pct: number;
  latest_block: number;
  verdict: string;
};
type FeeHistory = { oldestBlock: string; baseFeePerGas: string[]; gasUsedRatio: number[]; reward: string[][] };
const gwei = (hex: string) => Number(BigInt(hex)) / 1e9;
const KEY = "ETHERSCAN-TEST-KEY-1234";

function expectVerdictRule(out: Out): void {
  // wait only for a congestion spike: ≥ 80 % full blocks AND a ≥ 10 % base-fee rise.
  const spike = out.utilization_pct >= 80 && out.base_fee_trend_pct >= 10;
  expect(out.verdict).toBe(spike ? "wait" : "submit_now");
}

describe("GET /v1/eth-gas", () => {
  it("without ETHERSCAN_API_KEY: computes the tiers from eth_feeHistory + eth_gasPrice on ETH_RPC_URL", async () => {
    const out = await run<Out>(ethGas);
    const fh = await rawRpc<FeeHistory>(sim(), "eth-rpc", "eth_feeHistory", ["0x14", "latest", [10, 50, 90]]);
    const gp = await rawRpc(sim(), "eth-rpc", "eth_gasPrice", []);
    const next = gwei(fh.baseFeePerGas.at(-1)!);
    const tip = (k: number) => median(fh.reward.map((r) => gwei(r[k]!)));
    expect(out.method).toBe("eth_feeHistory");
    expect(out.source).toBe("eth-rpc");
    expect(rel(out.base_fee_gwei, next)).toBeLessThan(1e-5);
    expect(rel(out.tips_gwei.safe, tip(0))).toBeLessThan(1e-5);
    expect(rel(out.tips_gwei.standard, tip(1))).toBeLessThan(1e-5);
    expect(rel(out.tips_gwei.fast, tip(2))).toBeLessThan(1e-5);
    expect(rel(out.safe_gwei, next + tip(0))).toBeLessThan(1e-5);
    expect(rel(out.standard_gwei, next + tip(1))).toBeLessThan(1e-5);
    expect(rel(out.fast_gwei, next + tip(2))).toBeLessThan(1e-5);
    expect(rel(out.max_fee_gwei.standard, 2 * next + tip(1))).toBeLessThan(1e-5);
    const util = (fh.gasUsedRatio.reduce((a, b) => a + b, 0) / fh.gasUsedRatio.length) * 100;
    expect(out.utilization_pct).toBeCloseTo(util, 2);
    expect(out.base_fee_trend_pct).toBeCloseTo((next / gwei(fh.baseFeePerGas[0]!) - 1) * 100, 2);
    expect(out.blocks_sampled).toBe(20);
    expect(out.latest_block).toBe(Number(BigInt(fh.oldestBlock)) + 19);
    expect(rel(out.node_gas_price_gwei as number, gwei(gp))).toBeLessThan(1e-5);
    expect(out.safe_gwei).toBeLessThanOrEqual(out.standard_gwei);
    expect(out.standard_gwei).toBeLessThanOrEqual(out.fast_gwei);
    expect(out.base_fee_gwei).toBeGreaterThan(3);
    expect(out.base_fee_gwei).toBeLessThan(60);
    expect(out.unavailable).toEqual([]);
    expectVerdictRule(out);
    expect(sim().total("etherscan")).toBe(0);
  });

  it("with ETHERSCAN_API_KEY: serves Etherscan's Safe / Propose / Fast oracle and calls no RPC", async () => {
    await withEnv({ ETHERSCAN_API_KEY: KEY }, async () => {
      const out = await run<Out>(ethGas);
      expect(sim().total("etherscan")).toBe(1);
      expect(sim().total("eth-rpc")).toBe(0);
      const raw = await rawGet<{ result: Record<string, string> }>(sim(), "/etherscan/v2/api?chainid=1&module=gastracker&action=gasoracle&apikey=x");
      const r = raw.result;
      const base = Number(r.suggestBaseFee);
      const ratios = r.gasUsedRatio!.split(",").map(Number);
      expect(out.method).toBe("etherscan_gasoracle");
      expect(out.source).toBe("etherscan");
      expect(out.safe_gwei).toBeCloseTo(Number(r.SafeGasPrice), 5);
      expect(out.standard_gwei).toBeCloseTo(Number(r.ProposeGasPrice), 5);
      expect(out.fast_gwei).toBeCloseTo(Number(r.FastGasPrice), 5);
      expect(out.base_fee_gwei).toBeCloseTo(base, 5);
      expect(out.tips_gwei.standard).toBeCloseTo(Math.max(0, Number(r.ProposeGasPrice) - base), 5);
      expect(out.max_fee_gwei.fast).toBeCloseTo(2 * base + Math.max(0, Number(r.FastGasPrice) - base), 4);
      expect(out.utilization_pct).toBeCloseTo((ratios.reduce((a, b) => a + b, 0) / ratios.length) * 100, 2);
      // EIP-1559 rule: each block moves the base fee by 12.5 % × (u − 0.5) / 0.5.
      const implied = (ratios.reduce((f, u) => f * (1 + 0.125 * ((u - 0.5) / 0.5)), 1) - 1) * 100;
      expect(out.base_fee_trend_pct).toBeCloseTo(implied, 2);
      expect(out.latest_block).toBe(Number(r.LastBlock));
      expect(out.blocks_sampled).toBe(5);
      expect(out.node_gas_price_gwei).toBeNull();
      expectVerdictRule(out);
    });
  });

  it("both paths agree on the next base fee (same simulated chain)", async () => {
    const rpcOut = await run<Out>(ethGas);
    clearCache(); // the response cache does not know the key changed
    const esOut = await withEnv({ ETHERSCAN_API_KEY: KEY }, () => run<Out>(ethGas));
    expect(esOut.method).toBe("etherscan_gasoracle");
    expect(rel(esOut.base_fee_gwei, rpcOut.base_fee_gwei)).toBeLessThan(1e-5);
    expect(esOut.latest_block).toBe(rpcOut.latest_block);
  });

  it("falls back to the RPC when Etherscan fails, naming it unavailable", async () => {
    sim().setFault("etherscan", { mode: "error", status: 502 });
    await withEnv({ ETHERSCAN_API_KEY: KEY }, async () => {
      const out = await run<Out>(ethGas);
      expect(out.method).toBe("eth_feeHistory");
      expect(out.unavailable).toEqual(["etherscan"]);
      expect((out.notes as string[])[0]).toMatch(/Etherscan gas oracle failed \(http\)/);
    });
  });

  it("is unavailable (503) when the RPC is down and there is no key, or both are down", async () => {
    sim().setFault("eth-rpc", { mode: "error", status: 500 });
    await expect(run(ethGas)).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("etherscan", { mode: "malformed" });
    await withEnv({ ETHERSCAN_API_KEY: KEY }, async () => {
      await expect(run(ethGas)).rejects.toBeInstanceOf(UnavailableError);
    });
  });
});
