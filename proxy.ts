// Every request Next serves, before its route: the security headers of lib/http/security-headers.ts
// (a fresh CSP nonce for each page, handed to Next's renderer through the request's
// CSP header), and the methods of the pages (OPTIONS 204 with Allow, 405 otherwise;
// lib/web/pages.ts), answered here because a page has no route file to say them.
import { NextResponse, type NextRequest } from "next/server";
import { newNonce, routeKind, securityHeaders } from "@/lib/http/security-headers";
import { baseUrlInfo } from "@/lib/http/base-url";
import { isPagePath, PAGE_ALLOW } from "@/lib/web/pages";
import { ApiError, errorResponse } from "@/lib/errors";

export function proxy(req: NextRequest): Response {
  const kind = routeKind(req.nextUrl.pathname, req.headers.get("accept"));
  const https = baseUrlInfo(req).base.startsWith("https:");
  if (isPagePath(req.nextUrl.pathname) && req.method !== "GET" && req.method !== "HEAD") {
    const res =
      req.method === "OPTIONS"
        ? new Response(null, { status: 204, headers: { Allow: PAGE_ALLOW } })
        : errorResponse(new ApiError("method_not_allowed", `${req.method} is not served here. Allowed: ${PAGE_ALLOW}.`, { headers: { Allow: PAGE_ALLOW } }));
    for (const [k, v] of Object.entries(securityHeaders("api", { https }))) res.headers.set(k, v);
    return res;
  }
  if (kind !== "page") return NextResponse.next({ headers: securityHeaders(kind, { https }) });
  const nonce = newNonce();
  const headers = securityHeaders("page", { https, nonce, dev: process.env.NODE_ENV === "development" });
  const forwarded = new Headers(req.headers);
  forwarded.set("Content-Security-Policy", headers["Content-Security-Policy"]!);
  forwarded.set("x-nonce", nonce);
  return NextResponse.next({ request: { headers: forwarded }, headers });
}

export const config = {
  // Static build files carry no policy of their own beyond nosniff, which Next sets.
  matcher: ["/((?!_next/static|_next/image).*)"],
};
