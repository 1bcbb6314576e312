/**
 * GoPlus Solana answers of the LIVE shape (`non_transferable`, holder rows keyed
 * `account`), which differ from GoPlus's SDK schema (`none_transferable`,
 * `token_account`). A recorded-shape fixture is replayed over real HTTP from a loopback
 * server through the real adapter, scorer and product; the simulator must serve the same
 * spellings.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solanaTokenSecurity } from "@/lib/market/sources/goplus";
import { solanaTokenRisk } from "@/lib/market/signals/token-safety";
import { tokenSafety } from "@/lib/catalog/products/onchain/token-safety";
import { clearCache } from "@/lib/market/cache";
import { solanaProfile } from "@/lib/upstream-sim/providers/goplus";
import { useSimulator } from "../helpers/in-process";
import { rawGet, run, solMint, withEnv } from "../products/onchain/helpers";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/goplus-solana-live-soulbound.json", import.meta.url), "utf8")) as {
  result: Record<string, Record<string, unknown>>;
};
const MINT = Object.keys(fixture.result)[0]!;

const { sim } = useSimulator();

/** Loopback server answering GoPlus's Solana route with the fixture, as GoPlus would. */
let replay: Server;
let replayUrl = "";
const asked: string[] = [];
beforeAll(async () => {
  replay = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://replay");
    asked.push(`${url.pathname}?${url.searchParams.toString()}`);
    const known = url.pathname === "/api/v1/solana/token_security" && url.searchParams.get("contract_addresses") === MINT;
    const body = JSON.stringify(known ? fixture : { code: 1, message: "OK", result: {} });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => replay.listen(0, "127.0.0.1", resolve));
  replayUrl = `http://127.0.0.1:${(replay.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => replay.close(() => resolve()));
});

const viaReplay = <T>(fn: () => Promise<T>) =>
  withEnv({ GOPLUS_BASE_URL: replayUrl }, async () => {
    clearCache();
    return fn();
  });

interface Out {
  found: boolean;
  risk_score: number | null;
  verdict: string;
  flags: Record<string, boolean | null>;
  unknown_fields: string[];
  reasons: string[];
}

describe("GoPlus Solana, live response shape", () => {
  it("the fixture has the live spellings only (guards the replay itself)", () => {
    const rec = fixture.result[MINT]!;
    expect(rec.non_transferable).toBe("1");
    expect(rec).not.toHaveProperty("none_transferable");
    for (const h of rec.holders as Array<Record<string, unknown>>) {
      expect(h).toHaveProperty("account");
      expect(h).not.toHaveProperty("token_account");
    }
  });

  it("the adapter reads a replayed live answer over HTTP and keeps the live fields", async () => {
    const rec = await viaReplay(() => solanaTokenSecurity(MINT));
    expect(asked.at(-1)).toBe(`/api/v1/solana/token_security?contract_addresses=${MINT}`);
    expect(rec).toEqual(fixture.result[MINT]);
    expect(rec?.non_transferable).toBe("1");
    expect(rec?.holders?.[0]?.account).toBe("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
  });

  it("scores the soul-bound token 100 likely_scam (50 high_risk if the live flag were missed)", async () => {
    const rec = (await viaReplay(() => solanaTokenSecurity(MINT)))!;
    const r = solanaTokenRisk(rec);
    expect(r.flags.nonTransferable).toBe(true);
    expect(r.unknown).not.toContain("non_transferable");
    expect(r.score).toBe(100); // non-transferable 50 + freeze 25 + mint 20 + metadata 5
    expect(r.verdict).toBe("likely_scam");
    // What production reported before both spellings were read:
    const { non_transferable: _, ...withoutLiveFlag } = rec;
    expect(solanaTokenRisk(withoutLiveFlag)).toMatchObject({ score: 50, verdict: "high_risk" });
  });

  it("the /v1/token-safety product flags the replayed token as non-transferable, likely_scam", async () => {
    const out = await viaReplay(() => run<Out>(tokenSafety, { chain: "solana", address: MINT }));
    expect(out).toMatchObject({ found: true, risk_score: 100, verdict: "likely_scam" });
    expect(out.flags.non_transferable).toBe(true);
    expect(out.unknown_fields).not.toContain("non_transferable");
    expect(out.reasons.join(" ")).toMatch(/non-transferable/);
  });

  it("the simulator serves the live spellings, and a simulated soul-bound mint is likely_scam", async () => {
    let soulBound: string | null = null;
    for (let i = 0; i < 200 && !soulBound; i++) if (solanaProfile(sim().world, solMint(15, i)) === "soul_bound") soulBound = solMint(15, i);
    expect(soulBound).not.toBeNull();
    const body = await rawGet<{ result: Record<string, Record<string, unknown>> }>(sim(), `/goplus/api/v1/solana/token_security?contract_addresses=${soulBound}`);
    const rec = body.result[soulBound!]!;
    expect(rec.non_transferable).toBe("1");
    expect(rec).not.toHaveProperty("none_transferable");
    const holders = rec.holders as Array<Record<string, unknown>>;
    expect(holders.length).toBeGreaterThan(0);
    for (const h of holders) {
      expect(typeof h.account).toBe("string");
      expect(h).not.toHaveProperty("token_account");
    }
    const out = await run<Out>(tokenSafety, { chain: "solana", address: soulBound! });
    expect(out.flags.non_transferable).toBe(true);
    expect(out.verdict).toBe("likely_scam");
    expect(out.risk_score).toBeGreaterThanOrEqual(80);
  });
});
