/**
 * What a route answers to the methods it does not serve. Next's defaults are a bare 405
 * without `Allow` for an unserved method, and an OPTIONS whose `Allow` lists every
 * method the route file exports, including those that only answer 405. A route adds
 * `export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods(["GET"]);` and gets
 * a JSON 405 (the usual error shape) with a correct `Allow`, and an OPTIONS naming
 * exactly the methods served (HEAD comes with GET: Next answers it from the GET handler).
 */
import { ApiError, errorResponse } from "@/lib/errors";

export const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];
type Handler = (req: Request) => Response;

/** The `Allow` value of a route serving `served` (sorted, as Next sorts its own). */
export function allowHeader(served: readonly RouteMethod[]): string {
  const all = new Set<string>([...served, "OPTIONS"]);
  if (all.has("GET")) all.add("HEAD");
  return [...all].sort().join(", ");
}

/** JSON 405 naming the methods served in `Allow`. */
export function methodNotAllowed(method: string, served: readonly RouteMethod[]): Response {
  const allow = allowHeader(served);
  return errorResponse(new ApiError("method_not_allowed", `${method} is not served here. Allowed: ${allow}.`, { headers: { Allow: allow } }));
}

/** 204 answer to OPTIONS naming the methods served. */
export function optionsResponse(served: readonly RouteMethod[]): Response {
  return new Response(null, { status: 204, headers: { Allow: allowHeader(served) } });
}

/**
 * Handlers for every method of ROUTE_METHODS that `served` lacks: OPTIONS answers 204
 * with `Allow`, the others a JSON 405 with the same `Allow`.
 */
export function otherMethods<S extends RouteMethod>(served: readonly S[]): Record<Exclude<RouteMethod, S>, Handler> {
  const out: Partial<Record<RouteMethod, Handler>> = {};
  for (const m of ROUTE_METHODS) {
    if ((served as readonly RouteMethod[]).includes(m)) continue;
    // The method is the export's own name: the request is not read at all. Next hands a
    // force-static route (e.g. /health/live) a proxy of the request whose getters throw
    // "Illegal invocation" on Node 26 (undici's brand check), so `req.method` was a 500.
    out[m] = m === "OPTIONS" ? () => optionsResponse(served) : () => methodNotAllowed(m, served);
  }
  return out as Record<Exclude<RouteMethod, S>, Handler>;
}
