/**
 * A loopback JSON-RPC proxy in front of the test chain that can fail like a real node:
 * `fault` applies to the next send only (eth_sendRawTransaction, or eth_sendRawTransactionSync
 * when the node behind has it, as anvil does) ("hang-after-send": forwarded
 * and mined, answer lost; "drop-send": never forwarded, never answered; "down-at-settle":
 * from the settlement's first request to the node on (its gas estimate or its send: the
 * fees and the key's nonces are read ahead, during verification), every connection is cut
 * until `down` is set back to false; "reorder-sends": the next two sends reach the node
 * higher nonce first, the lower one only once the higher one was answered, as when two
 * settlements race on the wire; "hold-send": the next send waits until `release()`, then
 * goes on to the node even if its sender gave up meanwhile, as a request stuck in a
 * network would; `hold()` arms it and resolves with the held send's nonce; `release(then)`
 * lets it go and, once the node answered it, runs `then` before that answer goes back to
 * the sender: the test changes the chain between the transaction's execution and
 * anything the service reads after it), and
 * `refuseBatches` answers batches like providers that do not take them. `sentNonces`
 * lists the nonce of every send in arrival order, `loseNextAnswer` loses the next send's
 * answer after forwarding it (with "hold-send": held, then mined, its answer lost), `gapRefusals` counts the node's "nonce
 * too high" answers, `nonceRefusals` its refusals of a nonce another transaction has
 * (`nonce too low`, `replacement transaction underpriced`, `already known`). The same
 * node, with the same faults, is at `wsUrl` over WebSocket. `requests` holds every message
 * received, in arrival order; `failMethods` makes every message calling one of those methods
 * fail (HTTP 503, counted in `failedRequests`).
 *
 * `syncDialect` makes the proxy a node that has EIP-7966's eth_sendRawTransactionSync
 * (the test chain, Hardhat, does not), reading its optional wait the way one kind of node
 * does: "number" (a JSON number of milliseconds, refused over 6000 as Base's nodes do),
 * "hex" (a hex quantity: go-ethereum's hexutil.Uint64, Arbitrum), "bare" (the transaction
 * alone: anvil). A form the dialect does not read is refused as invalid params (-32602)
 * before anything is sent, and counted in `syncRefusals`; one it reads is sent to the
 * chain and answered with its receipt (the chain automines), counted in `syncSends`.
 * `refuseNextSyncTx` makes the transaction of the next eth_sendRawTransactionSync one the
 * node cannot decode, as anvil answers such a transaction: invalid params, in any form and
 * by eth_sendRawTransaction too, nothing sent (counted in `invalidTxRefusals`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseTransaction, type Hex } from "viem";
import { WebSocketServer } from "ws";
import { NO_SUCH_METHOD } from "@/lib/payments/x402/sender";

export type Fault = "none" | "hang-after-send" | "drop-send" | "down-at-settle" | "reorder-sends" | "hold-send";
export type SyncDialect = "number" | "hex" | "bare";

/** Why `dialect` refuses eth_sendRawTransactionSync's parameters `params` (null: it reads them). */
function syncParamsRefusal(dialect: SyncDialect, params: unknown[]): string | null {
  if (typeof params[0] !== "string") return "invalid type: expected a hex string";
  if (params.length > 2) return `expected at most 2 params but got ${params.length}`;
  if (params.length === 1) return null;
  const wait = params[1];
  if (dialect === "bare") return "expected params sequence with length 1 but got 2";
  if (dialect === "hex") return typeof wait === "string" && /^0x[0-9a-f]+$/i.test(wait) ? null : "invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint64";
  if (typeof wait !== "number" || !Number.isInteger(wait) || wait <= 0) return "invalid type: expected a positive integer";
  return wait > 6000 ? `timeout ${wait} ms exceeds the maximum of 6000 ms` : null;
}

/** The nonce of the transaction a request sends (a single call or a batch). */
function sentNonce(body: string): number {
  const calls = [JSON.parse(body)].flat() as Array<{ method: string; params: unknown[] }>;
  const send = calls.find((c) => c.method === "eth_sendRawTransaction" || c.method === "eth_sendRawTransactionSync")!;
  return parseTransaction(send.params[0] as Hex).nonce ?? 0;
}

