/**
 * Client IP of a request, for the per-IP limits (/v1/sample, free-key minting).
 *
 * Route handlers cannot see the socket, so the custom server (lib/server/main.ts)
 * derives the address and passes it in the `x-echo-client-ip` header, stamped with an
 * HMAC under a random key that exists only in that process's memory. A header that
 * arrives from outside cannot carry a valid stamp: the custom server overwrites it, and
 * under `next start`, `next dev` or a platform deploy (where nothing overwrites it) there
 * is no key, so the header is ignored. Without a valid stamp the address comes from the
 * proxy policy alone: the trusted X-Forwarded-For entry when TRUST_PROXY_HOPS > 0,
 * otherwise "unknown" (one shared bucket: strict, but never bypassable).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { env } from "@/lib/config/env";
import { peekProcessState, processState } from "@/lib/process-state";

export const CLIENT_IP_HEADER = "x-echo-client-ip";

// Process-wide because the custom server and the route bundles load this module as
// separate instances in one process.
const STAMP_KEY = "client-ip.stamp-key";

/** Recent addresses' stamps per key: one HMAC per address, not two per request (an agent calls from few addresses, in loops). */
const macs = new WeakMap<Buffer, Map<string, Buffer>>();
/** Addresses remembered per key; the memory starts over when full (a flood of addresses costs an HMAC each, as before). */
const MACS_MAX = 4096;

function mac(key: Buffer, ip: string): Buffer {
  let known = macs.get(key);
  if (!known) macs.set(key, (known = new Map()));
  let m = known.get(ip);
  if (!m) {
    if (known.size >= MACS_MAX) known.clear();
    m = createHmac("sha256", key).update(ip).digest();
    known.set(ip, m);
  }
  return m;
}

/**
 * For the custom server only: creates this process's stamp key and returns the function
 * that writes the stamped client IP into a request, replacing whatever the caller sent.
 */
export function clientIpStamper(trustedHops: number): (req: IncomingMessage) => void {
  const key = processState(STAMP_KEY, () => randomBytes(32));
  return (req) => {
    const ip = deriveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustedHops);
    req.headers[CLIENT_IP_HEADER] = `${ip} ${mac(key, ip).toString("base64url")}`;
  };
}

/** The address stamped by the custom server, if the header carries a valid stamp. */
function stampedIp(value: string | null): string | null {
  const key = peekProcessState<Buffer>(STAMP_KEY);
  if (!key || !value) return null;
  const sep = value.lastIndexOf(" ");
  if (sep <= 0) return null;
  const ip = value.slice(0, sep);
  const given = Buffer.from(value.slice(sep + 1), "base64url");
  const expected = mac(key, ip);
  return given.length === expected.length && timingSafeEqual(given, expected) ? ip : null;
}

export function clientIp(req: Request): string {
  return stampedIp(req.headers.get(CLIENT_IP_HEADER)) ?? deriveClientIp(undefined, req.headers.get("x-forwarded-for") ?? undefined, env().TRUST_PROXY_HOPS);
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
