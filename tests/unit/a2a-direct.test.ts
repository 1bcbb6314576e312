/**
 * The direct path of a new A2A message (lib/a2a/direct.ts) against the SDK's own answer
 * to the same message: every message below goes once through the SDK's
 * DefaultRequestHandler (a2aSdkRequestHandler) and once through the direct path
 * (a2aRequestHandler), both behind the same binding (1.0 HTTP+JSON, 1.0 JSON-RPC, and
 * 0.3 JSON-RPC and HTTP+JSON through the SDK's compatibility layer), and the two answers
 * must be the same bytes (status, the headers a client reads, body) once the values
 * that differ between any two calls (task, context, message and artifact ids, receipt
 * ids, minted keys, timestamps, timings, quota counters) are masked. The task each path
 * stored is read back (GetTask) and must be the same too, and so must the row itself.
 * The messages the direct path must leave to the SDK are checked to reach it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DefaultRequestHandler } from "@a2a-js/sdk/server";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { a2aRequestHandler, a2aSdkRequestHandler } from "@/lib/a2a/handler";
import { serveJsonRpcWith } from "@/lib/a2a/jsonrpc";
import { serveRest } from "@/lib/a2a/rest";
import { mintBundle } from "@/lib/access/bundles";
import { mintApiKey } from "@/lib/access/keys";
import { useSimulator } from "../helpers/in-process";

const X402 = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

useSimulator({
  env: { DATA_DIR: "memory", FREE_KEY_DAILY_QUOTA: "1000", PAY_TO_ADDRESS: "0x0000000000000000000000000000000000000001", FACILITATOR_URL: "http://127.0.0.1:9/facilitator", FREE_KEY_MINTS_PER_HOUR: "100" },
});

beforeAll(() => {
  delete process.env.DATABASE_URL;
  resetEnvForTests();
});
afterAll(async () => {
  await closeDb();
});

type J = Record<string, unknown>;
type Binding = "rest" | "jsonrpc" | "rest-0.3" | "jsonrpc-0.3";
const BINDINGS: Binding[] = ["rest", "jsonrpc", "rest-0.3", "jsonrpc-0.3"];
const BASE = "http://127.0.0.1:3000";

/** A message as its binding and version write it: 1.0 proto JSON, 0.3 JSON-RPC, or 0.3 REST proto JSON. */
interface Msg {
  messageId?: string;
  data?: J;
  text?: string;
  metadata?: J;
  taskId?: string;
  contextId?: string;
  referenceTaskIds?: string[];
}

function wire(binding: Binding, m: Msg): J {
  const ids = { ...(m.messageId !== "" ? { messageId: m.messageId ?? "m-1" } : {}), ...(m.taskId ? { taskId: m.taskId } : {}), ...(m.contextId ? { contextId: m.contextId } : {}) };
  const refs = m.referenceTaskIds ? { referenceTaskIds: m.referenceTaskIds } : {};
  if (binding === "jsonrpc-0.3") {
    const parts = [...(m.text ? [{ kind: "text", text: m.text }] : []), ...(m.data ? [{ kind: "data", data: m.data }] : [])];
    return { kind: "message", role: "user", ...ids, ...refs, parts, metadata: m.metadata };
  }
  if (binding === "rest-0.3") {
    const content = [...(m.text ? [{ text: m.text }] : []), ...(m.data ? [{ data: { data: m.data } }] : [])];
    return { role: "ROLE_USER", ...ids, content, metadata: m.metadata };
  }
  const parts = [...(m.text ? [{ text: m.text }] : []), ...(m.data ? [{ data: m.data }] : [])];
  return { role: "ROLE_USER", ...ids, ...refs, parts, metadata: m.metadata };
}

function request(binding: Binding, m: Msg, opts: { configuration?: J; headers?: Record<string, string>; id?: unknown } = {}): { req: Request; path: string | null } {
  const v1 = binding === "rest" || binding === "jsonrpc";
  const headers: Record<string, string> = { "Content-Type": v1 && binding === "rest" ? "application/a2a+json" : "application/json", ...(v1 ? { "A2A-Version": "1.0" } : {}), ...opts.headers };
  const params = { message: wire(binding, m), ...(opts.configuration ? { configuration: opts.configuration } : {}) };
  if (binding === "rest" || binding === "rest-0.3") {
    return { req: new Request(`${BASE}/a2a/v1/message:send`, { method: "POST", headers, body: JSON.stringify(params) }), path: "/v1/message:send" };
  }
  const body = { jsonrpc: "2.0", id: opts.id ?? 7, method: v1 ? "SendMessage" : "message/send", params };
  return { req: new Request(`${BASE}/a2a/jsonrpc`, { method: "POST", headers, body: JSON.stringify(body) }), path: null };
}

