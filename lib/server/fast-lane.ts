/**
 * The fast lane of the servers this repository ships (`npm start`, lib/server/main.ts,
 * and the standalone/container serve.js, lib/server/standalone.ts): requests for the
 * agents' surfaces (/v1/*, /mcp, /a2a/* and the JSON discovery documents; the rule is in
 * lib/server/lane-routes.ts) go straight to the handler functions the App Router route
 * files export, without Next's routing and rendering pipeline, which costs a route that
 * does nothing 35-41× a bare Node server (issue 29). Pages, static files and every other
 * path keep going through Next, and so does `next start` and any serverless platform.
 *
 * One copy of every module: the handlers are those of the built route modules Next
 * loads itself (`routeModule.userland` of .next/server/app/<route>/route.js, required
 * through Next's own `requirePage`, so Node's module cache hands both lanes the same
 * module and chunk instances). Nothing under lib/ that holds state is imported here.
 *
 * What Next adds to these answers, the lane adds with the same code:
 * - the request the handler sees: Next's `x-forwarded-*` defaults and URL, its abort
 *   signal (`signalFromNodeResponse`);
 * - the response headers of next.config.ts `headers()` (read from the build's
 *   routes-manifest.json, which is what Next applies), the proxy's (proxy.ts) security
 *   headers from lib/http/security-headers.ts, Next's `Vary` for App Router answers, and
 *   Next's `sendResponse` to write status, headers and body (streaming, HEAD);
 * - Next's response compression (its compiled `compression` middleware, default options);
 * - `after()`: lib/http/after-response.ts hands tasks to this lane's scheduler, which
 *   runs them when the response is finished and logs a failure;
 * - the client-error answers and timeouts are the HTTP server's (lib/server/client-error.ts)
 *   and Vary: Accept is the server hook's (lib/server/vary-accept.ts): both are on the
 *   server whichever lane answers.
 *
 * A request the lane cannot answer exactly as Next would goes to Next: a path with
 * percent-encoding, a trailing slash or dot segments, no usable Host header, a method the route file does not
 * export (Next implements HEAD and OPTIONS itself then), an RSC or server-action request,
 * Next's internal headers. FAST_LANE=0 turns the lane off, and it stays off while
 * OpenTelemetry tracing is configured (Next's request span is part of the traces).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { routeKind, securityHeaders } from "@/lib/http/security-headers";
import { baseUrlInfo, validHost } from "@/lib/http/base-url";
import { runWithLaneAfter, type AfterTask } from "@/lib/http/lane-after";
import { log } from "@/lib/log";
import { laneRoutes, routeMatcher, type LaneMatch } from "@/lib/server/lane-routes";
import { BufferedBodyRequest } from "@/lib/server/buffered-request";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response> | Response;
type Userland = Partial<Record<string, Handler>>;

interface NextInternals {
  requirePage(page: string, distDir: string, isAppPath: boolean): Promise<{ routeModule?: { userland?: Userland } }>;
  getPagePath(page: string, distDir: string, locales: undefined, isAppPath: boolean): string;
  /** Node's module cache, the one Next's requirePage fills. */
  cache: NodeJS.Require["cache"];
  sendResponse(req: unknown, res: unknown, response: Response): Promise<void>;
  NodeNextRequest: new (req: IncomingMessage) => unknown;
  NodeNextResponse: new (res: ServerResponse) => unknown;
  signalFromNodeResponse(res: ServerResponse): AbortSignal;
  compression(): (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  releaseCompressionStream(res: ServerResponse): void;
  varyHeader: string;
}

/** Next's own modules, from the copy of Next the server runs (the one `next()` loaded). */
function nextInternals(from: string): NextInternals {
  const req = createRequire(from);
  const h = req("next/dist/client/components/app-router-headers") as Record<string, string>;
  return {
    requirePage: req("next/dist/server/require").requirePage,
    getPagePath: req("next/dist/server/require").getPagePath,
    cache: req.cache,
    sendResponse: req("next/dist/server/send-response").sendResponse,
    NodeNextRequest: req("next/dist/server/base-http/node").NodeNextRequest,
    NodeNextResponse: req("next/dist/server/base-http/node").NodeNextResponse,
    signalFromNodeResponse: req("next/dist/server/web/spec-extension/adapters/next-request").signalFromNodeResponse,
    compression: (req("next/dist/compiled/compression") as { default?: NextInternals["compression"] }).default ?? req("next/dist/compiled/compression"),
    releaseCompressionStream: req("next/dist/server/lib/release-compression-stream").releaseCompressionStream,
    // The same value as Next's setVaryHeader (base-server.js) for an App Router answer.
    varyHeader: `${h.RSC_HEADER}, ${h.NEXT_ROUTER_STATE_TREE_HEADER}, ${h.NEXT_ROUTER_PREFETCH_HEADER}, ${h.NEXT_ROUTER_SEGMENT_PREFETCH_HEADER}`,
  };
}

