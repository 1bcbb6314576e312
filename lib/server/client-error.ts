/**
 * Answers for requests Node's HTTP parser rejects before any route sees them (headers
 * over `maxHeaderSize`, a malformed request line, a request not received in time). Node's
 * own answer is a bare status line with no body; this one has the service's JSON error
 * shape, so a client gets a machine-readable code and a sentence like on any other error.
 *
 * Both servers this repository ships use it (`hardenServer`): the custom server
 * (lib/server/main.ts, `npm start`) and the standalone/container entry
 * (lib/server/standalone.ts). Servers Next creates itself (plain `next start`, the
 * standalone server.js) get the same answers from the process-wide hook installed by
 * instrumentation.ts (lib/server/vary-accept.ts).
 *
 * Imports stay minimal (no lib/errors index): the standalone entry bundles this file.
 */
import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "@/lib/errors/api-error";
import type { ErrorCode } from "@/lib/errors/codes";

const REASONS: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** The error a parser failure stands for (Node's mapping: overflow 431, timeout 408, otherwise 400). */
export function clientErrorOf(err: NodeJS.ErrnoException, maxHeaderSize: number): ApiError {
  const [code, message]: [ErrorCode, string] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ["headers_too_large", `The request headers exceed ${maxHeaderSize} bytes; send fewer or shorter headers.`]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ["request_timeout", "The request was not received in time."]
        : ["bad_request", "The request is not valid HTTP/1.1."];
  return new ApiError(code, message);
}

/** A 'clientError' listener for an http.Server whose header limit is `maxHeaderSize` bytes. */
export function answerClientError(maxHeaderSize: number): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // The peer is gone (or half of a response went out already): nothing can be answered.
    if (err.code === "ECONNRESET" || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const e = clientErrorOf(err, maxHeaderSize);
    const body = JSON.stringify(e.httpBody());
    socket.end(
      `HTTP/1.1 ${e.status} ${REASONS[e.status] ?? "Bad Request"}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        "Cache-Control: no-store\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  };
}

/** How long a client may take to send its headers and its whole request; keep-alive outlives common proxies' 60 s. */
export const SERVER_TIMEOUTS = { keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 60_000 } as const;

/** Gives `server` the JSON answers above (header limit `maxHeaderSize`) and the service's timeouts. */
export function hardenServer(server: Server, maxHeaderSize: number): void {
  server.on("clientError", answerClientError(maxHeaderSize));
  Object.assign(server, SERVER_TIMEOUTS);
}