function serve(r: { req: Request; path: string | null }, handler: DefaultRequestHandler): Promise<Response> {
  return r.path ? serveRest(r.req, r.path, handler) : serveJsonRpcWith(r.req, handler);
}

/** Values that differ from one call to the next, whichever path served it. */
function mask(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/echo_(fk|bt)_[A-Za-z0-9_-]+/g, "<secret>")
    .replace(/srv_[0-9a-f]{32}/g, "srv_<id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/(\\?"(?:[a-z_]+_ms|remaining|credits_remaining|reset_seconds|expires_at|issued_at)\\?":)\s*(\\?"[^"\\]*\\?"|[0-9.]+)/g, "$1<n>")
    .replace(/dur=[0-9.]+/g, "dur=<n>");
}

async function answer(res: Response): Promise<{ text: string; body: J }> {
  const headers = ["content-type", "cache-control", "server-timing", "retry-after", "a2a-extensions", "x-a2a-extensions"].map((h) => `${h}: ${res.headers.get(h) ?? "-"}`);
  const raw = await res.text();
  return { text: mask(`${res.status}\n${headers.join("\n")}\n\n${raw}`), body: raw ? (JSON.parse(raw) as J) : {} };
}

/** The task id of an answer, whichever binding and version it came from. */
function taskIdOf(body: J): string | undefined {
  const result = (body.result ?? body) as J;
  const task = (result.task ?? (result.kind === "task" ? result : undefined)) as J | undefined;
  return typeof task?.id === "string" ? task.id : undefined;
}

/** The stored task, read back over 1.0 HTTP+JSON (GetTask) and as the row holds it. */
async function stored(id: string | undefined): Promise<string> {
  if (!id) return "no task";
  const res = await serveRest(new Request(`${BASE}/a2a/v1/tasks/${id}`, { headers: { "A2A-Version": "1.0" } }), `/v1/tasks/${id}`);
  const rows = await (await getDbHandle()).query<{ state: string; task: string }>("SELECT state, task FROM a2a_tasks WHERE id = $1", [id]);
  return `${(await answer(res)).text}\nrow: ${mask(JSON.stringify(rows))}`;
}

const sdkSends = vi.spyOn(DefaultRequestHandler.prototype, "sendMessage");
afterEach(() => {
  sdkSends.mockClear();
});

/** The same message through the SDK and through the direct path; `viaSdk` is how many the direct handler passed on to the SDK. */
async function both(make: () => { req: Request; path: string | null }): Promise<{ sdk: string; direct: string; viaSdk: number; task: string | undefined }> {
  const s = await answer(await serve(make(), a2aSdkRequestHandler()));
  const task = taskIdOf(s.body);
  const sdk = `${s.text}\n--- stored\n${await stored(taskIdOf(s.body))}`;
  sdkSends.mockClear();
  const d = await answer(await serve(make(), a2aRequestHandler()));
  const viaSdk = sdkSends.mock.calls.length;
  const direct = `${d.text}\n--- stored\n${await stored(taskIdOf(d.body))}`;
  return { sdk, direct, viaSdk, task };
}

