/**
 * The HTTP+JSON binding (`{base}/a2a/v1/...`): the SDK's own REST router (its routes,
 * its proto-JSON codecs, its error mapping) driven from a Next route handler. The router
 * is an Express router, so it gets the few request/response members it uses: the
 * parsed body (already read here, within the size cap), method, URL, headers, query,
 * `status`/`json`/`setHeader`/`end`. Nothing answers 500: an internal error becomes 503
 * with Retry-After, as everywhere else in the service.
 *
 * Methods are answered per resource, as on every other route (lib/http/methods.ts):
 * OPTIONS names what the resource serves, any other method gets a JSON 405 with that
 * `Allow`, and a path the binding does not have is 404 on every method.
 */
import { restHandler } from "@a2a-js/sdk/server/express";
import { logUnexpected } from "@/lib/errors";
import { methodNotAllowed, optionsResponse, type RouteMethod } from "@/lib/http/methods";
import { Caller } from "@/lib/a2a/executor";
import { a2aRequestHandler } from "@/lib/a2a/handler";
import { a2aHeaders, readJsonBody, timingHeaders } from "@/lib/a2a/transport";
import { processState } from "@/lib/process-state";

type Next = (err?: unknown) => void;
type Router = (req: unknown, res: unknown, next: Next) => void;

/** The SDK's REST router over the shared request handler (process-wide, like it). */
function sdkRouter(): Router {
  return processState("a2a.rest", () => restHandler({ requestHandler: a2aRequestHandler(), userBuilder: async (req) => (req as unknown as { caller: Caller }).caller }) as unknown as Router);
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

function restError(status: number, code: number, message: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify({ code, message }), { status, headers });
}

/** Serves `subpath` (e.g. "/v1/message:send") of the REST binding. */
export async function serveRest(req: Request, subpath: string): Promise<Response> {
  const base = a2aHeaders(req);
  const served = restMethods(subpath);
  if (!served) return restError(404, -32601, `No A2A HTTP+JSON method at ${req.method} ${subpath}.`, base);
  if (req.method === "OPTIONS") return optionsResponse(served);
  const asServed = req.method === "HEAD" ? "GET" : req.method;
  if (!served.includes(asServed as RouteMethod)) return methodNotAllowed(req.method, served);
  const url = new URL(req.url);
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJsonBody(req, { emptyAs: BODYLESS.test(subpath) ? {} : undefined });
    if (!read.ok) return restError(read.status, read.code, read.message, base);
    body = read.value;
  }
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
      sdkRouter()(fakeReq, res, (err?: unknown) => {
        if (err) unavailable(err);
        else resolve(restError(404, -32601, `No A2A HTTP+JSON method at ${req.method} ${subpath}.`, base));
      });
    } catch (err) {
      unavailable(err);
    }
  });
}
