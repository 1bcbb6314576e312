/**
 * The response header policy, in one place, for every way the service answers: Next's
 * proxy (proxy.ts) calls it for every request Next serves, and a server that answers
 * without Next's pipeline (a fast lane for /v1/*, /mcp, /a2a/* and the JSON documents)
 * calls the same two functions: `routeKind` (what a request is) and `securityHeaders`
 * (the headers of that kind).
 *
 * - Pages (lib/web/pages.ts): a Content-Security-Policy with a fresh nonce per response
 *   (Next reads it from the request's CSP header and puts it on its own scripts), no
 *   `unsafe-eval`; scripts only from this origin through the nonce ('strict-dynamic'
 *   lets them load their chunks), requests only to this origin (wallets are reached
 *   through the browser's injected providers, and Solana reads go through the same-origin
 *   relay), nothing may frame them (`frame-ancestors 'none'` and `X-Frame-Options: DENY`:
 *   /wallet and /pay/* ask a wallet to sign payments, so framing them is clickjacking).
 * - API and document answers (JSON, text, the HTML 402 that forwards a browser to its
 *   paywall): a CSP that lets them load nothing and be framed by nobody. CORS is left to
 *   the routes: the agent-facing documents keep `Access-Control-Allow-Origin: *`.
 * - Every answer: `X-Content-Type-Options: nosniff`, `Referrer-Policy:
 *   strict-origin-when-cross-origin`; HSTS only when the answer went out over https.
 */
import { isPagePath } from "@/lib/web/pages";

export type RouteKind = "page" | "api" | "asset";

export interface HeaderContext {
  /** The answer goes out over https (its public base URL is https). */
  https: boolean;
  /** The page's CSP nonce (pages only). */
  nonce?: string;
  /**
   * `next dev`: React's development build evaluates strings to rebuild server error
   * stacks, so the development server alone allows 'unsafe-eval'. Never in production.
   */
  dev?: boolean;
}

/** Where the agents' answers live: the API, MCP, A2A, health and the well-known documents. */
const API_PREFIXES = ["/v1/", "/mcp", "/a2a", "/.well-known/", "/api/", "/health"];

/**
 * What a request is, by path (and Accept for "/", which serves JSON to agents): the
 * pages, the agents' answers (API prefixes and documents, whose names end in an
 * extension: /openapi.json, /llms.txt, /spec.pdf...), static files. Any other path is
 * answered by Next's HTML 404 page, which gets a page's policy.
 */
export function routeKind(pathname: string, accept?: string | null): RouteKind {
  if (pathname.startsWith("/_next/static/") || pathname === "/favicon.svg" || pathname === "/favicon.ico") return "asset";
  if (pathname === "/") return accept && /application\/json/i.test(accept) ? "api" : "page";
  if (isPagePath(pathname)) return "page";
  if (API_PREFIXES.some((p) => pathname === p.replace(/\/$/, "") || pathname.startsWith(p)) || /\/[^/]+\.[A-Za-z0-9]+$/.test(pathname)) return "api";
  return "page";
}

/** Features no page uses, refused for the page and anything it embeds. */
const PERMISSIONS = ["camera=()", "microphone=()", "geolocation=()", "payment=()", "display-capture=()"].join(", ");

/** One year, as HSTS preload lists expect. */
const HSTS = "max-age=31536000; includeSubDomains";

/** The CSP of a page rendered with `nonce`. */
export function pageCsp(nonce: string, https: boolean, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    // React writes `style` attributes (chart sizes, layout tweaks); they cannot run code.
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** The CSP of an API or document answer: it loads nothing, runs nothing, is framed by nobody. */
export const API_CSP = "default-src 'none'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The security headers of an answer of `kind`. */
export function securityHeaders(kind: RouteKind, ctx: HeaderContext): Record<string, string> {
  const h: Record<string, string> = { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin" };
  if (ctx.https) h["Strict-Transport-Security"] = HSTS;
  if (kind === "asset") return h;
  h["X-Frame-Options"] = "DENY";
  if (kind === "page") {
    if (!ctx.nonce) throw new Error("a page's headers need its CSP nonce");
    h["Content-Security-Policy"] = pageCsp(ctx.nonce, ctx.https, ctx.dev);
    h["Permissions-Policy"] = PERMISSIONS;
  } else {
    h["Content-Security-Policy"] = API_CSP;
  }
  return h;
}

/** A fresh CSP nonce (128 random bits, base64). */
export function newNonce(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b));
}