describe("a new A2A message answered without the SDK's request handler", () => {
  let key = "";
  let bundle = "";
  beforeAll(async () => {
    key = (await mintApiKey(null)).key;
    bundle = (await mintBundle("standard", 100, null)).token;
  }, 120_000);

  const payload = Buffer.from(JSON.stringify({ x402Version: 2, payload: { signature: "0x12" } })).toString("base64");
  const cases: Array<[string, () => Msg, { configuration?: J; headers?: Record<string, string> }?]> = [
    ["a free key: completed with the artifact, its receipt and quota", () => ({ data: {}, metadata: { skill: "fng", api_key: key } })],
    ["a bundle token: completed, credits charged", () => ({ data: {}, metadata: { skill: "fng", bundle_token: bundle } })],
    ["no credential: input-required with the x402 requirement", () => ({ data: {}, metadata: { skill: "fng" } })],
    ["no data part, a text part", () => ({ text: "please", metadata: { skill: "fng", api_key: key } })],
    ["an unknown free key: input-required", () => ({ data: {}, metadata: { skill: "fng", api_key: "echo_fk_nope" } })],
    ["an unusable payment: payment-failed with a failure receipt", () => ({ data: {}, metadata: { skill: "fng", "x402.payment.payload": payload } })],
    ["bad parameters: failed with the spec 2.6 detail", () => ({ data: { hours: "abc" }, metadata: { skill: "sentiment-history", api_key: key } })],
    ["payment-rejected on a new message: canceled", () => ({ data: {}, metadata: { skill: "fng", "x402.payment.status": "payment-rejected" } })],
    ["a free skill", () => ({ data: {}, metadata: { skill: "get_xlm_sentiment" } })],
    ["minting a free key", () => ({ data: {}, metadata: { skill: "get_free_api_key" } })],
    ["a client's own contextId", () => ({ data: {}, contextId: "ctx-1", metadata: { skill: "fng", api_key: key } })],
    ["historyLength 1", () => ({ data: {}, metadata: { skill: "fng", api_key: key } }), { configuration: { historyLength: 1 } }],
    ["historyLength 0", () => ({ data: {}, metadata: { skill: "fng" } }), { configuration: { historyLength: 0 } }],
    ["returnImmediately (answered finished all the same)", () => ({ data: {}, metadata: { skill: "fng", api_key: key } }), { configuration: { returnImmediately: true, blocking: false } }],
    ["the a2a-x402 extension requested", () => ({ data: {}, metadata: { skill: "fng" } }), { headers: { "A2A-Extensions": X402, "X-A2A-Extensions": X402 } }],
    ["an extension the card does not offer requested", () => ({ data: {}, metadata: { skill: "fng", api_key: key } }), { headers: { "A2A-Extensions": "https://example.com/ext", "X-A2A-Extensions": "https://example.com/ext" } }],
  ];
  for (const binding of BINDINGS) {
    for (const [what, msg, opts] of cases) {
      it(`${binding}: ${what}: the SDK's answer, byte for byte`, async () => {
        const { sdk, direct, viaSdk, task } = await both(() => request(binding, msg(), opts));
        expect(sdk).toMatch(/^20[01]\n/);
        expect(task).toBeDefined();
        expect(viaSdk).toBe(0);
        expect(direct).toBe(sdk);
      });
    }
  }
});

describe("messages the direct path leaves to the SDK", () => {
  /** A waiting (input-required) task to continue, made through the SDK. */
  async function waitingTask(binding: Binding): Promise<string> {
    const res = await serve(request(binding, { data: {}, metadata: { skill: "fng" } }), a2aSdkRequestHandler());
    const id = taskIdOf((await answer(res)).body);
    if (!id) throw new Error("no task");
    return id;
  }

  const left: Array<[string, (b: Binding) => Promise<Msg>, Binding[]?]> = [
    ["a message continuing a task", async (b) => ({ taskId: await waitingTask(b), data: {}, metadata: { api_key: "echo_fk_nope" } })],
    // 0.3's HTTP+JSON message has no referenceTaskIds.
    ["a message referencing tasks", async () => ({ referenceTaskIds: ["r-1"], data: {}, metadata: { skill: "fng" } }), ["rest", "jsonrpc", "jsonrpc-0.3"]],
    ["a message without messageId", async () => ({ messageId: "", data: {}, metadata: { skill: "fng" } })],
    ["an unknown skill", async () => ({ data: {}, metadata: { skill: "nope" } })],
    ["no skill and no task", async () => ({ data: {}, metadata: {} })],
  ];
  for (const binding of BINDINGS) {
    for (const [what, msg, only] of left) {
      if (only && !only.includes(binding)) continue;
      it(`${binding}: ${what}: served by the SDK, the same answer either way`, async () => {
        const m = await msg(binding);
        // A follow-up changes its task: each path continues a task of its own.
        const second = m.taskId ? { ...m, taskId: await waitingTask(binding) } : m;
        const s = await answer(await serve(request(binding, m), a2aSdkRequestHandler()));
        sdkSends.mockClear();
        const d = await answer(await serve(request(binding, second), a2aRequestHandler()));
        const checked = !s.text.includes('"error"') && !/^4\d\d/.test(s.text);
        // Refused before the handler (bad message): neither reaches the SDK's sendMessage; otherwise the direct handler hands it over.
        if (checked) expect(sdkSends.mock.calls.length).toBe(1);
        expect(d.text).toBe(s.text);
      });
    }
  }
});
