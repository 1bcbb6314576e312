/**
 * The one header policy (lib/http/security-headers.ts), as any server calls it: Next's
 * proxy today, a fast lane for agent traffic later. Which requests are pages, API answers
 * or static files, and the headers each gets: a nonce CSP without 'unsafe-eval' on pages,
 * frame-deny everywhere, HSTS and upgrade-insecure-requests only over https. The browser
 * tests (tests/browser/security.spec.ts) check the same on the running service.
 */
import { describe, expect, it } from "vitest";
import { API_CSP, newNonce, pageCsp, routeKind, securityHeaders } from "@/lib/http/security-headers";
import { isPagePath, PAGE_ALLOW, WEB_PAGES } from "@/lib/web/pages";

describe("routeKind", () => {
  it("tells pages, agents' answers and static files apart", () => {
    for (const p of WEB_PAGES) expect(routeKind(p.path, "text/html"), p.path).toBe("page");
    expect(routeKind("/pay/v1/quote")).toBe("page");
    expect(routeKind("/", "application/json")).toBe("api");
    expect(routeKind("/", "text/html,*/*")).toBe("page");
    for (const p of ["/v1/quote", "/v1/bundle/enterprise", "/mcp", "/mcp/x", "/a2a", "/a2a/v1/card", "/.well-known/x402", "/openapi.json", "/llms.txt", "/spec.pdf", "/sitemap.xml", "/health/live", "/api/solana-rpc"]) {
      expect(routeKind(p), p).toBe("api");
    }
    expect(routeKind("/_next/static/chunks/a.js")).toBe("asset");
    expect(routeKind("/favicon.svg")).toBe("asset");
    // Anything else is Next's HTML 404 page: it gets a page's policy (and its nonce).
    expect(routeKind("/no-such-page")).toBe("page");
  });
  it("knows the pages' methods", () => {
    expect(PAGE_ALLOW).toBe("GET, HEAD, OPTIONS");
    expect(isPagePath("/wallet")).toBe(true);
    expect(isPagePath("/pay/v1/fng")).toBe(true);
    expect(isPagePath("/v1/fng")).toBe(false);
  });
});

describe("securityHeaders", () => {
  it("gives a page a nonce CSP without unsafe-eval that nothing may frame", () => {
    const nonce = newNonce();
    const h = securityHeaders("page", { https: false, nonce });
    const csp = h["Content-Security-Policy"]!;
    expect(csp).toContain(`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(h["X-Frame-Options"]).toBe("DENY");
    expect(h["X-Content-Type-Options"]).toBe("nosniff");
    expect(h["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
    expect(h["Permissions-Policy"]).toContain("camera=()");
    expect(h["Strict-Transport-Security"]).toBeUndefined();
    expect(() => securityHeaders("page", { https: false })).toThrow(/nonce/);
    // Only the development server (next dev) evaluates strings.
    expect(securityHeaders("page", { https: false, nonce, dev: true })["Content-Security-Policy"]).toContain("'unsafe-eval'");
  });
  it("adds HSTS and upgrade-insecure-requests only over https", () => {
    const h = securityHeaders("page", { https: true, nonce: "n" });
    expect(h["Strict-Transport-Security"]).toMatch(/^max-age=\d+/);
    expect(h["Content-Security-Policy"]).toContain("upgrade-insecure-requests");
    expect(securityHeaders("api", { https: true })["Strict-Transport-Security"]).toBeDefined();
    expect(securityHeaders("asset", { https: true })["Strict-Transport-Security"]).toBeDefined();
    expect(pageCsp("n", false)).not.toContain("upgrade-insecure-requests");
  });
  it("gives API answers a CSP that loads nothing, and leaves CORS to the routes", () => {
    const h = securityHeaders("api", { https: false });
    expect(h["Content-Security-Policy"]).toBe(API_CSP);
    expect(API_CSP).toContain("default-src 'none'");
    expect(h["X-Frame-Options"]).toBe("DENY");
    expect(Object.keys(h).some((k) => k.toLowerCase().startsWith("access-control-"))).toBe(false);
    expect(Object.keys(h).some((k) => k.toLowerCase().startsWith("cross-origin-"))).toBe(false);
  });
  it("makes a fresh nonce each time", () => {
    const a = newNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(a);
  });
});
