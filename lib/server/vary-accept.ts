/**
 * `Vary: Accept` on "/" in every way the app is served. "/" answers the home page or the
 * service-info JSON depending on Accept (the rewrite in next.config.ts), so caches must
 * key on Accept. The JSON route sets it itself; the HTML page cannot: Next sets the Vary
 * header of every App Router page response itself (res.setHeader in its page runtime,
 * after next.config.ts `headers()` and the proxy have run), and only the process that
 * owns the HTTP server can add to it afterwards.
 *
 * So this hooks Node's HTTP server in the process, whoever created it: the custom server
 * (lib/server/main.ts), plain `next start`, the standalone server.js and serve.js. It is
 * installed from instrumentation.ts, which Next runs in every Node.js server process
 * before it serves; the hook is on http.Server's prototype, so it also applies to a
 * server created before it was installed. The request's URL is read on arrival, before
 * Next rewrites it, and the field is added to whatever Vary the response carries when its
 * head is written (set with setHeader or passed to writeHead).
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { answerClientError } from "@/lib/server/client-error";

const INSTALLED = Symbol.for("echo.varyAccept.installed");

/** Whether a request target is the site root, which negotiates on Accept. */
export function negotiatesOnAccept(url: string | undefined): boolean {
  return url === "/" || (url?.startsWith("/?") ?? false);
}

/** `current` with `field` added unless it is there (case-insensitive) or `*`. */
export function withVary(current: string | number | readonly string[] | undefined, field: string): string {
  const text = Array.isArray(current) ? current.join(", ") : current === undefined ? "" : String(current);
  const fields = text.split(",").map((f) => f.trim().toLowerCase()).filter(Boolean);
  if (fields.includes(field.toLowerCase()) || fields.includes("*")) return text;
  return text.trim() ? `${text}, ${field}` : field;
}

/** Makes `res` name `field` in its Vary header when its head is written. */
export function varyOn(res: ServerResponse, field: string): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    // writeHead(status[, message][, headers]): headers passed here win over setHeader's.
    const at = args.findIndex((a, i) => i > 0 && a !== null && typeof a === "object");
    const headers = at > 0 ? args[at] : undefined;
    if (Array.isArray(headers)) {
      // The flat [name, value, name, value...] form.
      const i = headers.findIndex((v, j) => j % 2 === 0 && String(v).toLowerCase() === "vary");
      if (i >= 0) headers[i + 1] = withVary(headers[i + 1], field);
      else this.setHeader("Vary", withVary(this.getHeader("vary"), field));
    } else if (headers) {
      const obj = headers as OutgoingHttpHeaders;
      const key = Object.keys(obj).find((k) => k.toLowerCase() === "vary");
      if (key) obj[key] = withVary(obj[key], field);
      else this.setHeader("Vary", withVary(this.getHeader("vary"), field));
    } else {
      this.setHeader("Vary", withVary(this.getHeader("vary"), field));
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
}

/**
 * Installs the hook once per process (further calls do nothing). It also answers what
 * Node's HTTP parser rejects (oversized headers, a malformed request, a timeout) in the
 * service's JSON error shape on a server that has no `clientError` listener of its own
 * (plain `next start`, Next's standalone server.js); the servers this repository creates
 * listen themselves (lib/server/client-error.ts `hardenServer`).
 */
export function installVaryAccept(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: boolean };
  if (proto[INSTALLED]) return;
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      if (negotiatesOnAccept(req.url)) varyOn(res, "Accept");
    } else if (event === "clientError" && this.listenerCount("clientError") === 0) {
      const [err, socket] = args as [NodeJS.ErrnoException, Duplex];
      answerClientError((this as http.Server & { maxHeaderSize?: number }).maxHeaderSize ?? http.maxHeaderSize)(err, socket);
      return true;
    }
    return (emit as (this: http.Server, ...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof proto.emit;
  proto[INSTALLED] = true;
}
