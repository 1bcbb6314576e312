/**
 * Two instances behind one PostgreSQL and one Redis behave as one: concurrent calls
 * split across them never exceed a free key's quota or a bundle's credits, and the
 * per-IP sample limit is shared.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";
import { startChain, type Chain } from "../helpers/chain";
import { payAndFetch } from "../helpers/payments";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const up = (await hasPostgres()) && (await hasRedis());
if (!up && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

describe.skipIf(!up)("scale-out: two instances, one PostgreSQL, one Redis", () => {
  let sim: Simulator;
  let chain: Chain;
  let a: Service;
  let b: Service;
  beforeAll(async () => {
    sim = await startSimulator();
    chain = await startChain();
    await chain.mintUsdc(chain.accounts[1]!.address, 10_000_000n);
    const env = {
      ...sim.env,
      DATABASE_URL: `${POSTGRES_URL}?schema=scale_${randomBytes(5).toString("hex")}`,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
      PAY_TO_ADDRESS: chain.accounts[2]!.address,
      FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
      SETTLEMENT_RPC_URL: chain.rpcUrl,
      SAMPLE_LIMIT_PER_HOUR: "7",
    };
    a = await startService({ env });
    b = await startService({ env });
  }, 180_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await chain?.stop();
    await sim?.close();
  });

  it("a free key's 50 calls hold across instances: 80 concurrent calls, exactly 50 succeed", async () => {
    const key = (await (await fetch(`${a.url}/v1/free-key`)).json()).api_key;
    expect(key).toMatch(/^echo_fk_/);
    const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/v1/fng`, { headers: { "X-Api-Key": key } }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it("a bundle's 10 credits hold across instances: 100 concurrent calls, exactly 10 succeed", async () => {
    const buy = await payAndFetch(`${a.url}/v1/bundle`, chain.accounts[1]!);
    expect(buy.status).toBe(200);
    const token = (await buy.json()).bundle_token;
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/v1/fng`, { headers: { "X-Bundle-Token": token } }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    const usage = await (await fetch(`${b.url}/v1/usage`, { headers: { "X-Bundle-Token": token } })).json();
    expect(usage).toMatchObject({ credits_total: 10, credits_remaining: 0 });
    expect(usage.recent).toHaveLength(10);
  });

  it("shares the per-IP sample limit through Redis", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await fetch(`${(i % 2 ? a : b).url}/v1/sample`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.slice(7)).toEqual([429, 429, 429]);
  });
});
