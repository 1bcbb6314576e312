import { describe, expect, it } from "vitest";
import { addressCounters } from "@/lib/market/sources/blockscout";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();
const addr = (i: number) => `0x${(0xb10c00 + i).toString(16).padStart(40, "0")}`;

describe("blockscout adapter (address counters) against the simulator", () => {
  it("parses the string counters into numbers", async () => {
    for (let i = 0; i < 5; i++) {
      const a = addr(i);
      const c = await addressCounters(a);
      const raw = (await (await fetch(`${sim().url}/blockscout/api/v2/addresses/${a}/counters`)).json()) as Record<string, string>;
      expect(typeof raw.transactions_count).toBe("string");
      expect(c).toEqual({
        transactions_count: Number(raw.transactions_count),
        token_transfers_count: Number(raw.token_transfers_count),
        gas_usage_count: Number(raw.gas_usage_count),
        validations_count: Number(raw.validations_count),
      });
    }
  });

  it("counts at least the transactions an EOA sent (its nonce)", async () => {
    for (let i = 0; i < 10; i++) {
      const a = addr(50 + i);
      const nonceRes = await fetch(`${sim().url}/base-rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionCount", params: [a, "latest"] }),
      });
      const nonce = Number(BigInt(((await nonceRes.json()) as { result: string }).result));
      expect((await addressCounters(a)).transactions_count).toBeGreaterThanOrEqual(nonce);
    }
  });

  it("maps an invalid address (422), malformed body, 429 and a hang to typed errors", async () => {
    await expect(addressCounters("0x1234")).rejects.toMatchObject({ kind: "http", status: 422, provider: "blockscout" });
    sim().setFault("blockscout", { mode: "malformed" });
    await expect(addressCounters(addr(1))).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("blockscout", { mode: "error", status: 429 });
    await expect(addressCounters(addr(2))).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("blockscout", { mode: "hang" });
    await expect(addressCounters(addr(3))).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => addressCounters(addr(9))));
    expect(sim().total("blockscout")).toBe(1);
  });
});
