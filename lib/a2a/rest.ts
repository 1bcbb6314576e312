/**
 * The HTTP+JSON binding (`{base}/a2a/v1/...`), both versions at the same URLs, told apart
 * by the request's `A2A-Version` header as the SDK's own router does:
 * - A2A 1.0 (`A2A-Version: 1.0`, operations under the interface URL `{base}/a2a/v1`):
 *   served here directly from the route handler: the body read once within the size cap,
 *   decoded with the SDK's proto-JSON codec (SendMessageRequest.fromJSON), the shared
 *   request handler called, the answer encoded with the SDK's codec, errors with its
 *   REST error mapping (google.rpc.Status bodies). No router, no request/response
 *   objects per call.
 * - A2A 0.3 (no header, or a 0.x version; the 0.3 interface URL `{base}/a2a` +
 *   `/v1/...`): the SDK's 0.3 compatibility router (its routes, 0.3 proto-JSON codecs and
 *   error mapping, which are not exported on their own). It is an Express router, so it
 *   gets the few request/response members it uses: the parsed body, method, URL,
 *   headers, query, `status`/`json`/`setHeader`/`end`.
 * Nothing answers 500: an internal error becomes 503 with Retry-After, as everywhere
 * else in the service.
 *
 * Methods are answered per resource, as on every other route (lib/http/methods.ts):
 * OPTIONS names what the resource serves, any other method gets a JSON 405 with that
 * `Allow`, and a path the binding does not have is 404 on every method.
 */
import { SendMessageRequest, SendMessageResponse, Task, type Message } from "@a2a-js/sdk";
import { legacyRestRouter } from "@a2a-js/sdk/compat/v0_3/server/express";
import { RequestMalformedError, restStatusFor, toRestErrorBody, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { validateVersion, type DefaultRequestHandler } from "@a2a-js/sdk/server";
import { logUnexpected } from "@/lib/errors";
import { methodNotAllowed, optionsResponse, type RouteMethod } from "@/lib/http/methods";
import { Caller } from "@/lib/a2a/executor";
import { a2aRequestHandler, currentCard } from "@/lib/a2a/handler";
import { encodedTask } from "@/lib/a2a/task-store";
import { a2aHeaders, callContext, isLegacy, readJsonBody, requestedVersion, timingHeaders } from "@/lib/a2a/transport";
import { processState } from "@/lib/process-state";

type Next = (err?: unknown) => void;
type Router = (req: unknown, res: unknown, next: Next) => void;

/** The SDK's 0.3 REST router over a request handler (process-wide, like it: one per handler). */
function legacyRouter(handler: DefaultRequestHandler): Router {
  const routers = processState("a2a.rest.v03.by-handler", () => new WeakMap<DefaultRequestHandler, Router>());
  let router = routers.get(handler);
  if (!router) {
    router = legacyRestRouter({ requestHandler: handler, userBuilder: async (req) => (req as unknown as { caller: Caller }).caller }) as unknown as Router;
    routers.set(handler, router);
  }
  return router;
}

/** The binding's resources (the SDK router's routes) and the methods each serves. */
const RESOURCES: ReadonlyArray<[RegExp, readonly RouteMethod[]]> = [
  [/^\/v1\/card$/, ["GET"]],
  [/^\/v1\/message:(send|stream)$/, ["POST"]],
  [/^\/v1\/tasks\/[^/]+:subscribe$/, ["GET", "POST"]],
  [/^\/v1\/tasks\/[^/]+:cancel$/, ["POST"]],
  [/^\/v1\/tasks\/[^/:]+$/, ["GET"]],
  [/^\/v1\/tasks\/[^/]+\/pushNotificationConfigs$/, ["GET", "POST"]],
  [/^\/v1\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, ["GET", "DELETE"]],
];

/**
 * POSTs whose request message is only the task id in the path (`tasks/{id}:cancel`,
 * `tasks/{id}:subscribe`): an empty body is that message, not a parse error. The 0.3
 * client's `cancelTask({id})` sends `Content-Type: application/json` and no body at all.
 */
const BODYLESS = /^\/v1\/tasks\/[^/]+:(cancel|subscribe)$/;

/** The methods `subpath` serves; null when the binding has no such resource. */
export function restMethods(subpath: string): readonly RouteMethod[] | null {
  return RESOURCES.find(([re]) => re.test(subpath))?.[1] ?? null;
}

/** google.rpc.Status names of the statuses this binding answers itself (A2A 1.0 error bodies). */
const STATUS_NAME: Record<number, string> = { 400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 413: "INVALID_ARGUMENT", 503: "UNAVAILABLE" };

/** An error answered by the binding itself: 0.3's `{code, message}`, or 1.0's google.rpc.Status body. */
function restError(status: number, code: number, message: string, headers: Record<string, string>, legacy: boolean): Response {
  const body = legacy ? { code, message } : { error: { code: status, status: STATUS_NAME[status] ?? "UNKNOWN", message, details: [] } };
  return new Response(JSON.stringify(body), { status, headers });
}

/** Serves `subpath` (e.g. "/v1/message:send") of the REST binding, through `handler` (the process's). */
export async function serveRest(req: Request, subpath: string, handler: DefaultRequestHandler = a2aRequestHandler()): Promise<Response> {
  const legacy = isLegacy(req);
  const base = a2aHeaders(req, legacy, legacy ? "application/json" : "application/a2a+json");
  const served = restMethods(subpath);
  if (!served) return restError(404, -32601, `No A2A HTTP+JSON method at ${req.method} ${subpath}.`, base, legacy);
  if (req.method === "OPTIONS") return optionsResponse(served);
  const asServed = req.method === "HEAD" ? "GET" : req.method;
  if (!served.includes(asServed as RouteMethod)) return methodNotAllowed(req.method, served);
  const url = new URL(req.url);
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJsonBody(req, { emptyAs: BODYLESS.test(subpath) ? {} : undefined });
    if (!read.ok) return restError(read.status, read.code, read.message, base, legacy);
    body = read.value;
  }
  if (!legacy) return serveV1(req, subpath.slice("/v1".length), url, body, base, handler);
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    // The body is already parsed; without framing headers the router's body parser leaves it alone.
    if (k !== "content-length" && k !== "transfer-encoding") headers[k] = v;
  });
  const header = (name: string) => headers[name.toLowerCase()];
  const caller = new Caller(req);
  const fakeReq = { method: req.method, url: `${subpath}${url.search}`, headers, body, complete: true, query: Object.fromEntries(url.searchParams), header, get: header, caller };

  return new Promise<Response>((resolve) => {
    let status = 200;
    const out: Record<string, string> = { ...base };
    const finish = (text: string | undefined) => {
      if (status >= 500) {
        status = 503;
        out["Retry-After"] = "10";
      }
      Object.assign(out, timingHeaders(caller));
      resolve(new Response(status === 204 ? null : (text ?? ""), { status, headers: out }));
    };
    const unavailable = (err: unknown) => {
      logUnexpected(err, { surface: "a2a", binding: "rest" });
      status = 503;
      finish(JSON.stringify({ code: -32603, message: "The service is temporarily unavailable; nothing was charged." }));
    };
    const res = {
      headersSent: false,
      writableEnded: false,
      status(code: number) {
        status = code;
        return res;
      },
      setHeader(k: string, v: string | string[]) {
        if (k.toLowerCase() !== "content-type") out[k] = Array.isArray(v) ? v.join(", ") : String(v);
        return res;
      },
      json(value: unknown) {
        res.end(JSON.stringify(value));
        return res;
      },
      end(text?: string) {
        res.headersSent = res.writableEnded = true;
        finish(text);
        return res;
      },
    };
    try {
      legacyRouter(handler)(fakeReq, res, (err?: unknown) => {
        if (err) unavailable(err);
        else resolve(restError(404, -32601, `No A2A HTTP+JSON method at ${req.method} ${subpath}.`, base, true));
      });
    } catch (err) {
      unavailable(err);
    }
  });
}