interface HeaderRule {
  regex: string;
  headers: Array<{ key: string; value: string }>;
  has?: unknown;
  missing?: unknown;
}

export interface FastLaneOptions {
  /** The build folder (.next or NEXT_DIST_DIR). */
  distDir: string;
  /** Resolve Next from here (defaults to this file). */
  resolveFrom?: string;
}

export interface FastLane {
  /** The lane's route paths ("/v1/[...path]"...), from the build. */
  routes: readonly string[];
  /** Answers `req` if it is the lane's; false (nothing written) when Next must. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Request headers that make Next answer differently from a plain route call. */
const NEXT_ONLY_HEADERS = ["rsc", "next-action", "next-router-state-tree", "next-router-prefetch", "next-router-segment-prefetch", "next-url", "x-middleware-subrequest", "x-nextjs-data"];

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Why the lane is off in this process, or null when it may run. */
export function fastLaneDisabled(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.FAST_LANE === "0") return "FAST_LANE=0";
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return "tracing is configured (Next's request span)";
  return null;
}

/** The lane unless it is turned off in this process (see fastLaneDisabled). */
export function startFastLane(opts: FastLaneOptions): FastLane | null {
  const off = fastLaneDisabled();
  if (off) {
    log.info("fast_lane.off", { reason: off });
    return null;
  }
  return createFastLane(opts);
}

/**
 * `listener` (Next's own request listener, in the standalone server) with the lane in
 * front. The lane is made at the first request, once Next's server module has set up
 * its environment, so nothing of Next is loaded here before Next loads it.
 */
export function withFastLane(listener: (req: IncomingMessage, res: ServerResponse) => void, opts: FastLaneOptions): (req: IncomingMessage, res: ServerResponse) => void {
  let lane: FastLane | null | undefined;
  return (req, res) => {
    if (lane === undefined) lane = startFastLane(opts);
    if (!lane?.serve(req, res)) listener(req, res);
  };
}

/**
 * Builds the lane over the build in `distDir`. Returns null (with a log line) when the
 * build cannot be read the way the lane needs it: then Next answers everything.
 */