export async function rpcProxy(target: string) {
  // Whether the node itself has eth_sendRawTransactionSync (anvil does, Hardhat does not):
  // only then is that method a send the faults apply to. Against Hardhat it is the
  // service's question whether the method exists, answered "not supported", nothing sent.
  const probe = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransactionSync", params: ["0x"] }) });
  const targetSyncs = !NO_SUCH_METHOD.test(await probe.text());
  const sendCall = targetSyncs ? /"eth_sendRawTransaction(Sync)?"/ : /"eth_sendRawTransaction"/;
  const state = { fault: "none" as Fault, sends: 0, sentNonces: [] as number[], refuseBatches: false, refusedBatches: 0, down: false, gapRefusals: 0, nonceRefusals: 0, loseNextAnswer: false, failMethods: [] as string[], failedRequests: 0, syncDialect: null as SyncDialect | null, syncRefusals: 0, syncSends: 0, refuseNextSyncTx: false, invalidTxRefusals: 0 };
  /** The transaction refuseNextSyncTx made undecodable. */
  let invalidRaw: string | null = null;
  /** The send held by "hold-send": its nonce, and how to let it go. */
  let holding: { nonce: Promise<number>; seen: (n: number) => void; go: () => void; turn: Promise<void>; after?: () => Promise<void> } | null = null;
  const armHold = () => {
    let seen = (_n: number) => {};
    let go = () => {};
    const nonce = new Promise<number>((r) => (seen = r));
    const turn = new Promise<void>((r) => (go = r));
    holding = { nonce, seen, go, turn };
  };
  /** Every message the proxy received (HTTP bodies and WebSocket messages), in arrival order. */
  const requests: string[] = [];
  /** The first send of a "reorder-sends" pair, waiting for the second. */
  let held: { nonce: number; go: () => void; answered: Promise<void> } | null = null;
  /** What the proxy does with one JSON-RPC message (an HTTP request's body or a WebSocket message): answer it, cut the connection, or stay silent. */
  const handle = async (body: string): Promise<{ status: number; text: string } | "cut" | "silent"> => {
    requests.push(body);
    if (state.fault === "down-at-settle" && (/"eth_estimateGas"/.test(body) || sendCall.test(body))) {
      state.fault = "none";
      state.down = true;
    }
    if (state.down) return "cut";
    if (state.failMethods.some((m) => body.includes(`"method":"${m}"`))) {
      // A node failing these calls (HTTP 503, nothing executed), answering everything else.
      state.failedRequests++;
      return { status: 503, text: "service unavailable" };
    }
    if (state.refuseNextSyncTx && body.includes('"eth_sendRawTransactionSync"') && !body.trimStart().startsWith("[")) {
      state.refuseNextSyncTx = false;
      invalidRaw = (JSON.parse(body) as { params: string[] }).params[0]!;
    }
    if (invalidRaw && body.includes(invalidRaw)) {
      state.invalidTxRefusals++;
      // The send refused; a receipt asked for in the same batch is not there.
      const answer = (c: { id: unknown; method: string }) =>
        c.method.startsWith("eth_sendRawTransaction") ? { jsonrpc: "2.0", id: c.id, error: { code: -32602, message: "Failed to decode transaction" } } : { jsonrpc: "2.0", id: c.id, result: null };
      const parsed = JSON.parse(body) as { id: unknown; method: string } | Array<{ id: unknown; method: string }>;
      return { status: 200, text: JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)) };
    }
    if (state.syncDialect && body.includes('"eth_sendRawTransactionSync"') && !body.trimStart().startsWith("[")) {
      const call = JSON.parse(body) as { id: unknown; params: unknown[] };
      const refusal = syncParamsRefusal(state.syncDialect, call.params);
      if (refusal) {
        state.syncRefusals++;
        return { status: 200, text: JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -32602, message: refusal } }) };
      }
      // Sent to the chain through this proxy (its faults apply), then its receipt.
      const sent = await handle(JSON.stringify({ jsonrpc: "2.0", id: call.id, method: "eth_sendRawTransaction", params: [call.params[0]] }));
      if (typeof sent === "string") return sent;
      const answer = JSON.parse(sent.text) as { result?: Hex; error?: unknown };
      if (answer.error) return sent;
      state.syncSends++;
      const receipt = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [answer.result] }) });
      const { result } = (await receipt.json()) as { result: unknown };
      return { status: 200, text: JSON.stringify({ jsonrpc: "2.0", id: call.id, ...(result ? { result } : { error: { code: 4, message: "The transaction was added to the mempool but wasn't processed within the timeout", data: answer.result } }) }) };
    }
    if (state.refuseBatches && body.trimStart().startsWith("[")) {
      // Like providers that do not take batches: one error object, nothing executed.
      state.refusedBatches++;
      return { status: 200, text: JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not supported" } }) };
    }
    const isSend = sendCall.test(body);
    let fault = isSend ? state.fault : "none";
    const lose = isSend && state.loseNextAnswer;
    if (lose) state.loseNextAnswer = false;
    let answered = () => {};
    /** The held send's `then` (see release), run once the node answered it. */
    let afterAnswer: (() => Promise<void>) | undefined;
    if (isSend) {
      state.sends++;
      state.sentNonces.push(sentNonce(body));
      if (fault === "reorder-sends" && !held) {
        // The first of the pair waits for the second (at most 10 s).
        let go = () => {};
        const turn = new Promise<void>((r) => (go = r));
        const done = new Promise<void>((r) => (answered = r));
        held = { nonce: sentNonce(body), go, answered: done };
        const timer = setTimeout(go, 10_000);
        await turn;
        clearTimeout(timer);
        held = null;
      } else if (fault === "reorder-sends" && held) {
        const first = held;
        state.fault = "none";
        if (sentNonce(body) < first.nonce) {
          first.go(); // the higher nonce goes first; this one once it was answered
          await first.answered;
        } else {
          const release = first.go;
          answered = release; // the held lower one goes once this one was answered
        }
      } else if (fault === "hold-send") {
        state.fault = "none";
        if (!holding) armHold();
        const h = holding!;
        h.seen(sentNonce(body));
        await h.turn;
        afterAnswer = h.after;
      } else state.fault = "none";
      fault = fault === "reorder-sends" || fault === "hold-send" ? "none" : fault;
    }
    if (fault === "drop-send") return "silent"; // never forwarded, never answered
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    const text = await upstream.text();
    if (/nonce too high/i.test(text)) state.gapRefusals++;
    if (isSend && /nonce too low|underpriced|already known|known transaction/i.test(text)) state.nonceRefusals++;
    answered();
    await afterAnswer?.();
    if (fault === "hang-after-send" || lose) return "silent"; // forwarded (and mined), answer lost
    return { status: upstream.status, text };
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const out = await handle(Buffer.concat(chunks).toString("utf8"));
    if (out === "cut") return void req.socket.destroy();
    if (out === "silent") return;
    res.writeHead(out.status, { "content-type": "application/json" }).end(out.text);
  });
  // The same node over WebSocket (`wsUrl`): each message is handled as an HTTP request's
  // body would be, its answer sent back on the socket; "cut" closes the connection, and
  // while the node is down no connection is accepted.
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (state.down) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", async (data) => {
        const out = await handle(String(data));
        if (out === "cut") ws.terminate();
        else if (out !== "silent") ws.send(out.text);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    wsUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    requests,
    /** Holds the next send (see "hold-send"); resolves with its nonce once it arrived. */
    hold: (): Promise<number> => {
      armHold();
      state.fault = "hold-send";
      return holding!.nonce;
    },
    /** Lets the held send go on to the node; `then` runs once the node answered it, before the answer goes back. */
    release: (then?: () => Promise<void>) => {
      if (holding && then) holding.after = then;
      holding?.go();
      holding = null;
    },
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
    },
  };
}
