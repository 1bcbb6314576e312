/**
 * The direct tools/call path (lib/mcp/server.ts directToolCall) against the SDK's own
 * answer to the same message: every call below goes once through mcp-handler and the
 * SDK (sdkTransportHandler) and once through the direct path, both behind the same HTTP
 * layer (serveMcp), and the two answers must be the same bytes (status, the headers a
 * client reads, body) once the values that differ between any two calls (receipt ids,
 * minted keys, timings, quota counters) are masked. The messages the direct path must
 * leave to the SDK are checked to reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb } from "@/lib/db/client";
import { serveMcp } from "@/lib/mcp/http";
import { classifyInboundRequest } from "@modelcontextprotocol/server";
import { directToolCall, mcpTransportHandler, sdkTransportHandler } from "@/lib/mcp/server";
import { useSimulator } from "../helpers/in-process";

useSimulator({ env: { DATA_DIR: "memory", FREE_KEY_DAILY_QUOTA: "1000" } });

beforeAll(() => {
  delete process.env.DATABASE_URL;
  resetEnvForTests();
});
afterAll(async () => {
  await closeDb();
});

const ACCEPT = "application/json, text/event-stream";

function post(body: unknown, headers: Record<string, string | undefined> = {}): Request {
  const h = new Headers({ "Content-Type": "application/json", Accept: ACCEPT, "Mcp-Protocol-Version": "2025-11-25" });
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) h.delete(k);
    else h.set(k, v);
  }
  return new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers: h, body: JSON.stringify(body) });
}

/** Values that differ from one call to the next, whichever path served it. */
function mask(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/echo_fk_[A-Za-z0-9_-]+/g, "<key>")
    .replace(/(\\?"(?:[a-z_]+_ms|remaining|reset_seconds|expires_at|issued_at)\\?":)\s*(\\?"[^"\\]*\\?"|[0-9.]+)/g, "$1<n>")
    .replace(/dur=[0-9.]+/g, "dur=<n>");
}

async function answer(res: Response): Promise<string> {
  const headers = ["content-type", "cache-control", "server-timing", "access-control-allow-origin", "access-control-expose-headers", "mcp-session-id"].map((h) => `${h}: ${res.headers.get(h) ?? "-"}`);
  return mask(`${res.status}\n${headers.join("\n")}\n\n${await res.text()}`);
}

async function both(body: unknown, headers?: Record<string, string | undefined>): Promise<{ sdk: string; direct: string }> {
  const sdk = await answer(await serveMcp(post(body, headers), null, sdkTransportHandler));
  const direct = await answer(await serveMcp(post(body, headers), null, mcpTransportHandler));
  return { sdk, direct };
}

