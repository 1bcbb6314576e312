/**
 * Which App Router routes the fast lane (lib/server/fast-lane.ts) serves, and how a
 * request path finds one of them.
 *
 * There is no list of routes here: the lane reads the route names from the build (Next's
 * app-paths-manifest.json, which Next writes from the app/ route files and uses itself),
 * and keeps those this rule selects: the agents' surfaces, i.e. everything under /v1/,
 * /mcp and /a2a, and the discovery documents of lib/discovery/documents.ts that are JSON.
 * So a route file added, renamed or removed is served by both lanes or neither; the unit
 * test tests/unit/lane-routes.test.ts walks app/ and checks the selection both ways.
 *
 * Dependency-light on purpose: lib/server/main.ts and the standalone entry load it.
 */
import { DISCOVERY_DOCUMENTS } from "@/lib/discovery/documents";

/** Path prefixes of the agent surfaces (a route is in the lane when its path is one of them or under it). */
export const LANE_PREFIXES = ["/v1", "/mcp", "/a2a"] as const;

/** An App Router path ("/v1/[...path]") of a discovery document's path ("/x/{rest}" → "/x/[...rest]"). */
function appPathOf(docPath: string): string {
  return docPath.replace(/\{(\w+)\}/g, "[...$1]");
}

/** The App Router paths of the JSON discovery documents. */
export function jsonDocumentRoutes(): string[] {
  return DISCOVERY_DOCUMENTS.filter((d) => /(^|\/|\+)json$/.test(d.mediaType)).map((d) => appPathOf(d.path));
}

/** Whether the route at App Router path `route` ("/mcp/[...path]", no "/route" suffix) is served by the lane. */
export function isLaneRoute(route: string): boolean {
  if (LANE_PREFIXES.some((p) => route === p || route.startsWith(`${p}/`))) return true;
  return jsonDocumentRoutes().includes(route);
}

/** The route paths of an app-paths-manifest ("/x/route" keys) that the lane serves, sorted. */
export function laneRoutes(manifestKeys: Iterable<string>): string[] {
  const out: string[] = [];
  for (const key of manifestKeys) {
    if (!key.endsWith("/route")) continue;
    const route = key.slice(0, -"/route".length) || "/";
    if (isLaneRoute(route)) out.push(route);
  }
  return out.sort();
}

export interface LaneMatch<R> {
  route: R;
  /** The dynamic segments' values, as Next hands them to the handler (`ctx.params`). */
  params: Record<string, string | string[]>;
}

interface Compiled<R> {
  route: R;
  segments: string[];
  /** Index of a trailing catch-all segment ("[...name]"), or -1. */
  catchAll: number;
  catchAllName?: string;
}

/**
 * Request paths the lane takes at all: unreserved characters and the sub-delimiters
 * ":" "@" and the like that a path segment holds as they are (A2A's "/a2a/v1/message:send"),
 * no empty, "." or ".." segment, no trailing slash, no percent-encoding. Anything else (which Next redirects,
 * normalises or decodes in ways of its own) goes through Next unchanged.
 */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9_.~\-:@!$&'()*+,;=]+)+$/;

/**
 * A matcher over `routes` with Next's precedence for our route shapes: a static route
 * before a dynamic one, a longer static prefix first; single dynamic segments ("[skill]")
 * and trailing catch-alls ("[...path]", one or more segments). Optional catch-alls and
 * route groups are not used by the lane's routes; a route with one is not matched (it
 * still works through Next).
 */
export function routeMatcher<R>(routes: ReadonlyArray<{ path: string; route: R }>): (pathname: string) => LaneMatch<R> | null {
  const statics = new Map<string, R>();
  const dynamic: Compiled<R>[] = [];
  for (const { path, route } of routes) {
    const segments = path.split("/").slice(1);
    if (segments.some((s) => s.startsWith("[[") || s.startsWith("("))) continue;
    if (!segments.some((s) => s.startsWith("["))) {
      statics.set(path, route);
      continue;
    }
    const last = segments.length - 1;
    const catchAll = segments[last]!.startsWith("[...") ? last : -1;
    if (segments.some((s, i) => s.startsWith("[...") && i !== last)) continue;
    dynamic.push({ route, segments, catchAll, catchAllName: catchAll >= 0 ? segments[last]!.slice(4, -1) : undefined });
  }
  // More static segments before the first dynamic one first; then catch-alls last.
  const staticPrefix = (c: Compiled<R>) => c.segments.findIndex((s) => s.startsWith("["));
  dynamic.sort((a, b) => staticPrefix(b) - staticPrefix(a) || Number(a.catchAll >= 0) - Number(b.catchAll >= 0) || b.segments.length - a.segments.length);
  return (pathname) => {
    if (!PLAIN_PATH.test(pathname)) return null;
    const hit = statics.get(pathname);
    if (hit !== undefined) return { route: hit, params: {} };
    const parts = pathname.split("/").slice(1);
    for (const c of dynamic) {
      const fixed = c.catchAll >= 0 ? c.catchAll : c.segments.length;
      if (c.catchAll >= 0 ? parts.length <= fixed : parts.length !== fixed) continue;
      const params: Record<string, string | string[]> = {};
      let ok = true;
      for (let i = 0; i < fixed && ok; i++) {
        const s = c.segments[i]!;
        if (s.startsWith("[")) params[s.slice(1, -1)] = parts[i]!;
        else ok = s === parts[i];
      }
      if (!ok) continue;
      if (c.catchAllName) params[c.catchAllName] = parts.slice(fixed);
      return { route: c.route, params };
    }
    return null;
  };
}
