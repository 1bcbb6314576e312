/**
 * Settlement through nodes that have EIP-7966's eth_sendRawTransactionSync, which read its
 * optional wait in different ways (lib/payments/x402/sender.ts, SYNC_FORMS):
 * - a JSON number of milliseconds, refused over 6000 as Base's nodes do;
 * - a hex quantity only (go-ethereum's hexutil.Uint64, Arbitrum);
 * - no wait at all (anvil);
 * each emulated by the JSON-RPC proxy in front of the Hardhat chain (tests/helpers/rpc-proxy.ts),
 * and the last on a real anvil node too. Until 2026-11-27 the service sent a 14 000 ms wait
 * as a number: every one of these nodes refused it as invalid params, and every confirmed
 * payment was answered 503 settlement_pending, none ever settled. Now each payment settles
 * in one transaction sent with the method, the forms a node refuses are tried once per
 * process, and nothing is sent twice. Once a node has read a form, invalid params in it
 * refuse that transaction (one the node cannot decode) instead of dropping the form. A
 * send whose answer is lost (mined or not) is 503 settlement_pending, and the payment
 * presented again is served and charged once, by one transaction of the key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, requirementFrom, signAuthorization, v2Header } from "../helpers/payments";
import { rpcProxy, type SyncDialect } from "../helpers/rpc-proxy";

const PRICE = 10_000n; // /v1/fng

/**
 * Three payments for /v1/fng through a service whose node is `rpcUrl`, one after the
 * other: each is served, moves the price once, and is settled by a transaction of its own
 * that succeeded on chain.
 */
async function payThrice(chain: Chain, rpcUrl: string, env: Record<string, string> = {}): Promise<Hex[]> {
  const payer = chain.accounts[1]!;
  const payTo = chain.accounts[2]!;
  const fx: Fixture = await startFixture({ env: { PAY_TO_ADDRESS: payTo.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: rpcUrl, ...env } });
  try {
    const key = chain.accounts[0]!.address;
    const sentBefore = await chain.publicClient.getTransactionCount({ address: key });
    const before = await chain.usdcBalance(payer.address);
    const txs: Hex[] = [];
    for (let i = 0; i < 3; i++) {
      const req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
      const header = v2Header(req, await signAuthorization(payer, { to: req.payTo as Hex, value: BigInt(req.amount) }));
      const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.json()).index).toBeTypeOf("number");
      const receipt = decodeB64Json<{ success: boolean; transaction: Hex }>(res.headers.get("payment-response"));
      expect(receipt.success).toBe(true);
      expect((await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status).toBe("success");
      txs.push(receipt.transaction);
    }
    expect(new Set(txs).size).toBe(3);
    expect(await chain.usdcBalance(payer.address)).toBe(before - 3n * PRICE);
    // One transaction of the key per payment: nothing sent twice, no gap filled.
    expect(await chain.publicClient.getTransactionCount({ address: key })).toBe(sentBefore + 3);
    return txs;
  } finally {
    await fx.close();
  }
}

/** The chain of one describe block, started before its tests (its payer holding 1 USDC) and stopped after. */
function withChain(node: "hardhat" | "anvil"): () => Chain {
  let chain: Chain | undefined;
  beforeAll(async () => {
    chain = await startChain({ node });
    await chain.mintUsdc(chain.accounts[1]!.address, 1_000_000n);
  }, 120_000);
  afterAll(async () => chain?.stop());
  return () => chain!;
}

