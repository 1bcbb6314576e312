/**
 * The small parsers and answers behind issue 15 item 3, in-process: repeated query
 * parameters (spec 2.6 422), repeated JSON members, the Allow header of every route,
 * and the JSON answers to requests Node's HTTP parser refuses.
 */
import { describe, expect, it } from "vitest";
import { queryRecord } from "@/lib/http/query";
import { allowHeader, otherMethods } from "@/lib/http/methods";
import { findDuplicateMember } from "@/lib/json/duplicate-members";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { clientErrorOf, hardenServer } from "@/lib/server/client-error";
import { validationIssuesOf } from "../helpers/validation";

const issuesOf = validationIssuesOf;

describe("queryRecord", () => {
  const url = (q: string) => new URL(`http://x.test/v1/screen?${q}`);

  it("keeps one value per declared name and ignores names not declared", () => {
    expect(queryRecord(url("tickers=A,B&period=1mo&utm=1&utm=2"), ["tickers", "period"])).toEqual({ tickers: "A,B", period: "1mo" });
  });

  it("refuses every declared name given more than once, naming it (spec 2.6)", () => {
    const d = issuesOf(() => queryRecord(url("tickers=A&period=1mo&tickers=B&period=3mo&period=6mo"), ["tickers", "period"]));
    expect(d).toEqual([
      { loc: ["query", "tickers"], msg: "Give 'tickers' once: it was given 2 times", type: "repeated_parameter", input: ["A", "B"], ctx: { count: 2 } },
      { loc: ["query", "period"], msg: "Give 'period' once: it was given 3 times", type: "repeated_parameter", input: ["1mo", "3mo", "6mo"], ctx: { count: 3 } },
    ]);
  });

  it("counts an empty repeat as a repeat", () => {
    expect(issuesOf(() => queryRecord(url("hours=&hours=5"), ["hours"]))[0]!.input).toEqual(["", "5"]);
  });
});

describe("findDuplicateMember", () => {
  it.each([
    ['{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}', null],
    ['{"s":"{\\"a\\":1,\\"a\\":2}"}', null],
    ['[1,"x",true,null,{"k":-1.5e3}]', null],
  ])("finds nothing in %s", (text, want) => {
    expect(findDuplicateMember(text)).toEqual(want);
  });

  it("names the repeated member, where it is and every value given", () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"tickers":"A", "period":"1mo", "tickers" : ["B"],"tickers":{"c":"}"}}}}';
    expect(findDuplicateMember(text)).toEqual({ path: ["params", "arguments"], name: "tickers", values: ["A", ["B"], { c: "}" }] });
    expect(findDuplicateMember('[{"ok":1},{"x":{"b":[0,{"c":1,"c":2}]}}]')).toEqual({ path: [1, "x", "b", 1], name: "c", values: [1, 2] });
  });

  it("compares decoded names", () => {
    expect(findDuplicateMember('{"a\\u0062":1,"ab":2}')).toMatchObject({ name: "ab", values: [1, 2] });
  });
});

describe("Allow", () => {
  it("names the methods served plus HEAD (with GET) and OPTIONS, sorted", () => {
    expect(allowHeader(["GET"])).toBe("GET, HEAD, OPTIONS");
    expect(allowHeader(["GET", "POST"])).toBe("GET, HEAD, OPTIONS, POST");
  });

  it("answers other methods with a JSON 405 carrying it, and OPTIONS with 204", async () => {
    const other = otherMethods(["GET", "POST"]);
    expect(Object.keys(other).sort()).toEqual(["DELETE", "OPTIONS", "PATCH", "PUT"]);
    const res = other.PUT(new Request("http://x.test/v1/free-key", { method: "PUT" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
    expect((await res.json()).error.code).toBe("method_not_allowed");
    const opt = other.OPTIONS(new Request("http://x.test/v1/free-key", { method: "OPTIONS" }));
    expect(opt.status).toBe(204);
    expect(opt.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
  });

  it("answers without reading the request (a force-static route's request throws on Node 26)", async () => {
    // Next wraps a force-static route's request in a proxy whose getters throw
    // "Illegal invocation" on Node 26: /health/live answered POST with a 500.
    const hostile = new Proxy(new Request("http://x.test/health/live", { method: "DELETE" }), {
      get() {
        throw new TypeError("Illegal invocation");
      },
    });
    const other = otherMethods(["GET"]);
    const res = other.DELETE(hostile);
    expect(res.status).toBe(405);
    expect((await res.json()).error.message).toMatch(/^DELETE is not served here/);
    expect(other.OPTIONS(hostile).status).toBe(204);
  });
});

describe("client errors", () => {
  it("maps Node's parser failures to the service's error codes", () => {
    const of = (code: string) => clientErrorOf(Object.assign(new Error("x"), { code }), 16384);
    expect(of("HPE_HEADER_OVERFLOW")).toMatchObject({ status: 431, code: "headers_too_large" });
    expect(of("HPE_HEADER_OVERFLOW").message).toContain("16384");
    expect(of("ERR_HTTP_REQUEST_TIMEOUT")).toMatchObject({ status: 408, code: "request_timeout" });
    expect(of("HPE_INVALID_METHOD")).toMatchObject({ status: 400, code: "bad_request" });
  });
});

describe("a hardened server (custom server and container entry)", () => {
  it("answers a request not received in time with 408 in the JSON error shape, over a real socket", async () => {
    // Node checks request deadlines every connectionsCheckingInterval: short here, so the test is quick.
    const server = createServer({ connectionsCheckingInterval: 50 }, (_req, res) => res.end("never"));
    hardenServer(server, 16384);
    expect(server.requestTimeout).toBe(60_000);
    Object.assign(server, { requestTimeout: 200, headersTimeout: 200 });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
        let out = "";
        socket.on("data", (c) => (out += c.toString()));
        socket.on("close", () => resolve(out));
        socket.on("error", reject);
        socket.write("GET /v1/quote HTTP/1.1\r\nHost: x\r\n"); // headers never finished
      });
      const [head, body] = raw.split("\r\n\r\n") as [string, string];
      expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
      expect(head).toMatch(/^content-type: application\/json/im);
      expect(JSON.parse(body)).toEqual({ error: { code: "request_timeout", message: expect.any(String) } });
    } finally {
      server.close();
    }
  });
});
