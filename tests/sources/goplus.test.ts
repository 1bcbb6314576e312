import { describe, expect, it } from "vitest";
import { evmTokenSecurity, GOPLUS_EVM_CHAIN_IDS, solanaTokenSecurity, type GoplusEvmChain } from "@/lib/market/sources/goplus";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();
const evmAddr = (i: number) => `0x${(0x70c0e0 + i).toString(16).padStart(40, "0")}`;
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const mint = (i: number) => `So1Test${Array.from({ length: 37 }, (_, k) => B58[(i * 7 + k * 13) % 58]).join("")}`;

async function rawEvm(chainId: number, a: string) {
  return (await (await fetch(`${sim().url}/goplus/api/v1/token_security/${chainId}?contract_addresses=${a}`)).json()) as { code: number; result: Record<string, Record<string, unknown>> };
}

describe("goplus adapter (token security) against the simulator", () => {
  it("returns the EVM record keyed by the lower-cased address, untouched, for each chain", async () => {
    for (const chain of Object.keys(GOPLUS_EVM_CHAIN_IDS) as GoplusEvmChain[]) {
      let known = 0;
      for (let i = 0; i < 6; i++) {
        const a = evmAddr(i);
        const rec = await evmTokenSecurity(chain, a.toUpperCase().replace("0X", "0x"));
        const raw = await rawEvm(GOPLUS_EVM_CHAIN_IDS[chain], a);
        expect(raw.code).toBe(1);
        const r = raw.result[a] ?? null;
        if (r === null) {
          expect(rec).toBeNull();
          continue;
        }
        known++;
        expect(rec).toEqual(r);
        // Flags stay "1"/"0" strings; lock flags stay integers.
        expect(["0", "1"]).toContain(rec!.is_open_source);
        for (const h of rec!.lp_holders ?? []) expect([0, 1]).toContain(h.is_locked);
      }
      expect(known).toBeGreaterThan(0);
    }
  });

  it("returns null for a token GoPlus does not know (result: {})", async () => {
    let unknown = 0;
    for (let i = 0; i < 60 && unknown === 0; i++) {
      const a = evmAddr(1000 + i);
      const raw = await rawEvm(8453, a);
      if (Object.keys(raw.result).length === 0) {
        unknown++;
        expect(await evmTokenSecurity("base", a)).toBeNull();
      }
    }
    expect(unknown).toBe(1);
  });

  it("keeps missing flags missing (closed-source contracts report few flags)", async () => {
    let found = false;
    for (let i = 0; i < 200 && !found; i++) {
      const rec = await evmTokenSecurity("eth", evmAddr(2000 + i));
      if (rec?.is_open_source === "0") {
        found = true;
        expect(rec.is_honeypot).toBeUndefined();
        expect(rec.is_mintable).toBeUndefined();
      }
    }
    expect(found).toBe(true);
  });

  it("reads Solana records with {status, authority} objects, case-sensitive mint keys", async () => {
    let known = 0;
    for (let i = 0; i < 10; i++) {
      const m = mint(i);
      const rec = await solanaTokenSecurity(m);
      const raw = (await (await fetch(`${sim().url}/goplus/api/v1/solana/token_security?contract_addresses=${m}`)).json()) as { result: Record<string, unknown> };
      expect(rec).toEqual(raw.result[m] ?? null);
      if (rec) {
        known++;
        expect(["0", "1"]).toContain(rec.mintable?.status);
        expect(["0", "1"]).toContain(rec.freezable?.status);
      }
    }
    expect(known).toBeGreaterThan(5);
  });

  it("turns code != 1 into an upstream error", async () => {
    await expect(solanaTokenSecurity("not-a-mint!")).rejects.toMatchObject({ name: "UpstreamError", kind: "upstream_error", provider: "goplus" });
    await expect(solanaTokenSecurity("not-a-mint!")).rejects.toThrow(/code 2004/);
  });

  it("maps malformed / 429 / hang to parse / rate_limited / timeout", async () => {
    sim().setFault("goplus", { mode: "malformed" });
    await expect(evmTokenSecurity("base", evmAddr(1))).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("goplus", { mode: "error", status: 429 });
    await expect(evmTokenSecurity("base", evmAddr(2))).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("goplus", { mode: "hang" });
    await expect(evmTokenSecurity("base", evmAddr(3))).rejects.toMatchObject({ kind: "timeout" });
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => evmTokenSecurity("bsc", evmAddr(4))));
    expect(sim().total("goplus")).toBe(1);
  });
});
