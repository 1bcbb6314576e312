/**
 * The public base URL written into discovery documents, MCP views and payment
 * requirements.
 *
 * PUBLIC_BASE_URL wins when configured. Otherwise it is the request's own origin: the
 * `Host` header (checked to be a bare host[:port]) over the scheme the request arrived
 * with (plain HTTP on the service's own listener). `X-Forwarded-Host` / `X-Forwarded-Proto` are honoured only when the operator
 * declared trusted proxies (TRUST_PROXY_HOPS > 0, the same setting that lets client IPs
 * come from X-Forwarded-For): without a proxy any caller could set them and make the
 * documents point at a host of its choosing.
 */
import { env } from "@/lib/config/env";

/** host[:port]: a DNS name or IPv4 address, or a bracketed IPv6 literal. No userinfo, path or spaces. */
const HOST_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const MAX_HOST = 255;

export interface BaseUrlInfo {
  /** e.g. "https://api.example.com" (no trailing slash). */
  base: string;
  /** True when the base came from the request (PUBLIC_BASE_URL unset). */
  derived: boolean;
  /** Request headers the base was read from besides Host (for `Vary`). */
  vary: string[];
}

export function validHost(h: string | null | undefined): string | undefined {
  const s = h?.trim();
  return s && s.length <= MAX_HOST && HOST_RE.test(s) ? s.toLowerCase() : undefined;
}

/**
 * The entry a trusted proxy chain put in a comma-separated forwarded header: proxies that
 * append rather than overwrite add theirs on the right, so with N trusted hops the value
 * the outermost one saw is the N-th from the right (as for X-Forwarded-For).
 */
function forwarded(value: string | null, hops: number): string | undefined {
  if (!value) return undefined;
  const chain = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (!chain.length) return undefined;
  return chain[Math.max(0, chain.length - hops)];
}

/** The base URL and how it was obtained. */
export function baseUrlInfo(req?: Request): BaseUrlInfo {
  const cfg = env();
  if (cfg.PUBLIC_BASE_URL) return { base: cfg.PUBLIC_BASE_URL.replace(/\/+$/, ""), derived: false, vary: [] };
  if (!req) return { base: `http://localhost:${cfg.PORT}`, derived: false, vary: [] };
  const u = new URL(req.url);
  // Next.js builds req.url's scheme from X-Forwarded-Proto when a request carries one, so
  // then the URL says nothing trustworthy; the service's own listener is plain HTTP
  // (lib/server/main.ts), which is the scheme the request really arrived with.
  let proto = req.headers.has("x-forwarded-proto") ? "http" : u.protocol.replace(":", "");
  let host = validHost(req.headers.get("host")) ?? u.host;
  const vary: string[] = [];
  const hops = cfg.TRUST_PROXY_HOPS;
  if (hops > 0) {
    vary.push("X-Forwarded-Host", "X-Forwarded-Proto");
    const fHost = validHost(forwarded(req.headers.get("x-forwarded-host"), hops));
    if (fHost) host = fHost;
    const fProto = forwarded(req.headers.get("x-forwarded-proto"), hops)?.toLowerCase();
    if (fProto === "http" || fProto === "https") proto = fProto;
  }
  return { base: `${proto}://${host}`, derived: true, vary };
}

/** Public base URL: PUBLIC_BASE_URL when configured, else the request's own origin (see above). */
export function baseUrl(req?: Request): string {
  return baseUrlInfo(req).base;
}

/**
 * Cache headers for a response whose body embeds the base URL. With a configured base it
 * may be shared (`public`). A base derived from request headers must not land in a
 * shared cache that would serve it to other clients (a CDN keying on a normalised host
 * would otherwise store documents pointing wherever one caller's headers said), so it is
 * `private`, with `Vary` naming the forwarded headers it was read from.
 */
export function baseCacheHeaders(info: BaseUrlInfo, maxAgeSeconds: number): Record<string, string> {
  const headers: Record<string, string> = { "Cache-Control": `${info.derived ? "private" : "public"}, max-age=${maxAgeSeconds}` };
  if (info.vary.length) headers.Vary = info.vary.join(", ");
  return headers;
}
