import { env } from "@/lib/config/env";

/** Public base URL: PUBLIC_BASE_URL when configured, else the request's own origin. */
export function baseUrl(req?: Request): string {
  const configured = env().PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, "");
  if (req) {
    const u = new URL(req.url);
    const proto = req.headers.get("x-forwarded-proto") ?? u.protocol.replace(":", "");
    const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? u.host;
    return `${proto}://${host}`;
  }
  return `http://localhost:${env().PORT}`;
}
