/**
 * An HTTP proxy in front of a service that loses responses the way a network does: with
 * `dropAfterStatus` set, it forwards the request, reads the service's whole answer, sends
 * the client only the status line and cuts the connection. What it dropped is kept
 * (`dropped`), so a test can compare it with what the same request gets later.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

/** The body as the client would read it (what fetch decodes). */
function decoded(body: Buffer, encoding: string | undefined): string {
  if (encoding === "gzip") return gunzipSync(body).toString("utf8");
  if (encoding === "br") return brotliDecompressSync(body).toString("utf8");
  if (encoding === "deflate") return inflateSync(body).toString("utf8");
  return body.toString("utf8");
}

export interface Dropped {
  /** The request's headers (which payment it carried). */
  request: http.IncomingHttpHeaders;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export async function dropProxy(target: string) {
  const state = { dropAfterStatus: false, dropped: [] as Dropped[] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", target);
      const up = http.request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (ures) => {
        const body: Buffer[] = [];
        ures.on("data", (c: Buffer) => body.push(c));
        ures.on("end", () => {
          const text = Buffer.concat(body);
          if (state.dropAfterStatus) {
            state.dropped.push({ request: req.headers, status: ures.statusCode ?? 0, headers: ures.headers, body: decoded(text, ures.headers["content-encoding"]) });
            // The status line, then nothing: the connection is gone.
            res.socket?.write(`HTTP/1.1 ${ures.statusCode} ${ures.statusMessage ?? ""}\r\n`);
            res.socket?.destroy();
            return;
          }
          res.writeHead(ures.statusCode ?? 502, ures.headers);
          res.end(text);
        });
      });
      up.on("error", () => res.socket?.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
