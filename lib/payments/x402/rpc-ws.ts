/**
 * JSON-RPC to the settlement node over one WebSocket per URL, for a SETTLEMENT_RPC_URL
 * given as ws:// or wss://. A request over an open WebSocket carries no HTTP request and
 * response around it: on a local Hardhat node an eth_call is answered in about half the
 * time it takes over HTTP (0.77 vs 1.51 ms), and a paid call asks the node two to four
 * things on its critical path. Node providers offer both endpoints.
 *
 * The errors are those of the HTTP client (./rpc-http.ts), so the payment code reads them
 * alike (evm-local.ts `noAnswer`): `TimeoutError` when no answer came in time,
 * `HttpRequestError` when the connection could not be opened or closed before the
 * answer (the request may have arrived: a transaction's outcome is then unknown), and
 * `code: "ECONNREFUSED"` when the connection was refused (nothing was sent).
 *
 * Request ids are this client's own (several callers share the socket); each caller gets
 * its answers back with the ids it sent. The connection opens on the first request, is
 * pinged every 15 s so a dead one is noticed, and opens again on the next request after
 * it closed.
 */
import WebSocket from "ws";

type Json = Record<string, unknown>;

interface Pending {
  /** Our ids → the caller's, in the caller's order. */
  ids: Map<number, unknown>;
  batch: boolean;
  resolve(v: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** How often an idle connection is pinged (a node or proxy that went away is noticed by the missing pong). */
const PING_MS = 15_000;

function named(name: string, message: string, cause?: unknown): Error {
  const e = new Error(message, { cause });
  e.name = name;
  return e;
}

export class WsRpc {
  private socket: WebSocket | null = null;
  private opening: Promise<WebSocket> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ping: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(readonly url: string) {}

  /**
   * Sends one JSON-RPC request (an object) or a batch (an array) and resolves to the
   * node's answer as it would come over HTTP: the answer object, or the batch's array.
   * Over an open connection the request is written before this returns (not a microtask
   * later): a paid call's simulation is then on the wire before the call goes on to
   * prepare its lock and its broadcast.
   */
  request(body: unknown, timeoutMs: number): Promise<unknown> {
    const socket = this.socket;
    if (!this.closed && socket?.readyState === WebSocket.OPEN) return this.send(socket, body, timeoutMs);
    const started = performance.now();
    return this.open(timeoutMs).then((opened) => this.send(opened, body, Math.max(1, timeoutMs - (performance.now() - started))));
  }

  private send(socket: WebSocket, body: unknown, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const batch = Array.isArray(body);
      const items = (batch ? body : [body]) as Json[];
      const ids = new Map<number, unknown>();
      const sent = items.map((item) => {
        const id = this.nextId++;
        ids.set(id, item.id);
        return { ...item, id };
      });
      const p: Pending = {
        ids,
        batch,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.forget(p);
          reject(named("TimeoutError", `the RPC node did not answer within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      for (const id of ids.keys()) this.pending.set(id, p);
      socket.send(JSON.stringify(batch ? sent : sent[0]), (err) => {
        if (!err) return;
        this.forget(p);
        reject(named("HttpRequestError", `the RPC node's connection failed while sending (${err.message})`, err));
      });
    });
  }

  /** Closes the connection for good (tests, shutdown); requests after it fail. */
  close(): void {
    this.closed = true;
    this.socket?.terminate();
  }

  private forget(p: Pending): void {
    clearTimeout(p.timer);
    for (const id of p.ids.keys()) this.pending.delete(id);
  }

  private open(timeoutMs: number): Promise<WebSocket> {
    if (this.closed) return Promise.reject(named("HttpRequestError", "the RPC connection was closed"));
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    const opening = new Promise<WebSocket>((resolve, reject) => {
      // No UTF-8 check of each text frame by ws (0.04 ms of CPU per paid call, profiled):
      // a JSON-RPC answer is ASCII, and one with broken bytes either fails JSON.parse (the
      // request then ends at its timeout, like one the node never answered) or carries a
      // replacement character where a hex value or message was, which the caller's checks
      // refuse. With the check, ws would close the connection instead, failing every request
      // on it.
      const ws = new WebSocket(this.url, { perMessageDeflate: false, handshakeTimeout: timeoutMs, skipUTF8Validation: true });
      const failed = (err: Error & { code?: string }) => {
        const e = named("HttpRequestError", `the RPC node did not answer (${err.message})`, err);
        if (err.code === "ECONNREFUSED") Object.assign(e, { code: err.code });
        reject(e);
      };
      ws.once("error", failed);
      ws.once("open", () => {
        ws.off("error", failed);
        // Small requests go out at once (no Nagle delay waiting for more bytes).
        (ws as unknown as { _socket?: { setNoDelay?(v: boolean): void } })._socket?.setNoDelay?.(true);
        this.attach(ws);
        resolve(ws);
      });
    });
    this.opening = opening;
    const clear = () => {
      if (this.opening === opening) this.opening = null;
    };
    opening.then(clear, clear);
    return opening;
  }

  private attach(ws: WebSocket): void {
    this.socket = ws;
    let alive = true;
    ws.on("pong", () => (alive = true));
    this.ping = setInterval(() => {
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, PING_MS);
    this.ping.unref();
    ws.on("message", (data) => this.receive(String(data)));
    ws.on("error", () => undefined); // "close" follows and fails what is pending
    ws.on("close", () => {
      if (this.socket === ws) this.socket = null;
      if (this.ping) clearInterval(this.ping);
      this.ping = null;
      const failing = new Set(this.pending.values());
      this.pending.clear();
      for (const p of failing) {
        clearTimeout(p.timer);
        p.reject(named("HttpRequestError", "the RPC node's connection closed before it answered"));
      }
    });
  }

  private receive(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (Array.isArray(msg)) {
      const first = msg.find((m: Json) => typeof m?.id === "number") as Json | undefined;
      const p = first ? this.pending.get(first.id as number) : undefined;
      if (!p) return;
      this.forget(p);
      p.resolve(msg.map((m: Json) => ({ ...m, id: p.ids.get(m?.id as number) ?? null })));
      return;
    }
    const m = msg as Json;
    let p = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
    // A batch the node refused as a whole comes back as one error without an id: it goes to
    // the oldest batch waiting (rpcCalls then sends its calls one by one).
    if (!p && m.id == null) p = [...this.pending.values()].find((x) => x.batch);
    if (!p) return;
    this.forget(p);
    p.resolve(p.batch ? m : { ...m, id: p.ids.values().next().value });
  }
}

const connections = new Map<string, WsRpc>();

/** The connection to `url` this process shares. */
export function wsRpc(url: string): WsRpc {
  let c = connections.get(url);
  if (!c) connections.set(url, (c = new WsRpc(url)));
  return c;
}

/** Whether `url` is a WebSocket endpoint. */
export const isWsUrl = (url: string) => /^wss?:\/\//i.test(url);
