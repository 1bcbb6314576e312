/**
 * The fast lane's request with a body read up front (lib/server/buffered-request.ts)
 * reads like fetch's own Request made with the same bytes, whichever way the body is read.
 */
import { describe, expect, it } from "vitest";
import { BufferedBodyRequest } from "@/lib/server/buffered-request";

const URL_ = "http://127.0.0.1:3000/mcp";
const headers = { "content-type": "application/json", "content-length": "0" };

function pair(bytes: Uint8Array): [Request, Request] {
  const init = { method: "POST", headers };
  return [new BufferedBodyRequest(URL_, init, Buffer.from(bytes)), new Request(URL_, { ...init, body: Buffer.from(bytes) })];
}

const enc = (s: string) => new TextEncoder().encode(s);
const BODIES: Array<[string, Uint8Array]> = [
  ["a JSON-RPC message", enc('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}')],
  ["an empty body", new Uint8Array(0)],
  ["a leading BOM", Uint8Array.from([0xef, 0xbb, 0xbf, ...enc('{"a":"é"}')])],
  ["malformed UTF-8", Uint8Array.from([0x7b, 0xff, 0xc3, 0x7d])],
  ["not JSON", enc("not json")],
];

async function outcome(p: () => Promise<unknown>): Promise<unknown> {
  try {
    const v = await p();
    return v instanceof ArrayBuffer ? ["ok", [...new Uint8Array(v)]] : v instanceof Uint8Array ? ["ok", [...v]] : ["ok", v];
  } catch (err) {
    return ["error", (err as Error).constructor.name];
  }
}

async function streamText(r: Request): Promise<string> {
  return r.body ? new Response(r.body).text() : "<null>";
}

describe("BufferedBodyRequest", () => {
  for (const [what, bytes] of BODIES) {
    it(`${what}: text, json, arrayBuffer, bytes, the stream, clone and a second read as fetch's Request`, async () => {
      const reads: Array<(r: Request) => Promise<unknown>> = [
        (r) => r.text(),
        (r) => r.json(),
        (r) => r.arrayBuffer(),
        (r) => r.bytes(),
        (r) => r.blob().then((b) => b.text()),
        (r) => streamText(r),
        (r) => r.clone().text(),
      ];
      for (const read of reads) {
        const [mine, theirs] = pair(bytes);
        expect(mine.bodyUsed).toBe(theirs.bodyUsed);
        expect(await outcome(() => read(mine))).toEqual(await outcome(() => read(theirs)));
        expect(mine.bodyUsed).toBe(theirs.bodyUsed);
        // A second read of any kind after the first.
        for (const again of reads.slice(0, 4)) expect(await outcome(() => again(mine))).toEqual(await outcome(() => again(theirs)));
      }
    });
  }

  it("refuses a clone after text(), as fetch does", async () => {
    const [mine, theirs] = pair(enc("{}"));
    await mine.text();
    await theirs.text();
    expect(() => theirs.clone()).toThrow(TypeError);
    expect(() => mine.clone()).toThrow(TypeError);
  });

  it("reads form bodies through fetch", async () => {
    const form = "a=1&b=%C3%A9";
    const init = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } };
    const mine = await new BufferedBodyRequest(URL_, init, Buffer.from(form)).formData();
    const theirs = await new Request(URL_, { ...init, body: form }).formData();
    expect([...mine.entries()]).toEqual([...theirs.entries()]);
  });

  it("is a plain Request without bytes (no body, or a streamed one)", async () => {
    expect(new BufferedBodyRequest(URL_, { method: "GET" }).body).toBeNull();
    const streamed = new BufferedBodyRequest(URL_, { method: "POST", body: new Blob(["abc"]).stream(), duplex: "half" } as RequestInit);
    expect(await streamed.text()).toBe("abc");
    expect(streamed.bodyUsed).toBe(true);
  });
});
