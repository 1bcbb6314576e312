/**
 * The settlement node's WebSocket client (lib/payments/x402/rpc-ws.ts) against a real
 * Hardhat node and, for the failures a real node does not produce on demand, a loopback
 * WebSocket server that answers as told: answers reach the caller that asked, with its
 * own ids, however many callers share the socket; batches come back whole; a node that
 * refuses the connection is "nothing sent" (rpcCalls: NotSentError), one that closes it
 * before answering or does not answer in time is "no answer" (the outcome of a send is
 * then unknown); the next request opens a new connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import type { AddressInfo } from "node:net";
import { keccak256, toHex } from "viem";
import { WsRpc, isWsUrl } from "@/lib/payments/x402/rpc-ws";
import { rpcCalls } from "@/lib/payments/x402/sender";
import { NotSentError, noAnswer } from "@/lib/payments/x402/evm-local";
import { freePort } from "../helpers/service";
import { startChain, type Chain } from "../helpers/chain";

type Msg = { id: unknown; method: string; params: unknown[] };

/** A WebSocket "node" whose answer to each message `answer` decides (null: stay silent, "close": drop the connection). */
async function fakeNode(answer: (m: Msg | Msg[], socket: ServerSocket) => unknown) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((r) => server.once("listening", r));
  let connections = 0;
  server.on("connection", (socket) => {
    connections++;
    socket.on("message", (data) => {
      const out = answer(JSON.parse(String(data)), socket);
      if (out === "close") socket.terminate();
      else if (out !== null) socket.send(JSON.stringify(out));
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      for (const c of server.clients) c.terminate();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let chain: Chain;
beforeAll(async () => {
  chain = await startChain();
}, 120_000);
afterAll(async () => chain?.stop());

describe("JSON-RPC over the node's WebSocket", () => {
  it("tells WebSocket endpoints from HTTP ones", () => {
    expect(isWsUrl("ws://127.0.0.1:8545")).toBe(true);
    expect(isWsUrl("WSS://base-mainnet.example/v2/key")).toBe(true);
    expect(isWsUrl("https://mainnet.base.org")).toBe(false);
  });

  it("a real node: single calls and batches, 50 concurrent callers on one socket each get their own answers with their own ids", async () => {
    const url = chain.rpcUrl.replace(/^http/, "ws");
    const rpc = new WsRpc(url);
    try {
      expect(await rpc.request({ jsonrpc: "2.0", id: 7, method: "eth_chainId", params: [] }, 5000)).toEqual({ jsonrpc: "2.0", id: 7, result: "0x2105" });
      const batch = (await rpc.request(
        [
          { jsonrpc: "2.0", id: 0, method: "eth_chainId", params: [] },
          { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [chain.accounts[5]!.address, "latest"] },
          { jsonrpc: "2.0", id: 2, method: "eth_nope", params: [] },
        ],
        5000,
      )) as Array<{ id: number; result?: string; error?: { message: string } }>;
      const byId = new Map(batch.map((a) => [a.id, a]));
      expect(batch).toHaveLength(3);
      expect(byId.get(0)!.result).toBe("0x2105");
      expect(BigInt(byId.get(1)!.result!)).toBe(await chain.publicClient.getBalance({ address: chain.accounts[5]!.address }));
      expect(byId.get(2)!.error!.message).toMatch(/not supported/);
      // Each caller asks for the hash of different data under the same id: answers must not cross.
      const data = Array.from({ length: 50 }, (_, i) => toHex(`caller ${i}`));
      const got = await Promise.all(data.map((d) => rpc.request({ jsonrpc: "2.0", id: 1, method: "web3_sha3", params: [d] }, 5000)));
      expect(got.map((g) => (g as { id: number }).id)).toEqual(Array(50).fill(1));
      expect(got.map((g) => (g as { result: string }).result)).toEqual(data.map((d) => keccak256(d)));
      // rpcCalls picks this transport for a ws:// URL.
      const [blockNumber] = (await rpcCalls(url, 5000, [["eth_blockNumber", []]]))!;
      expect(Number(blockNumber!.result)).toBe(Number(await chain.publicClient.getBlockNumber()));
    } finally {
      rpc.close();
    }
  });

  it("a refused connection is 'nothing sent'; a connection closed before the answer, or no answer in time, is 'no answer'; the next request connects again", async () => {
    // Nothing listens on this port.
    const refusedUrl = `ws://127.0.0.1:${await freePort()}`;
    const refused = await rpcCalls(refusedUrl, 2000, [["eth_sendRawTransaction", ["0x00"]]]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NotSentError);
    expect((refused as NotSentError).reason).toBe("rpc_unreachable");

    let mode: "answer" | "close" | "silent" = "close";
    const node = await fakeNode((m) => {
      if (Array.isArray(m)) return m.map((x) => ({ jsonrpc: "2.0", id: x.id, result: x.method }));
      if (mode === "close") return "close";
      if (mode === "silent") return null;
      return { jsonrpc: "2.0", id: m.id, result: m.method };
    });
    const rpc = new WsRpc(node.url);
    try {
      const closed = await rpc.request({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: ["0x00"] }, 2000).catch((e: unknown) => e);
      expect((closed as Error).name).toBe("HttpRequestError");
      expect(noAnswer(closed)).toBe(true);

      mode = "silent";
      const t0 = performance.now();
      const silent = await rpc.request({ jsonrpc: "2.0", id: 2, method: "eth_call", params: [] }, 300).catch((e: unknown) => e);
      expect((silent as Error).name).toBe("TimeoutError");
      expect(performance.now() - t0).toBeLessThan(2000);

      mode = "answer";
      expect(await rpc.request({ jsonrpc: "2.0", id: 3, method: "eth_blockNumber", params: [] }, 2000)).toEqual({ jsonrpc: "2.0", id: 3, result: "eth_blockNumber" });
      expect(await rpc.request([{ jsonrpc: "2.0", id: 0, method: "a", params: [] }, { jsonrpc: "2.0", id: 1, method: "b", params: [] }], 2000)).toEqual([
        { jsonrpc: "2.0", id: 0, result: "a" },
        { jsonrpc: "2.0", id: 1, result: "b" },
      ]);
      // The first connection was dropped by the node; the later requests opened a second one.
      expect(node.connections()).toBe(2);
    } finally {
      rpc.close();
      await node.close();
    }
  });

  it("a batch the node refuses as a whole (one error object without an id) reaches the batch's caller, so rpcCalls sends the calls one by one", async () => {
    const node = await fakeNode((m) => (Array.isArray(m) ? { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batches are not allowed" } } : { jsonrpc: "2.0", id: m.id, result: "0x1" }));
    const rpc = new WsRpc(node.url);
    try {
      expect(await rpc.request([{ jsonrpc: "2.0", id: 0, method: "eth_blockNumber", params: [] }], 2000)).toMatchObject({ id: null, error: { code: -32600 } });
      expect(await rpcCalls(node.url, 2000, [["eth_blockNumber", []], ["eth_chainId", []]])).toBeNull();
    } finally {
      rpc.close();
      await node.close();
    }
  });
});
