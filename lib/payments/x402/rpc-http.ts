/**
 * One JSON-RPC POST to the settlement node over Node's own HTTP client, on connections
 * kept alive per origin. The settlement path makes a few such requests per paid call
 * (simulation, broadcast, receipts); `fetch` spends about as much CPU setting up each
 * request (Request, Headers, AbortSignal objects) as the node spends answering a local
 * one, and on the calling thread, which a paid call shares with its own work.
 *
 * Errors keep the names the rest of the payment code reads (evm-local.ts `noAnswer`):
 * `TimeoutError` when no answer came in time, `HttpRequestError` for a connection that
 * failed or an answer that is not JSON; a refused connection (nothing was sent) carries
 * `code: "ECONNREFUSED"` on the error or its cause.
 */
import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

function named(name: string, message: string, cause?: unknown): Error {
  const e = new Error(message, { cause });
  e.name = name;
  return e;
}

/**
 * POSTs `body` (JSON) to `url` and resolves to the parsed JSON answer, whatever the HTTP
 * status (nodes answer errors as JSON-RPC). A kept-alive connection the node closed just
 * as the request went out (reset before any answer) is retried once on a new connection,
 * as Node's documentation advises: the node did not read the request. JSON-RPC requests
 * sent here are safe to repeat anyway (a transaction sent twice is "already known").
 */
export async function postJson(url: string, body: unknown, timeoutMs: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  const started = performance.now();
  try {
    return await once(target, payload, timeoutMs);
  } catch (err) {
    if (!(err as { staleSocket?: boolean }).staleSocket) throw err;
    return once(target, payload, Math.max(1, timeoutMs - (performance.now() - started)));
  }
}

function once(target: URL, payload: Buffer, timeoutMs: number): Promise<unknown> {
  const secure = target.protocol === "https:";
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value);
    };
    const req = (secure ? https : http).request(
      target,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { "content-type": "application/json", "content-length": payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => finish(named("HttpRequestError", `the RPC node's answer broke off (${err.message})`, err)));
        res.on("end", () => {
          try {
            finish(null, JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch (err) {
            finish(named("HttpRequestError", `the RPC node answered HTTP ${res.statusCode} with something other than JSON`, err));
          }
        });
      },
    );
    const timer = setTimeout(() => {
      finish(named("TimeoutError", `the RPC node did not answer within ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    req.on("error", (err: Error & { code?: string }) => {
      const e = named("HttpRequestError", `the RPC node did not answer (${err.message})`, err);
      if (err.code === "ECONNREFUSED") Object.assign(e, { code: err.code });
      if (req.reusedSocket && err.code === "ECONNRESET") Object.assign(e, { staleSocket: true });
      finish(e);
    });
    req.end(payload);
  });
}
