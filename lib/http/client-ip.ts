/**
 * Client IP as derived by the custom server (lib/server/main.ts) from the socket and,
 * only when TRUST_PROXY_HOPS > 0, from that many trusted X-Forwarded-For entries
 * counted from the right. The server overwrites this header on every request, so a
 * caller cannot set it.
 */
export const CLIENT_IP_HEADER = "x-echo-client-ip";

export function clientIp(req: Request): string {
  return req.headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

/** The address a request came from given the socket address and the proxy policy. */
export function deriveClientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  const socket = normalizeIp(socketAddress ?? "unknown");
  if (trustedHops <= 0 || !forwardedFor) return socket;
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Entries appended by our own proxies are the right-most `trustedHops`; the one
  // before them is what the outermost trusted proxy saw.
  const idx = chain.length - trustedHops;
  if (idx < 0) return normalizeIp(chain[0] ?? socket);
  return normalizeIp(chain[idx] ?? socket);
}

function normalizeIp(ip: string): string {
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}
