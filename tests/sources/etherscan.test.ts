import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { etherscanConfigured, gasOracle } from "@/lib/market/sources/etherscan";
import { resetEnvForTests } from "@/lib/config/env";
import { useSimulator } from "../helpers/in-process";

const KEY = "TESTKEY123456789";
const { sim } = useSimulator({ env: { ETHERSCAN_API_KEY: KEY } });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date());
});
afterEach(() => vi.useRealTimers());

describe("etherscan adapter (V2 gas oracle) against the simulator", () => {
  it("parses the gwei strings and the comma-separated gasUsedRatio", async () => {
    expect(etherscanConfigured()).toBe(true);
    const o = await gasOracle(1);
    const raw = (await (await fetch(`${sim().url}/etherscan/v2/api?chainid=1&module=gastracker&action=gasoracle&apikey=x`)).json()) as {
      status: string;
      result: Record<string, string>;
    };
    expect(raw.status).toBe("1");
    expect(o.lastBlock).toBe(Number(raw.result.LastBlock));
    expect(o.safe).toBe(Number(raw.result.SafeGasPrice));
    expect(o.propose).toBe(Number(raw.result.ProposeGasPrice));
    expect(o.fast).toBe(Number(raw.result.FastGasPrice));
    expect(o.baseFee).toBe(Number(raw.result.suggestBaseFee));
    expect(o.gasUsedRatios).toEqual(raw.result.gasUsedRatio!.split(",").map(Number));
    expect(o.gasUsedRatios).toHaveLength(5);
    expect(o.safe).toBeLessThanOrEqual(o.propose);
    expect(o.propose).toBeLessThanOrEqual(o.fast);
    expect(o.baseFee).toBeGreaterThan(3);
    expect(o.baseFee).toBeLessThan(60);
  });

  it("agrees with the simulated Ethereum node (same head block and next base fee)", async () => {
    const o = await gasOracle(1);
    const rpc = async (method: string, params: unknown[]) =>
      ((await (await fetch(`${sim().url}/eth-rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })).json()) as { result: unknown }).result;
    expect(o.lastBlock).toBe(Number(BigInt((await rpc("eth_blockNumber", [])) as string)));
    const fh = (await rpc("eth_feeHistory", ["0x1", "latest", []])) as { baseFeePerGas: string[] };
    expect(o.baseFee).toBeCloseTo(Number(BigInt(fh.baseFeePerGas[1]!)) / 1e9, 6);
  });

  it("turns status \"0\" answers into upstream errors (chain not on the plan)", async () => {
    await expect(gasOracle(8453)).rejects.toMatchObject({ name: "UpstreamError", kind: "upstream_error", provider: "etherscan" });
    await expect(gasOracle(8453)).rejects.toThrow(/Free API access is not supported/);
  });

  it("redacts the API key from error messages", async () => {
    sim().setFault("etherscan", { mode: "error", status: 502 });
    const err = (await gasOracle(1).then(() => new Error("expected a failure"), (e: Error) => e)) as Error & { kind?: string };
    expect(err).toMatchObject({ kind: "http", status: 502 });
    expect(err.message).toContain("apikey=***");
    expect(err.message).not.toContain(KEY);
  });

  it("maps malformed / 429 / hang to parse / rate_limited / timeout", async () => {
    sim().setFault("etherscan", { mode: "malformed" });
    await expect(gasOracle(1)).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("etherscan", { mode: "error", status: 429 });
    await expect(gasOracle(1)).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("etherscan", { mode: "hang" });
    await expect(gasOracle(1)).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => gasOracle(1)));
    expect(sim().total("etherscan")).toBe(1);
  });

  it("refuses to call without a key", async () => {
    const before = process.env.ETHERSCAN_API_KEY;
    delete process.env.ETHERSCAN_API_KEY;
    resetEnvForTests();
    try {
      expect(etherscanConfigured()).toBe(false);
      await expect(gasOracle(1)).rejects.toMatchObject({ kind: "upstream_error" });
      expect(sim().total("etherscan")).toBe(0);
    } finally {
      process.env.ETHERSCAN_API_KEY = before;
      resetEnvForTests();
    }
  });
});
