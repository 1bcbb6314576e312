/**
 * A paid call after the web pages were rendered in the same process: the answer is what
 * the settlement's state says, whichever module copy the pages loaded.
 *
 * Next runs pages and routes on two Turbopack runtimes, each with its own module cache. A
 * page that built the payment-method registry with its copy once made a paid call throw
 * that copy's errors; the route's copy did not recognize them, and a settlement that
 * timed out while its transfer was on its way was answered 503 `service_unavailable`
 * "nothing was charged" (charged, told otherwise, no data). Here every page is rendered
 * first, then a payment is made while the chain does not mine: 503 `settlement_pending`
 * with the payment id, and once blocks come again the same payment is served once.
 * The built page chunks are also checked: none of them holds a payment module.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { startPaidFixture, type PaidFixture } from "../helpers/paid-fixture";
import { decodeB64Json, requirementFrom, signAuthorization, v2Header } from "../helpers/payments";
import { isPaymentCore } from "../helpers/page-graph";

const ROOT = path.resolve(__dirname, "../..");
const PAGES = ["/", "/catalog", "/wallet", "/free-key", "/usage", "/market", "/pay/v1/fng", "/pay/v1/bundle"];

describe("pages first, then a paid call", () => {
  let pf: PaidFixture;
  beforeAll(async () => {
    pf = await startPaidFixture({ PAYMENT_TIMEOUT_MS: "3000" });
  }, 180_000);
  afterAll(async () => {
    await pf?.fx.close();
    await pf?.chain.stop();
  });

  it("the built page chunks hold no payment module (one copy of them per process)", () => {
    const dir = path.join(ROOT, ".next/server/chunks/ssr");
    const sources = new Set<string>();
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".js.map"))) {
      const map = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { sources?: string[]; sections?: Array<{ map: { sources: string[] } }> };
      for (const s of [...(map.sources ?? []), ...(map.sections ?? []).flatMap((x) => x.map.sources)]) sources.add(path.relative(ROOT, path.resolve(dir, s)));
    }
    expect([...sources].filter((s) => s.startsWith("lib/")).length).toBeGreaterThan(10);
    expect([...sources].filter(isPaymentCore)).toEqual([]);
  });

  it("a settlement that waits for a stalled chain answers settlement_pending, and the same payment is then served once", async () => {
    const { fx, chain, payer } = pf;
    for (const p of PAGES) {
      const res = await fx.get(p, { headers: { Accept: "text/html" } });
      expect(res.status, p).toBe(200);
      await res.arrayBuffer();
    }
    const req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
    const header = v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }));
    const before = await chain.usdcBalance(payer.address);
    await chain.setIntervalMining(0);
    await chain.rpc("evm_setAutomine", [false]);
    let first: Response;
    try {
      first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    const body = await first.json();
    expect(first.status, JSON.stringify(body)).toBe(503);
    expect(body.error.code).toBe("settlement_pending");
    expect(body.error.payment_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.error.message).not.toMatch(/nothing was charged/i);
    expect(first.headers.get("retry-after")).toBeTruthy();
    expect(fx.svc.logs()).not.toContain('"event":"unhandled_error"');

    await chain.rpc("evm_mine", []);
    const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect((await again.json()).index).toBeTypeOf("number");
    expect(decodeB64Json<{ success: boolean }>(again.headers.get("payment-response")).success).toBe(true);
    expect(await chain.usdcBalance(payer.address)).toBe(before - BigInt(req.amount));
  });
});
