/**
 * The hook instrumentation.ts installs on Node's HTTP server (lib/server/vary-accept.ts):
 * "/" names Accept in Vary however the response's head is written (setHeader then an
 * implicit head, writeHead with a header object or the flat array form), other paths are
 * left alone, and a server created before the hook was installed gets it too. The deploy
 * shapes suite checks it through Next itself (next start, standalone).
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installVaryAccept, negotiatesOnAccept, withVary } from "@/lib/server/vary-accept";

type Writer = (res: ServerResponse) => void;
const writers: Record<string, Writer> = {
  "set-header": (res) => {
    res.setHeader("Vary", "RSC, Next-Router-State-Tree");
    res.end("x");
  },
  object: (res) => {
    res.writeHead(200, { vary: "RSC", "content-type": "text/plain" }).end("x");
  },
  "object-with-message": (res) => {
    res.writeHead(200, "OK", { "content-type": "text/plain" }).end("x");
  },
  flat: (res) => {
    res.writeHead(200, ["Vary", "RSC", "Content-Type", "text/plain"]).end("x");
  },
  star: (res) => {
    res.setHeader("Vary", "*");
    res.end("x");
  },
  none: (res) => res.end("x"),
};

describe("Vary: Accept on /", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    // Created first, hooked afterwards: the hook lives on the prototype.
    server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      writers[String(req.headers["x-writer"])]!(res);
    });
    installVaryAccept();
    installVaryAccept();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const vary = async (path: string, writer: string) => (await fetch(base + path, { headers: { "x-writer": writer } })).headers.get("vary");

  it("adds Accept to what the response set, however its head is written, once", async () => {
    expect(await vary("/", "set-header")).toBe("RSC, Next-Router-State-Tree, Accept");
    expect(await vary("/", "object")).toBe("RSC, Accept");
    expect(await vary("/?utm=1", "object-with-message")).toBe("Accept");
    expect(await vary("/", "flat")).toBe("RSC, Accept");
    expect(await vary("/", "none")).toBe("Accept");
    expect(await vary("/", "star")).toBe("*");
  });

  it("leaves every other path alone", async () => {
    expect(await vary("/catalog", "set-header")).toBe("RSC, Next-Router-State-Tree");
    expect(await vary("/v1/fng", "none")).toBeNull();
    expect(await vary("/index", "object")).toBe("RSC");
  });

  it("parses the pieces", () => {
    expect(negotiatesOnAccept("/")).toBe(true);
    expect(negotiatesOnAccept("/?a=b")).toBe(true);
    expect(negotiatesOnAccept("/catalog")).toBe(false);
    expect(negotiatesOnAccept(undefined)).toBe(false);
    expect(withVary("accept-encoding, ACCEPT", "Accept")).toBe("accept-encoding, ACCEPT");
    expect(withVary(["RSC", "Origin"], "Accept")).toBe("RSC, Origin, Accept");
    expect(withVary(undefined, "Accept")).toBe("Accept");
  });
});