describe("eth_sendRawTransactionSync, as each kind of node reads its wait (proxy in front of Hardhat)", () => {
  const chainOf = withChain("hardhat");

  // The forms are tried in this order: number, hex, none.
  const cases: Array<{ dialect: SyncDialect; refused: number; what: string }> = [
    { dialect: "number", refused: 0, what: "a number of milliseconds up to 6000 (Base)" },
    { dialect: "hex", refused: 1, what: "a hex quantity only (go-ethereum, Arbitrum)" },
    { dialect: "bare", refused: 2, what: "no wait at all (anvil)" },
  ];
  for (const c of cases) {
    it(`a node that reads ${c.what}: every payment settles with the method, the refused forms asked once`, async () => {
      const chain = chainOf();
      const proxy = await rpcProxy(chain.rpcUrl);
      proxy.state.syncDialect = c.dialect;
      try {
        await payThrice(chain, proxy.url);
        expect(proxy.state.syncSends).toBe(3);
        // Only the first payment's send met the forms this node refuses; none of them sent anything.
        expect(proxy.state.syncRefusals).toBe(c.refused);
        expect(proxy.state.sends).toBe(3);
      } finally {
        await proxy.close();
      }
    }, 120_000);
  }

  it("an RPC timeout (PAYMENT_TIMEOUT_MS) under 1000 ms leaves no room for the node's own wait: the method is not used, every payment settles by a plain send", async () => {
    const chain = chainOf();
    const proxy = await rpcProxy(chain.rpcUrl);
    proxy.state.syncDialect = "number";
    try {
      await payThrice(chain, proxy.url, { PAYMENT_TIMEOUT_MS: "900" });
      expect(proxy.requests.some((b) => b.includes('"eth_sendRawTransactionSync"'))).toBe(false);
      expect(proxy.state.sends).toBe(3);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

describe("eth_sendRawTransactionSync: invalid params once the node has read a form", () => {
  const chainOf = withChain("hardhat");

  it("refuse that transaction (503, nothing moved); the method, in the form read, carries the next payment", async () => {
    const chain = chainOf();
    const proxy = await rpcProxy(chain.rpcUrl);
    proxy.state.syncDialect = "number";
    const payer = chain.accounts[1]!;
    const fx = await startFixture({ env: { PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: proxy.url } });
    try {
      const pay = async () => {
        const req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
        return fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, await signAuthorization(payer, { to: req.payTo as Hex, value: BigInt(req.amount) })) } });
      };
      expect((await pay()).status).toBe(200);
      expect(proxy.state.syncSends).toBe(1);
      const before = await chain.usdcBalance(payer.address);
      // The node cannot decode the next transaction (anvil answers that as invalid params).
      proxy.state.refuseNextSyncTx = true;
      const refused = await pay();
      expect(refused.status, await refused.clone().text()).toBe(503);
      expect((await refused.json()).error).toMatchObject({ code: "settlement_pending", fault: "service" });
      expect(await chain.usdcBalance(payer.address)).toBe(before);
      // It was not taken for a form the node does not read: no other form was tried, and
      // the next payment goes out with the method, its wait a number, as before.
      expect(proxy.state.invalidTxRefusals).toBeGreaterThan(0);
      expect(proxy.state.syncRefusals).toBe(0);
      const ok = await pay();
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(proxy.state.syncSends).toBe(2);
      const lastSync = proxy.requests.map((b) => JSON.parse(b) as { method?: string; params?: unknown[] }).filter((m) => m.method === "eth_sendRawTransactionSync").at(-1)!;
      expect(typeof lastSync.params![1]).toBe("number");
      expect(await chain.usdcBalance(payer.address)).toBe(before - PRICE);
    } finally {
      await fx.close();
      await proxy.close();
    }
  }, 120_000);
});

describe("eth_sendRawTransactionSync: the node took the transaction and its answer was lost", () => {
  const chainOf = withChain("hardhat");

  // "hang-after-send": forwarded and mined, the answer never comes back; "drop-send": never
  // forwarded, never answered. The service cannot tell the two apart: each is 503
  // settlement_pending, and the payment presented again is served and charged once.
  const cases = [
    { fault: "hang-after-send" as const, mined: true, what: "after the transfer was mined" },
    { fault: "drop-send" as const, mined: false, what: "before the node saw it" },
  ];
  for (const c of cases) {
    it(`lost ${c.what}: 503 settlement_pending, then the same payment is served once, in one transaction`, async () => {
      const chain = chainOf();
      const proxy = await rpcProxy(chain.rpcUrl);
      proxy.state.syncDialect = "number";
      const payer = chain.accounts[1]!;
      const key = chain.accounts[0]!.address;
      const fx = await startFixture({
        env: { PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: proxy.url, PAYMENT_TIMEOUT_MS: "1500" },
      });
      try {
        const header = async () => {
          const req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
          return v2Header(req, await signAuthorization(payer, { to: req.payTo as Hex, value: BigInt(req.amount) }));
        };
        // One payment first, so the node's form is known and the lost one goes out with the method.
        expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": await header() } })).status).toBe(200);
        expect(proxy.state.syncSends).toBe(1);
        const payment = await header();
        const before = await chain.usdcBalance(payer.address);
        const sentBefore = await chain.publicClient.getTransactionCount({ address: key });
        const syncCallsBefore = proxy.requests.filter((b) => b.includes('"eth_sendRawTransactionSync"')).length;
        proxy.state.fault = c.fault;

        const first = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": payment } });
        expect(first.status, await first.clone().text()).toBe(503);
        expect(first.headers.get("retry-after")).toBe("5");
        const err = (await first.json()).error;
        expect(err.code).toBe("settlement_pending");
        expect(err.message).not.toMatch(/nothing was charged/i);
        // It went out with the method, and the node did (or did not) run it.
        expect(proxy.requests.filter((b) => b.includes('"eth_sendRawTransactionSync"')).length).toBe(syncCallsBefore + 1);
        expect(await chain.usdcBalance(payer.address)).toBe(c.mined ? before - PRICE : before);

        const again = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": payment } });
        expect(again.status, await again.clone().text()).toBe(200);
        expect((await again.json()).index).toBeTypeOf("number");
        const receipt = decodeB64Json<{ success: boolean; transaction: Hex }>(again.headers.get("payment-response"));
        expect(receipt.success).toBe(true);
        expect((await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status).toBe("success");
        expect(await chain.usdcBalance(payer.address)).toBe(before - PRICE); // charged once
        // One transaction of the key for this payment: nothing sent twice, no gap filled.
        expect(await chain.publicClient.getTransactionCount({ address: key })).toBe(sentBefore + 1);
        // Presented once more: served from its record, nothing charged or sent again.
        expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": payment } })).status).toBe(200);
        expect(await chain.usdcBalance(payer.address)).toBe(before - PRICE);
        expect(await chain.publicClient.getTransactionCount({ address: key })).toBe(sentBefore + 1);
      } finally {
        await fx.close();
        await proxy.close();
      }
    }, 120_000);
  }
});

describe("eth_sendRawTransactionSync on a real anvil node", () => {
  const chainOf = withChain("anvil");

  it("every payment settles in one transaction the node answered with its receipt", async () => {
    const chain = chainOf();
    const proxy = await rpcProxy(chain.rpcUrl);
    try {
      const txs = await payThrice(chain, proxy.url);
      const syncCalls = proxy.requests.map((b) => JSON.parse(b) as { method?: string; params?: unknown[] }).filter((m) => m.method === "eth_sendRawTransactionSync");
      // The transaction alone, the form anvil reads, carried each of the three.
      const bare = syncCalls.filter((m) => m.params!.length === 1);
      expect(bare).toHaveLength(3);
      // No other send of these transactions: the method's answer was the settlement's.
      expect(proxy.requests.filter((b) => b.includes('"eth_sendRawTransaction"'))).toHaveLength(0);
      expect(txs).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
