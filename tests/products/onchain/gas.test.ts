import { describe, expect, it } from "vitest";
import { baseGas } from "@/lib/catalog/products/onchain/gas";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { freezeClock, median, rawRpc, rel, run } from "./helpers";

const { sim } = useSimulator();
freezeClock();

type FeeHistory = { oldestBlock: string; baseFeePerGas: string[]; gasUsedRatio: number[]; reward: string[][] };
const gwei = (hex: string) => Number(BigInt(hex)) / 1e9;
type Tiers = Record<"safe" | "standard" | "fast", number>;
type Out = Record<string, unknown> & Record<"gas_price_gwei" | "priority_fee_gwei" | "base_fee_gwei" | "safe_gwei" | "standard_gwei" | "fast_gwei" | "utilization_pct" | "base_fee_trend_pct" | "latest_block", number> & {
  tips_gwei: Tiers;
  max_fee_gwei: Tiers;
  l1_data_fee_note: string;
};

describe("GET /v1/gas (Base)", () => {
  it("recomputes gwei, tiers, utilisation and trend from the raw hex fee history", async () => {
    const out = await run<Out>(baseGas);
    const fh = await rawRpc<FeeHistory>(sim(), "base-rpc", "eth_feeHistory", ["0x14", "latest", [10, 50, 90]]);
    const gp = gwei(await rawRpc(sim(), "base-rpc", "eth_gasPrice", []));
    const prio = gwei(await rawRpc(sim(), "base-rpc", "eth_maxPriorityFeePerGas", []));
    const next = gwei(fh.baseFeePerGas.at(-1)!);
    const tips = [0, 1, 2].map((k) => median(fh.reward.map((r) => gwei(r[k]!))));
    expect(rel(out.gas_price_gwei, gp)).toBeLessThan(1e-5);
    expect(rel(out.priority_fee_gwei, prio)).toBeLessThan(1e-5);
    expect(rel(out.base_fee_gwei, next)).toBeLessThan(1e-5);
    expect(rel(out.safe_gwei, next + tips[0]!)).toBeLessThan(1e-5);
    expect(rel(out.standard_gwei, next + tips[1]!)).toBeLessThan(1e-5);
    expect(rel(out.fast_gwei, next + tips[2]!)).toBeLessThan(1e-5);
    expect(rel(out.tips_gwei.fast, tips[2]!)).toBeLessThan(1e-5);
    expect(rel(out.max_fee_gwei.safe, 2 * next + tips[0]!)).toBeLessThan(1e-5);
    expect(out.utilization_pct).toBeCloseTo((fh.gasUsedRatio.reduce((a, b) => a + b, 0) / 20) * 100, 2);
    expect(out.base_fee_trend_pct).toBeCloseTo((next / gwei(fh.baseFeePerGas[0]!) - 1) * 100, 2);
    expect(out.latest_block).toBe(Number(BigInt(fh.oldestBlock)) + 19);
    expect(out.verdict).toBe(out.utilization_pct >= 80 && out.base_fee_trend_pct >= 10 ? "wait" : "submit_now");
    // Base is cheap: ~0.005-0.05 gwei.
    expect(out.base_fee_gwei).toBeGreaterThan(0.003);
    expect(out.base_fee_gwei).toBeLessThan(0.1);
    expect(out.chain_id).toBe(8453);
    expect(out.l1_data_fee_note).toMatch(/L1 data fee/);
    expect(out.l1_data_fee_note).toMatch(/eth_gasPrice/);
    expect(out.unavailable).toEqual([]);
  });

  it("asks the node for exactly eth_feeHistory [\"0x14\",\"latest\",[10,50,90]], eth_gasPrice and eth_maxPriorityFeePerGas", async () => {
    await run(baseGas);
    const keys = Object.keys(sim().counts()).sort();
    expect(keys).toEqual([
      'base-rpc rpc:eth_feeHistory:["0x14","latest",[10,50,90]]',
      "base-rpc rpc:eth_gasPrice:[]",
      "base-rpc rpc:eth_maxPriorityFeePerGas:[]",
    ]);
  });

  it("single-flights 30 concurrent calls into one request per RPC method", async () => {
    await Promise.all(Array.from({ length: 30 }, () => run(baseGas)));
    expect(sim().total("base-rpc")).toBe(3);
  });

  it("is unavailable (503) when the Base RPC is down, hangs or answers garbage", async () => {
    sim().setFault("base-rpc", { mode: "error", status: 503 });
    await expect(run(baseGas)).rejects.toBeInstanceOf(UnavailableError);
    sim().setFault("base-rpc", { mode: "malformed" });
    await expect(run(baseGas)).rejects.toBeInstanceOf(UnavailableError);
  });
});