export function createFastLane(opts: FastLaneOptions): FastLane | null {
  let next: NextInternals;
  let routes: string[];
  let rules: HeaderRule[];
  try {
    next = nextInternals(opts.resolveFrom ?? import.meta.url);
    const manifest = JSON.parse(readFileSync(join(opts.distDir, "server", "app-paths-manifest.json"), "utf8")) as Record<string, string>;
    routes = laneRoutes(Object.keys(manifest));
    rules = (JSON.parse(readFileSync(join(opts.distDir, "routes-manifest.json"), "utf8")) as { headers?: HeaderRule[] }).headers ?? [];
  } catch (err) {
    log.warn("fast_lane.off", { reason: (err as Error).message });
    return null;
  }
  if (rules.some((r) => r.has || r.missing || r.headers.some((h) => /:\w/.test(h.key) || /(^|[^:]):\w/.test(h.value.replace(/<[^>]*>/g, ""))))) {
    log.warn("fast_lane.off", { reason: "next.config.ts headers() uses conditions or parameters the lane does not apply" });
    return null;
  }
  // The proxy's headers of an answer (pure in the kind and the scheme, so computed once
  // each), in the order Next writes them: they reach it as a Headers object, which
  // iterates by lower-case name.
  const proxyHeaderCache = new Map<string, Array<[string, string]>>();
  const proxyHeaders = (https: boolean): Array<[string, string]> => {
    const key = String(https);
    let list = proxyHeaderCache.get(key);
    if (!list) {
      list = [...new Headers(securityHeaders("api", { https })).entries()];
      proxyHeaderCache.set(key, list);
    }
    return list;
  };
  const headerRules = rules.map((r) => ({ re: new RegExp(r.regex), headers: r.headers }));
  const distDir = opts.distDir;
  const compress = next.compression();
  // One line per request the lane answers at LOG_LEVEL=debug (tests check which lane answered).
  const trace = process.env.LOG_LEVEL === "debug";

  // The lane takes a route once Next has answered it (Next runs its own per-request
  // set-up, instrumentation included, on that first request) and only with the module
  // Next loaded: found in Node's module cache, so the lane's handlers are Next's, one
  // instance of every module. Not found there (Next loaded it some other way): the route
  // stays Next's. null: loading, or no handlers to call.
  const loaded = new Map<string, Userland | null>();
  const load = (route: string): void => {
    if (loaded.has(route)) return;
    loaded.set(route, null);
    const page = `${route}/route`;
    let file: string;
    try {
      file = next.getPagePath(page, distDir, undefined, true);
    } catch (err) {
      log.warn("fast_lane.route_not_loaded", { route, message: (err as Error).message });
      return;
    }
    if (!next.cache[file]) {
      log.warn("fast_lane.route_not_loaded", { route, message: "Next has not loaded this route module through Node's module cache; Next keeps answering it" });
      return;
    }
    next
      .requirePage(page, distDir, true)
      .then((mod) => {
        const userland = mod.routeModule?.userland ?? null;
        if (trace) log.debug("fast_lane.route_loaded", { route, shared: next.cache[file]?.exports === mod, handlers: Object.keys(userland ?? {}).filter((k) => METHODS.has(k)) });
        loaded.set(route, userland);
      })
      .catch((err: unknown) => log.warn("fast_lane.route_not_loaded", { route, message: (err as Error).message }));
  };
  const match = routeMatcher(routes.map((r) => ({ path: r, route: r })));

  /**
   * The request a route sees, whose `signal` is Next's (aborted when the client leaves
   * before the answer is finished), made when a route first reads it. Handing the signal
   * to fetch's Request up front costs every call an abort listener and a
   * FinalizationRegistry entry, which the garbage collector then has to process (scavenge
   * pauses of tens of milliseconds under load, the key call's tail); no route reads it on
   * the hot paths.
   */
  class LaneRequest extends BufferedBodyRequest {
    readonly #res: ServerResponse;
    #signal: AbortSignal | undefined;

    constructor(url: string, init: RequestInit, res: ServerResponse, bytes?: Buffer) {
      super(url, init, bytes);
      this.#res = res;
    }

    override get signal(): AbortSignal {
      return (this.#signal ??= next.signalFromNodeResponse(this.#res));
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse, hit: LaneMatch<string>, pathname: string, handler: Handler): Promise<void> {
    // What Next's base server sets on the request before a route sees it.
    const h = req.headers;
    const encrypted = Boolean((req.socket as { encrypted?: boolean }).encrypted);
    const proto = encrypted || String(h["x-forwarded-proto"] ?? "").includes("https") ? "https" : "http";
    h["x-forwarded-host"] ??= h.host;
    h["x-forwarded-port"] ??= String(req.socket.localPort ?? (encrypted ? 443 : 80));
    h["x-forwarded-proto"] ??= encrypted ? "https" : "http";
    h["x-forwarded-for"] ??= req.socket.remoteAddress;
    const headers = new Headers();
    for (const name in h) {
      const v = h[name];
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const x of v) headers.append(name, x);
      else headers.append(name, v);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    // A small body whose length is declared (a JSON-RPC message) is read here, off the
    // socket, and the route reads it from those bytes (lib/server/buffered-request.ts):
    // no stream adapter over the Node stream, no web stream per call. Anything else
    // streams, so a route still sees (and refuses) an oversized body as it arrives.
    let buffered: Buffer | undefined;
    try {
      buffered = hasBody ? await smallBody(req) : undefined;
    } catch {
      // The client left before the end of its body: there is no one to answer.
      res.destroy();
      return;
    }
    // The request's own origin (its Host is valid, see serve). Next puts its render
    // server's host there instead, which the routes read only when Host is unusable
    // (lib/http/base-url.ts): those requests are Next's.
    const request = new LaneRequest(
      `${proto}://${h.host}${req.url}`,
      {
        method: req.method,
        headers,
        ...(!buffered && hasBody ? { body: req as unknown as ReadableStream, duplex: "half" } : {}),
      } as RequestInit,
      res,
      buffered,
    );

    // The response head Next writes before the route's own headers: next.config.ts
    // headers(), the proxy's security headers, Next's Vary.
    for (const rule of headerRules) if (rule.re.test(pathname)) for (const { key, value } of rule.headers) res.setHeader(key, value);
    for (const [k, v] of proxyHeaders(baseUrlInfo(request).base.startsWith("https:"))) res.setHeader(k, v);
    res.appendHeader("vary", next.varyHeader);

    const tasks: AfterTask[] = [];
    let response: Response;
    try {
      response = await runWithLaneAfter((t) => tasks.push(t), () => handler(request, { params: Promise.resolve(hit.params) }));
      if (!(response instanceof Response)) throw new Error(`the route handler of ${hit.route} returned no Response`);
    } catch (err) {
      // Next's answer to a handler that throws (our routes answer their own errors).
      log.error("fast_lane.handler_failed", { route: hit.route, method: req.method, message: (err as Error).message });
      response = new Response(null, { status: 500 });
    }
    if (tasks.length) res.once("close", () => runAfter(tasks));
    // A body the route did not read to its end (a 413 past the size limit, a refusal
    // before parsing) was handed to fetch's Request, which stopped reading it: the rest is
    // still on the connection, where a kept-alive socket would take it for the next
    // request's bytes and that request would hang. Close this connection after the answer.
    if (hasBody && !req.complete) res.shouldKeepAlive = false;
    // Next's sendResponse writes the head, then each body chunk, then the chunked ending:
    // three system calls for an answer whose body is all there. Held until the next turn
    // of the event loop, they leave in one (the same bytes); a streamed body still flows,
    // each later chunk as it comes.
    // The socket's own cork, which keeps writes in order: the response's (res.cork) put
    // the chunked ending before the body on Node 22.12.
    const socket = res.socket;
    socket?.cork();
    setImmediate(() => socket?.uncork());
    await next.sendResponse(new next.NodeNextRequest(req), new next.NodeNextResponse(res), response);
  }

  return {
    routes,
    serve(req, res) {
      const method = req.method;
      if (!method || !METHODS.has(method)) return false;
      const url = req.url ?? "";
      const q = url.indexOf("?");
      const pathname = q < 0 ? url : url.slice(0, q);
      const hit = match(pathname);
      if (!hit) return false;
      for (const name of NEXT_ONLY_HEADERS) if (req.headers[name] !== undefined) return false;
      if (q >= 0 && /[?&]_rsc=/.test(url)) return false;
      // Without a usable Host the routes fall back to the request URL's host, which is Next's to make.
      if (!validHost(req.headers.host)) return false;
      // The lane's routes are the agents' answers; a page's headers (CSP nonce) are Next's to make.
      if (routeKind(pathname, req.headers.accept) !== "api") return false;
      const userland = loaded.get(hit.route);
      if (userland === undefined) {
        // The route's first request: Next answers it, then the lane takes the module Next loaded.
        res.once("close", () => load(hit.route));
        return false;
      }
      // A method the file does not export: Next implements HEAD and OPTIONS itself, 405 otherwise.
      const handler = userland?.[method];
      if (!handler) return false;
      if (trace) log.debug("fast_lane.served", { route: hit.route, method });
      compress(req, res, () => undefined);
      res.once("close", () => {
        if (!res.writableFinished) next.releaseCompressionStream(res);
      });
      answer(req, res, hit, pathname, handler).catch((err: unknown) => {
        log.error("fast_lane.failed", { route: hit.route, message: (err as Error).message });
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end();
        } else res.destroy();
      });
      return true;
    },
  };
}

/** Bodies up to this many declared bytes are read whole before the handler runs (see answer). */
const SMALL_BODY_BYTES = 64 * 1024;

/** The whole body of `req` when it declares a Content-Length of at most SMALL_BODY_BYTES (and no chunked framing); undefined otherwise. */
function smallBody(req: IncomingMessage): Promise<Buffer> | undefined {
  const declared = req.headers["content-length"];
  if (declared === undefined || req.headers["transfer-encoding"] !== undefined || !/^\d+$/.test(declared)) return undefined;
  const length = Number(declared);
  if (length > SMALL_BODY_BYTES) return undefined;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once("error", reject);
    // A client gone before the end of its body: nothing to answer.
    req.once("close", () => {
      if (!req.complete) reject(new Error("the client closed the connection before the end of the request body"));
    });
  });
}

/** Runs after-response tasks one after the other, logging failures (Next's after() does the same). */
function runAfter(tasks: AfterTask[]): void {
  void (async () => {
    for (const t of tasks) {
      try {
        await t();
      } catch (err) {
        log.error("after_response.failed", { message: (err as Error).message });
      }
    }
  })();
}
