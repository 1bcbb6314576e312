/**
 * Client IP derivation: the socket address unless trusted proxies are configured; the
 * x-echo-client-ip header counts only with this process's stamp (lib/http/client-ip.ts).
 */
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { CLIENT_IP_HEADER, clientIp, clientIpStamper, deriveClientIp } from "@/lib/http/client-ip";

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

describe("clientIp (stamped header)", () => {
  const STAMP_KEY = Symbol.for("echo.client-ip.stamp-key");
  const g = globalThis as Record<symbol, unknown>;
  const incoming = (remoteAddress: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress }, headers: { ...headers } }) as unknown as IncomingMessage;
  const asRequest = (m: IncomingMessage) => new Request("http://localhost/v1/sample", { headers: m.headers as Record<string, string> });

  afterEach(() => {
    delete g[STAMP_KEY];
    delete process.env.TRUST_PROXY_HOPS;
    resetEnvForTests();
  });

  it("ignores the header when no custom server created a stamp key (next start / next dev / platforms)", () => {
    delete g[STAMP_KEY];
    const req = new Request("http://localhost/", { headers: { [CLIENT_IP_HEADER]: "203.0.113.5", "x-forwarded-for": "203.0.113.6" } });
    expect(clientIp(req)).toBe("unknown");
  });

  it("without a stamp, trusts only TRUST_PROXY_HOPS entries of X-Forwarded-For", () => {
    process.env.TRUST_PROXY_HOPS = "1";
    resetEnvForTests();
    const req = new Request("http://localhost/", { headers: { [CLIENT_IP_HEADER]: "203.0.113.5", "x-forwarded-for": "1.2.3.4, 203.0.113.6" } });
    expect(clientIp(req)).toBe("203.0.113.6");
  });

  it("takes the address the custom server stamped, replacing what the caller sent", () => {
    const stamp = clientIpStamper(0);
    const m = incoming("::ffff:198.51.100.7", { [CLIENT_IP_HEADER]: "203.0.113.5", "x-forwarded-for": "203.0.113.6" });
    stamp(m);
    expect(clientIp(asRequest(m))).toBe("198.51.100.7");
  });

  it("refuses forged stamps: another address under a copied MAC, a made-up MAC, no MAC", () => {
    const stamp = clientIpStamper(0);
    const m = incoming("198.51.100.7");
    stamp(m);
    const mac = String(m.headers[CLIENT_IP_HEADER]).split(" ")[1]!;
    const forged = [`203.0.113.5 ${mac}`, `198.51.100.8 ${mac}`, "203.0.113.5 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "203.0.113.5", ` ${mac}`, ""];
    for (const value of forged) {
      expect(clientIp(new Request("http://localhost/", { headers: { [CLIENT_IP_HEADER]: value } })), value).toBe("unknown");
    }
  });

  it("a stamp made under another process's key is worthless here", () => {
    const stamp = clientIpStamper(0);
    const m = incoming("198.51.100.7");
    stamp(m);
    delete g[STAMP_KEY];
    clientIpStamper(0); // a new process: a new random key
    expect(clientIp(asRequest(m))).toBe("unknown");
  });
});