const TASK = /^\/tasks\/([^/:]+)$/;
const CANCEL = /^\/tasks\/([^/:]+):cancel$/;

function isTask(r: Message | Task): r is Task {
  return "status" in r && "id" in r;
}

/** A2A 1.0 over HTTP+JSON: `op` is the operation's path under the interface URL (`/message:send`). */
async function serveV1(req: Request, op: string, url: URL, body: unknown, base: Record<string, string>, handler: DefaultRequestHandler): Promise<Response> {
  const caller = new Caller(req);
  const json = (status: number, value: unknown) => new Response(JSON.stringify(value), { status, headers: { ...base, ...timingHeaders(caller) } });
  try {
    const version = requestedVersion(req);
    validateVersion(version, currentCard(), "HTTP+JSON");
    const context = callContext(req, caller, false, version);
    if (op === "/message:send") {
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new RequestMalformedError("The body must be a SendMessageRequest object.");
      const params = SendMessageRequest.fromJSON(body);
      if (!params.message?.messageId) throw new RequestMalformedError("message.messageId is required");
      const result = await handler.sendMessage(params, context);
      // The task's text as the store encoded it for its row, when it is that very task (SendMessageResponse's JSON is `{"task": <Task JSON>}`).
      const encoded = isTask(result) ? encodedTask(result) : undefined;
      if (encoded !== undefined) return new Response(`{"task":${encoded}}`, { status: 200, headers: { ...base, ...timingHeaders(caller) } });
      return json(200, SendMessageResponse.toJSON({ payload: isTask(result) ? { $case: "task", value: result } : { $case: "message", value: result } }));
    }
    const get = req.method !== "POST" ? TASK.exec(op) : null;
    if (get) {
      const history = url.searchParams.get("historyLength");
      const historyLength = history === null ? undefined : Number.parseInt(history, 10);
      if (historyLength !== undefined && !(historyLength >= 0)) throw new RequestMalformedError("historyLength must be a non-negative integer");
      return json(200, Task.toJSON(await handler.getTask({ id: decodeURIComponent(get[1] ?? ""), tenant: "", historyLength }, context)));
    }
    const cancel = CANCEL.exec(op);
    if (cancel) return json(200, Task.toJSON(await handler.cancelTask({ id: decodeURIComponent(cancel[1] ?? ""), tenant: "", metadata: {} }, context)));
    throw new UnsupportedOperationError(`${req.method} ${op} is not offered by this agent (no streaming, push notifications or extended card).`);
  } catch (err) {
    const status = restStatusFor(err);
    if (status >= 500) {
      logUnexpected(err, { surface: "a2a", binding: "rest" });
      return restError(503, -32603, "The service is temporarily unavailable; nothing was charged.", { ...base, "Retry-After": "10" }, false);
    }
    return json(status, toRestErrorBody(err, status));
  }
}