const call = (name: string, args?: unknown, extra: Record<string, unknown> = {}, id: string | number = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

describe("a lone 2025-era tools/call answered without the SDK", () => {
  let key = "";
  beforeAll(async () => {
    const res = await serveMcp(post(call("get_free_api_key", {})), null, sdkTransportHandler);
    key = JSON.parse(await res.text()).result.structuredContent.api_key;
    expect(key).toMatch(/^echo_fk_/);
  }, 120_000);

  const cases: Array<[string, () => unknown, Record<string, string | undefined>?]> = [
    ["no credential: the payment requirement", () => call("get_fear_greed_index", {})],
    ["no arguments member at all", () => call("get_fear_greed_index")],
    ["a free key: the data, its receipt and quota", () => call("get_fear_greed_index", { api_key: key })],
    ["a free key, string id", () => call("get_xlm_quote", { api_key: key }, {}, "q-1")],
    ["an unknown free key", () => call("get_fear_greed_index", { api_key: "echo_fk_nope" })],
    ["a bad argument (spec 2.6 under arguments)", () => call("get_xlm_sentiment_history", { hours: "abc", api_key: key })],
    ["an unknown argument", () => call("get_fear_greed_index", { nope: 1 })],
    ["an unusable _meta payment", () => call("get_fear_greed_index", {}, { _meta: { "x402/payment": "bm90IGpzb24" } })],
    ["a free tool", () => call("get_xlm_sentiment", {})],
    ["minting a free key", () => call("get_free_api_key", {})],
    ["without Mcp-Protocol-Version", () => call("get_fear_greed_index", { api_key: key }), { "Mcp-Protocol-Version": undefined }],
    ["protocol 2025-06-18", () => call("get_fear_greed_index", {}), { "Mcp-Protocol-Version": "2025-06-18" }],
    ["protocol 2025-03-26", () => call("get_fear_greed_index", {}), { "Mcp-Protocol-Version": "2025-03-26" }],
  ];
  for (const [what, body, headers] of cases) {
    it(`${what}: the SDK's answer, byte for byte`, async () => {
      expect(await directToolCall(post(body(), headers), body())).not.toBeNull();
      const { sdk, direct } = await both(body(), headers);
      expect(sdk).toMatch(/^200\ncontent-type: application\/json/);
      expect(direct).toBe(sdk);
    });
  }

  // The direct path skips the SDK's classifier for a message with exactly a request's
  // members, an id its schema takes and no params._meta: the classifier must call every
  // such message a legacy request, whatever 2025-era header comes with it.
  it("skips the SDK's classifier only where it answers legacy", () => {
    const bodies = [call("get_fear_greed_index", { api_key: key }), call("get_xlm_quote", {}, {}, "q-1"), call("get_fear_greed_index"), call("get_fear_greed_index", {}, {}, 0)];
    for (const body of bodies) {
      for (const version of [undefined, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
        for (const mcpMethodHeader of [undefined, "tools/list"]) {
          const route = classifyInboundRequest({ httpMethod: "POST", body, ...(version && { protocolVersionHeader: version }), ...(mcpMethodHeader && { mcpMethodHeader }) });
          expect(route.kind, JSON.stringify({ body, version, mcpMethodHeader })).toBe("legacy");
        }
      }
    }
  });

  it("puts the gate's timing in Server-Timing, as the SDK path does", async () => {
    const res = await serveMcp(post(call("get_fear_greed_index", { api_key: key })), null, mcpTransportHandler);
    expect(res.headers.get("server-timing")).toMatch(/^verify;desc="credential check";dur=[0-9.]+/);
  });
});

describe("messages the direct path leaves to the SDK", () => {
  const left: Array<[string, unknown, Record<string, string | undefined>?]> = [
    ["an unknown tool", call("no_such_tool", {})],
    ["a member a JSON-RPC request does not have", { ...call("get_fear_greed_index", {}), extra: true }],
    ["an id that is not an integer", call("get_fear_greed_index", {}, {}, 1.5)],
    ["an id past the safe integers", call("get_fear_greed_index", {}, {}, 2 ** 53)],
    ["arguments that are not an object", call("get_fear_greed_index", ["x"])],
    ["a task-augmented call", call("get_fear_greed_index", {}, { task: { ttl: 1000 } })],
    ["_meta that is not an object", call("get_fear_greed_index", {}, { _meta: "x" })],
    ["another method", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["a notification", { jsonrpc: "2.0", method: "tools/call", params: { name: "get_fear_greed_index" } }],
    ["an Accept without SSE", call("get_fear_greed_index", {}), { Accept: "application/json" }],
    ["an Accept without JSON", call("get_fear_greed_index", {}), { Accept: "text/event-stream" }],
    ["a body not declared JSON", call("get_fear_greed_index", {}), { "Content-Type": "text/plain" }],
    ["an unsupported protocol version", call("get_fear_greed_index", {}), { "Mcp-Protocol-Version": "1999-01-01" }],
    ["a 2026-era protocol version", call("get_fear_greed_index", {}), { "Mcp-Protocol-Version": "2026-07-28" }],
  ];
  for (const [what, body, headers] of left) {
    it(`${what}: served by the SDK, the same answer either way`, async () => {
      expect(await directToolCall(post(body, headers), body)).toBeNull();
      const { sdk, direct } = await both(body, headers);
      expect(direct).toBe(sdk);
    });
  }
});
