/** Client IP derivation: the socket address unless trusted proxies are configured. */
import { describe, expect, it } from "vitest";
import { deriveClientIp } from "@/lib/http/client-ip";

describe("deriveClientIp", () => {
  const cases: Array<[string, string | undefined, string | undefined, number, string]> = [
    ["no proxy: socket address", "198.51.100.7", undefined, 0, "198.51.100.7"],
    ["no proxy: a spoofed X-Forwarded-For is ignored", "198.51.100.7", "203.0.113.1", 0, "198.51.100.7"],
    ["IPv4-mapped IPv6 socket address", "::ffff:198.51.100.7", undefined, 0, "198.51.100.7"],
    ["one trusted proxy: the entry it appended", "10.0.0.2", "203.0.113.9", 1, "203.0.113.9"],
    ["one trusted proxy: client-supplied entries before it are ignored", "10.0.0.2", "1.2.3.4, 203.0.113.9", 1, "203.0.113.9"],
    ["two trusted proxies", "10.0.0.2", "1.2.3.4, 203.0.113.9, 10.0.0.1", 2, "203.0.113.9"],
    ["fewer entries than trusted hops: the left-most", "10.0.0.2", "203.0.113.9", 3, "203.0.113.9"],
    ["trusted proxy but no header: socket", "10.0.0.2", undefined, 1, "10.0.0.2"],
  ];
  for (const [name, socket, xff, hops, expected] of cases) {
    it(name, () => expect(deriveClientIp(socket, xff, hops)).toBe(expected));
  }
});
