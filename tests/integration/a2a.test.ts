/**
 * A2A end to end with the official @a2a-js/sdk clients against the real service and the
 * local chain. Most cases use the 0.3.14 client (A2A 0.3, served by the SDK's 0.3
 * compatibility layer); the "A2A 1.0" block runs the 1.3 client (its own 0.3
 * compatibility off, so 1.0 only) over both bindings through the card, the a2a-x402 flow,
 * replays, a 0.3 task paid in 1.0 and 1.0's errors. 0.3 cases: the card (validated against the A2A 0.3.0 JSON Schema) resolved by the
 * SDK, both bindings (HTTP+JSON and JSON-RPC), free skills, the a2a-x402 flow
 * (input-required → a real EIP-3009 payload signed by the official @x402/evm client
 * scheme → completed with the artifact and the settlement receipt, balances moved by
 * exactly the price), the replay rule across A2A, HTTP and MCP, 422 detail as a failed task,
 * bundle tokens and free keys in message metadata (recorded as A2A calls), and protocol
 * errors that are never 500. Every branch of the a2a-x402 state machine: payment-rejected
 * (canceled), a product failure or bad parameters after the payment was submitted
 * (payment-failed with a failure receipt, nothing charged, the payment still usable), an
 * exhausted free key (429); one task store for both bindings; Server-Timing; and the
 * artifact equal to the HTTP body.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Ajv from "ajv";
import type { Message, MessageSendParams, Task } from "@a2a-js/sdk-v03";
import { Client, ClientFactory, ClientFactoryOptions, JsonRpcTransport, RestTransport, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk-v03/client";
import { Role as RoleV1, TaskState as TaskStateV1 } from "@a2a-js/sdk";
import * as v1 from "@a2a-js/sdk/client";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { Keypair } from "@stellar/stellar-sdk";
import { createWalletClient, http, publicActions } from "viem";
import type { HDAccount } from "viem/accounts";
import { productById } from "@/lib/catalog/lookup";
import { usdToAtomic } from "@/lib/payments/price";
import { localBase, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { startPaidFixture } from "../helpers/paid-fixture";
import { requirementFrom } from "../helpers/payments";

type J = Record<string, any>;
const X402 = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";
const FNG = productById("fng");
const BUNDLE = productById("bundle");
const PRICE_FNG = usdToAtomic(FNG.httpPrice);

let chain: Chain;
let fx: Fixture;
let payer: HDAccount;
let payTo: HDAccount;
let rest: Client;
let rpc: Client;
let signer: x402Client;

/** A user message naming `skill` (new task) or continuing `taskId`. */
function message(opts: { skill?: string; data?: J; metadata?: J; taskId?: string }): MessageSendParams {
  const m: Message = {
    kind: "message",
    role: "user",
    messageId: randomUUID(),
    parts: opts.data ? [{ kind: "data", data: opts.data }] : [{ kind: "text", text: "please" }],
    metadata: { ...(opts.skill ? { skill: opts.skill } : {}), ...opts.metadata },
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
  };
  return { message: m };
}

const x402Options = { serviceParameters: ServiceParameters.create(withA2AExtensions(X402)) };

async function send(client: Client, params: MessageSendParams): Promise<Task> {
  const r = await client.sendMessage(params, x402Options);
  if (r.kind !== "task") throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
}

const meta = (t: Task): J => (t.status.message?.metadata ?? {}) as J;
const artifactData = (t: Task): J => (t.artifacts?.[0]?.parts[0] as { kind: "data"; data: J }).data;
const statusData = (t: Task): J => (t.status.message?.parts.find((p) => p.kind === "data") as { data: J } | undefined)?.data ?? {};

beforeAll(async () => {
  ({ chain, fx, payer, payTo } = await startPaidFixture({ FREE_KEY_MINTS_PER_HOUR: "100" }));
  rest = await new ClientFactory().createFromUrl(fx.svc.url);
  rpc = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] })).createFromUrl(fx.svc.url);
  const wallet = createWalletClient({ account: payer, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
  signer = new x402Client();
  registerExactEvmScheme(signer, { signer: toClientEvmSigner(payer, wallet as never) });
}, 240_000);

afterAll(async () => {
  await fx?.close();
  await chain?.stop();
});

describe("A2A agent card", () => {
  it("validates against the A2A 0.3.0 JSON Schema and declares HTTP+JSON, JSON-RPC and the a2a-x402 extension", async () => {
    const card = (await fx.json("/.well-known/agent-card.json")).body;
    const schema = JSON.parse(readFileSync(new URL("../fixtures/a2a-0.3.0.schema.json", import.meta.url), "utf8"));
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile({ $ref: "#/definitions/AgentCard", definitions: schema.definitions });
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    const base = fx.svc.url;
    expect(card).toMatchObject({ protocolVersion: "0.3.0", url: `${base}/a2a`, preferredTransport: "HTTP+JSON" });
    expect(card.additionalInterfaces).toEqual([
      { url: `${base}/a2a`, transport: "HTTP+JSON" },
      { url: `${base}/a2a/jsonrpc`, transport: "JSONRPC" },
    ]);
    expect(card.capabilities.extensions).toEqual([expect.objectContaining({ uri: X402, required: false })]);
    expect(card.skills.map((s: J) => s.id)).toEqual(expect.arrayContaining(["get_xlm_sentiment", "get_free_api_key", "fng", "bundle"]));
    // Opening either URL in a browser or with GET describes the server instead of failing.
    for (const path of ["/a2a", "/a2a/jsonrpc"]) {
      const about = await fx.json(path);
      expect(about.status, path).toBe(200);
      expect(about.body.interfaces.map((i: J) => i.url)).toEqual([`${base}/a2a`, `${base}/a2a/jsonrpc`]);
    }
  });

  it("the SDK resolves the card and picks the HTTP+JSON binding by default, JSON-RPC on request", () => {
    expect(rest.transport).toBeInstanceOf(RestTransport);
    expect(rpc.transport).toBeInstanceOf(JsonRpcTransport);
  });
});

describe("A2A free skills", () => {
  it("the sentiment snapshot completes without payment on both bindings", async () => {
    for (const client of [rest, rpc]) {
      const t = await send(client, message({ skill: "get_xlm_sentiment" }));
      expect(t.status.state).toBe("completed");
      expect(artifactData(t)).toMatchObject({ sentiment: expect.any(Number), sentiment_source: expect.any(String), ts: expect.any(String) });
    }
  });

  it("the free key skill mints a key that pays for a standard skill (metadata api_key), counted against its quota", async () => {
    const minted = await send(rpc, message({ skill: "get_free_api_key", data: { email: "a2a@example.com" } }));
    expect(minted.status.state).toBe("completed");
    const key = artifactData(minted).api_key as string;
    expect(key).toMatch(/^echo_fk_/);
    const t = await send(rest, message({ skill: "fng", metadata: { api_key: key } }));
    expect(t.status.state, JSON.stringify(t.status)).toBe("completed");
    expect(FNG.output.safeParse(artifactData(t)).success).toBe(true);
    expect(meta(t)["echo.access"]).toMatchObject({ credential: "api_key", receipt_id: expect.any(String), quota: { remaining: 49 } });
    // The key is not echoed back, neither in the answer nor in the stored task.
    const stored = await rest.getTask({ id: t.id, historyLength: 10 });
    expect(JSON.stringify(t)).not.toContain(key);
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(stored.status.state).toBe("completed");
    // The ledger records the call as an A2A call (at the HTTP price, like every A2A call).
    const usage = (await fx.json("/v1/usage", { headers: { "X-Api-Key": key } })).body as J;
    expect(usage.recent[0]).toMatchObject({ product: "fng", surface: "a2a" });
  });
});

describe("A2A non-blocking requests", () => {
  it("configuration.blocking=false still answers the finished task (the call, its charge and its result happen within the request, on both bindings)", async () => {
    const key = (await fx.json("/v1/free-key")).body.api_key as string;
    for (const client of [rest, rpc]) {
      const params = { ...message({ skill: "fng", metadata: { api_key: key } }), configuration: { blocking: false } };
      const t = await send(client, params);
      expect(t.status.state, JSON.stringify(t.status)).toBe("completed");
      expect(FNG.output.safeParse(artifactData(t)).success).toBe(true);
      expect(meta(t)["echo.access"]).toMatchObject({ credential: "api_key", receipt_id: expect.any(String) });
    }
  });
});

describe("A2A x402 payments", () => {
  it("input-required carries the same offers as the HTTP 402; a signed payload completes the task with the artifact and the receipt; the payer pays exactly the price", async () => {
    const first = await send(rest, message({ skill: "fng" }));
    expect(first.status.state).toBe("input-required");
    expect(meta(first)["x402.payment.status"]).toBe("payment-required");
    const required = meta(first)["x402.payment.required"];
    const http402 = requirementFrom(await fx.get("/v1/fng"));
    expect(required).toMatchObject({ x402Version: 2, accepts: http402.accepts });
    expect(required.accepts[0]).toMatchObject({ amount: PRICE_FNG.toString(), payTo: payTo.address });

    const before = await chain.usdcBalance(payer.address);
    const payload = await signer.createPaymentPayload(required);
    const done = await send(rest, message({ taskId: first.id, metadata: { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload } }));
    expect(done.id).toBe(first.id);
    expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
    const answer = artifactData(done);
    expect(FNG.output.safeParse(answer).success).toBe(true);
    const httpAnswer = await (await fx.get("/v1/fng", { headers: { "X-Api-Key": await mintKey() } })).json();
    expect(Object.keys(answer).sort()).toEqual(Object.keys(httpAnswer).sort());
    expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
    const [receipt] = meta(done)["x402.payment.receipts"];
    expect(receipt).toMatchObject({ success: true, network: "eip155:8453" });
    expect(receipt.payer.toLowerCase()).toBe(payer.address.toLowerCase());
    const tx = await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction });
    expect(tx.status).toBe("success");
    expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
    // The signed payload is not echoed back.
    expect(JSON.stringify(done)).not.toContain(payload.payload.signature as string);
  });

  it("a payment presented again, over A2A or over HTTP, gets the answer it got (data and receipt); one used over HTTP, presented over A2A, likewise; nothing more is charged", async () => {
    const first = await send(rpc, message({ skill: "fng" }));
    const required = meta(first)["x402.payment.required"];
    const payload = await signer.createPaymentPayload(required);
    const paid = await send(rpc, message({ taskId: first.id, metadata: { "x402.payment.payload": payload } }));
    expect(paid.status.state).toBe("completed");
    const before = await chain.usdcBalance(payer.address);

    const again = await send(rest, message({ skill: "fng", metadata: { "x402.payment.payload": payload } }));
    expect(again.status.state, JSON.stringify(again.status)).toBe("completed");
    expect(meta(again)["x402.payment.status"]).toBe("payment-completed");
    expect(meta(again)["x402.payment.receipts"]).toEqual(meta(paid)["x402.payment.receipts"]);
    expect(artifactData(again)).toEqual(artifactData(paid));

    const overHttp = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(payload)).toString("base64") } });
    expect(overHttp.status, await overHttp.clone().text()).toBe(200);
    expect(overHttp.headers.get("idempotent-replayed")).toBe("true");
    expect(await overHttp.json()).toEqual(artifactData(paid));

    const httpPayload = await signer.createPaymentPayload(required);
    const viaHttp = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(httpPayload)).toString("base64") } });
    expect(viaHttp.status, await viaHttp.clone().text()).toBe(200);
    const thenA2a = await send(rest, message({ skill: "fng", metadata: { "x402.payment.payload": httpPayload } }));
    expect(thenA2a.status.state).toBe("completed");
    expect(artifactData(thenA2a)).toEqual(await viaHttp.json());
    expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);

    // A payload sent with the first message needs no input-required round trip.
    const once = await send(rest, message({ skill: "fng", metadata: { "x402.payment.payload": await signer.createPaymentPayload(required) } }));
    expect(once.status.state, JSON.stringify(once.status)).toBe("completed");
    expect(meta(once)["x402.payment.receipts"]).toHaveLength(1);
    expect(before - (await chain.usdcBalance(payer.address))).toBe(2n * PRICE_FNG);
  });

  it("buys a bundle over A2A, then pays a premium skill with its token from message metadata", async () => {
    const first = await send(rest, message({ skill: "bundle" }));
    expect(meta(first)["x402.payment.required"].accepts[0].amount).toBe(usdToAtomic(BUNDLE.httpPrice).toString());
    const bought = await send(rest, message({ taskId: first.id, metadata: { "x402.payment.payload": await signer.createPaymentPayload(meta(first)["x402.payment.required"]) } }));
    expect(bought.status.state, JSON.stringify(bought.status)).toBe("completed");
    const token = artifactData(bought).bundle_token as string;
    expect(token).toMatch(/^echo_bt_/);
    const report = await send(rpc, message({ skill: "sentiment-report", metadata: { bundle_token: token } }));
    expect(report.status.state, JSON.stringify(report.status)).toBe("completed");
    expect(meta(report)["echo.access"]).toMatchObject({ credential: "bundle", bundle: { credits_charged: 2, credits_remaining: 8 } });
    const usage = (await fx.json("/v1/usage", { headers: { "X-Bundle-Token": token } })).body as J;
    expect(usage.recent[0]).toMatchObject({ product: "sentiment-report", surface: "a2a", credits: 2 });
    expect(JSON.stringify(await rpc.getTask({ id: report.id, historyLength: 10 }))).not.toContain(token);
  });
});

describe("A2A x402 flow: every branch of the a2a-x402 state machine", () => {
  const submitted = (payload: unknown) => ({ "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });

  it("a task created over JSON-RPC is paid over HTTP+JSON: both bindings share one task store", async () => {
    const first = await send(rpc, message({ skill: "fng" }));
    expect(first.status.state).toBe("input-required");
    const before = await chain.usdcBalance(payer.address);
    const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
    const done = await send(rest, message({ taskId: first.id, metadata: submitted(payload) }));
    expect(done.id).toBe(first.id);
    expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
    expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
    expect((await rpc.getTask({ id: first.id })).status.state).toBe("completed");
    expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
  });

  it("cancel: the SDK client's cancelTask({id}) over HTTP+JSON (a POST with no body) and over JSON-RPC cancels an input-required task; a finished task is not cancelable", async () => {
    for (const client of [rest, rpc]) {
      const first = await send(client, message({ skill: "fng" }));
      expect(first.status.state).toBe("input-required");
      const canceled = await client.cancelTask({ id: first.id });
      expect(canceled.status.state).toBe("canceled");
      expect((await client.getTask({ id: first.id })).status.state).toBe("canceled");
      await expect(client.cancelTask({ id: first.id })).rejects.toThrow(/cancel/i);
    }
    // The raw form the 0.3 client sends: JSON content type, no body at all.
    const t = await send(rest, message({ skill: "fng" }));
    const raw = await fetch(`${fx.svc.url}/a2a/v1/tasks/${t.id}:cancel`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(raw.status, await raw.clone().text()).toBeLessThan(300);
    // The HTTP+JSON binding writes the protobuf JSON form of the state.
    expect(((await raw.json()) as J).status.state).toBe("TASK_STATE_CANCELLED");
    const unknown = await fetch(`${fx.svc.url}/a2a/v1/tasks/${randomUUID()}:cancel`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(unknown.status).toBe(404);
    // message:send still needs its body.
    const noBody = await fetch(`${fx.svc.url}/a2a/v1/message:send`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(noBody.status).toBe(400);
  });

  it("a follow-up naming another skill, or other parameters, is refused (start a new task); the task still takes its own payment", async () => {
    const first = await send(rest, message({ skill: "fng" }));
    expect(first.status.state).toBe("input-required");
    const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
    const before = await chain.usdcBalance(payer.address);
    for (const client of [rest, rpc]) {
      await expect(client.sendMessage(message({ taskId: first.id, skill: "sentiment-report", metadata: submitted(payload) }), x402Options)).rejects.toThrow(/calls skill "fng"; this message names "sentiment-report"/);
      await expect(client.sendMessage(message({ taskId: first.id, skill: "prediction", data: { limit: 3 }, metadata: submitted(payload) }), x402Options)).rejects.toThrow(/without taskId/);
    }
    await expect(rest.sendMessage(message({ taskId: first.id, data: { limit: 3 }, metadata: submitted(payload) }), x402Options)).rejects.toThrow(/other/);
    expect(await chain.usdcBalance(payer.address)).toBe(before);
    expect((await rest.getTask({ id: first.id })).status.state).toBe("input-required");
    // Naming the task's own skill again is fine.
    const done = await send(rpc, message({ taskId: first.id, skill: "fng", metadata: submitted(payload) }));
    expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
    expect(FNG.output.safeParse(artifactData(done)).success).toBe(true);
    expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
  });

  it("payment-rejected: the client declines, the task ends canceled with its (empty) receipts, nothing is charged", async () => {
    const first = await send(rest, message({ skill: "fng" }));
    const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
    const before = await chain.usdcBalance(payer.address);
    const rejected = await send(rest, message({ taskId: first.id, metadata: { "x402.payment.status": "payment-rejected" } }));
    expect(rejected.id).toBe(first.id);
    expect(rejected.status.state).toBe("canceled");
    expect(meta(rejected)).toEqual({ "x402.payment.status": "payment-rejected", "x402.payment.receipts": [] });
    expect(rejected.artifacts ?? []).toHaveLength(0);
    // Canceled is final: the task takes no payment afterwards.
    await expect(rest.sendMessage(message({ taskId: first.id, metadata: submitted(payload) }), x402Options)).rejects.toThrow();
    expect(await chain.usdcBalance(payer.address)).toBe(before);
  });

  it("a product failure after the payment was submitted: failed task, payment-failed with a failure receipt, nothing charged, the payment still usable", async () => {
    const first = await send(rest, message({ skill: "fng" }));
    const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
    const before = await chain.usdcBalance(payer.address);
    fx.sim.setFault("alternative", { mode: "error", status: 500 });
    let failed: Task;
    try {
      failed = await send(rest, message({ taskId: first.id, metadata: submitted(payload) }));
    } finally {
      fx.sim.clearFaults();
    }
    expect(failed.status.state).toBe("failed");
    expect(meta(failed)).toMatchObject({ "x402.payment.status": "payment-failed", "x402.payment.error": "UPSTREAM_UNAVAILABLE", "echo.error": { code: "upstream_unavailable", status: 503 } });
    const receipts = meta(failed)["x402.payment.receipts"] as J[];
    expect(receipts).toEqual([{ success: false, errorReason: expect.stringMatching(/\S/), transaction: "", network: "eip155:8453", payer: expect.any(String) }]);
    expect(receipts[0]!.payer.toLowerCase()).toBe(payer.address.toLowerCase());
    expect(failed.artifacts ?? []).toHaveLength(0);
    expect(await chain.usdcBalance(payer.address)).toBe(before);
    // Released, not spent: the same signed payment pays a new task once the upstream is back.
    const again = await send(rest, message({ skill: "fng", metadata: submitted(payload) }));
    expect(again.status.state, JSON.stringify(again.status)).toBe("completed");
    expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
  });

  it("a paid message with bad parameters fails with payment-failed (INVALID_REQUEST) and the 422 detail; the payment is not used", async () => {
    const pending = await send(rest, message({ skill: "prediction" }));
    expect(pending.status.state).toBe("input-required");
    const payload = await signer.createPaymentPayload(meta(pending)["x402.payment.required"]);
    const before = await chain.usdcBalance(payer.address);
    const bad = await send(rest, message({ skill: "prediction", data: { limit: 999 }, metadata: submitted(payload) }));
    expect(bad.status.state).toBe("failed");
    expect(meta(bad)).toMatchObject({ "x402.payment.status": "payment-failed", "x402.payment.error": "INVALID_REQUEST", "echo.error": { code: "validation_error", status: 422 } });
    expect(meta(bad)["x402.payment.receipts"]).toEqual([expect.objectContaining({ success: false, transaction: "", network: "eip155:8453" })]);
    expect(statusData(bad).detail[0].loc).toEqual(["data", "limit"]);
    expect(await chain.usdcBalance(payer.address)).toBe(before);
    const paid = await send(rest, message({ taskId: pending.id, metadata: submitted(payload) }));
    expect(paid.status.state, JSON.stringify(paid.status)).toBe("completed");
  });

  it("a payment used over MCP, presented over A2A, gets the answer it got over MCP (one rule for every surface), logged as a replay naming the payment", async () => {
    const mcp = async (id: number, meta?: J) =>
      (
        await fx.json("/mcp", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {}, ...(meta ? { _meta: meta } : {}) } }),
        })
      ).body.result as J;
    const required = (await mcp(1)).structuredContent;
    // fng costs the same over MCP and HTTP ($0.01): only the replay rule can refuse it over A2A.
    expect(required.accepts[0].amount).toBe(PRICE_FNG.toString());
    const payload = await signer.createPaymentPayload(required);
    const paid = await mcp(2, { "x402/payment": payload });
    expect(paid.isError, JSON.stringify(paid).slice(0, 400)).toBeFalsy();
    const before = await chain.usdcBalance(payer.address);
    const logsBefore = fx.svc.logs().length;
    const replay = await send(rest, message({ skill: "fng", metadata: submitted(payload) }));
    expect(replay.status.state).toBe("completed");
    expect(meta(replay)["x402.payment.receipts"]).toEqual([paid._meta["x402/payment-response"]]);
    expect(artifactData(replay)).toEqual(paid.structuredContent);
    expect(await chain.usdcBalance(payer.address)).toBe(before);
    const line = fx.svc.logs().slice(logsBefore).split("\n").find((l) => l.includes('"payment.replayed"'));
    const authorization = (payload.payload as { authorization: { from: string; nonce: string } }).authorization;
    expect(JSON.parse(line!)).toMatchObject({ surface: "a2a", product: "fng", method: "evm-exact", reference: `${authorization.from.toLowerCase()}:${authorization.nonce.toLowerCase()}` });
    expect(line).not.toContain(payload.payload.signature as string);
  });

  it("an exhausted free key answers 429 with when its quota resets, and the task still takes a payment", async () => {
    const key = await mintKey();
    for (let i = 0; i < 50; i++) expect((await fx.get("/v1/fng", { headers: { "X-Api-Key": key } })).status).toBe(200);
    const t = await send(rest, message({ skill: "fng", metadata: { api_key: key } }));
    expect(t.status.state).toBe("input-required");
    const error = meta(t)["echo.error"];
    expect(error).toMatchObject({ code: "quota_exhausted", status: 429 });
    expect(error.retry_after_seconds).toBeGreaterThan(0);
    expect(t.status.message?.parts[0]).toMatchObject({ kind: "text", text: expect.stringMatching(/resets in \d+ s/) });
    expect(meta(t)["x402.payment.status"]).toBe("payment-required");
    const paid = await send(rest, message({ taskId: t.id, metadata: submitted(await signer.createPaymentPayload(meta(t)["x402.payment.required"])) }));
    expect(paid.status.state, JSON.stringify(paid.status)).toBe("completed");
  });

  it("the refusal's instruction speaks A2A: metadata keys, never HTTP headers", async () => {
    const t = await send(rest, message({ skill: "fng" }));
    const text = (t.status.message?.parts[0] as { text: string }).text;
    for (const key of ['metadata["x402.payment.payload"]', 'metadata["bundle_token"]', 'metadata["api_key"]']) expect(text).toContain(key);
    for (const header of ["PAYMENT-SIGNATURE", "X-PAYMENT", "X-Bundle-Token", "X-Api-Key"]) expect(text).not.toContain(header);
  });

  it("a message with a paid call answers Server-Timing (verification, handler, settlement) on both bindings, and echo.timing in its metadata", async () => {
    const rpcSend = (params: MessageSendParams) =>
      fetch(`${fx.svc.url}/a2a/jsonrpc`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params }) });
    const first = await rpcSend(message({ skill: "fng" }));
    expect(first.headers.get("server-timing")).toMatch(/^verify;desc="credential check";dur=[\d.]+$/);
    const task = (await first.json()).result as Task;
    const payload = await signer.createPaymentPayload(meta(task)["x402.payment.required"]);
    const paid = await rpcSend(message({ taskId: task.id, metadata: submitted(payload) }));
    const timing = paid.headers.get("server-timing")!;
    for (const phase of ["verify", "handler", "settle"]) expect(timing).toMatch(new RegExp(`${phase};(desc="[^"]*";)?dur=\\d+(\\.\\d+)?`));
    const done = (await paid.json()).result as Task;
    expect(done.status.state).toBe("completed");
    expect(meta(done)["echo.timing"]).toEqual({ verify_ms: expect.any(Number), handler_ms: expect.any(Number), settle_ms: expect.any(Number) });
    // HTTP+JSON: a refusal timed too; a free skill runs no gate, so no header.
    const restSend = (body: unknown) => fetch(`${fx.svc.url}/a2a/v1/message:send`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const restMessage = (skill: string) => ({ message: { messageId: randomUUID(), role: "ROLE_USER", content: [{ text: "please" }], metadata: { skill } } });
    const refused = await restSend(restMessage("fng"));
    // The SDK's REST router answers message:send with 201 (a task was created).
    expect(refused.status, await refused.clone().text()).toBe(201);
    expect(refused.headers.get("server-timing")).toMatch(/^verify;/);
    const free = await restSend(restMessage("get_xlm_sentiment"));
    expect(free.status).toBe(201);
    expect(free.headers.get("server-timing")).toBeNull();
  });
});

describe("A2A errors", () => {
  it("bad parameters give a failed task carrying the same spec 2.6 detail as the HTTP 422, and charge nothing", async () => {
    const t = await send(rest, message({ skill: "prediction", data: { limit: 999 } }));
    expect(t.status.state).toBe("failed");
    const http = await fx.json("/v1/prediction?limit=999");
    expect(http.status).toBe(422);
    const detail = statusData(t).detail as J[];
    expect(detail).toEqual(http.body.detail.map((d: J) => ({ ...d, loc: ["data", ...d.loc.slice(1)] })));
    expect(meta(t)["echo.error"]).toMatchObject({ code: "validation_error", status: 422 });
  });

  it("an unknown skill, a missing skill and malformed parts are A2A errors from the SDK client", async () => {
    await expect(rest.sendMessage(message({ skill: "nope" }))).rejects.toThrow(/Unknown skill "nope"/);
    await expect(rpc.sendMessage(message({ skill: "nope" }))).rejects.toThrow(/Unknown skill "nope"/);
    await expect(rpc.sendMessage(message({}))).rejects.toThrow(/Name the skill/);
    await expect(rpc.sendMessage(message({ taskId: randomUUID(), metadata: { api_key: "x" } }))).rejects.toThrow(/not found/i);
  });

  it("raw malformed, oversized and unknown requests answer A2A errors, never 500", async () => {
    const post = (path: string, body: string) => fetch(`${fx.svc.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const rpcCall = (params: unknown) => post("/a2a/jsonrpc", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params }));

    const badParts = await (await rpcCall({ message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "data", data: [1, 2] }], metadata: { skill: "fng" } } })).json();
    expect(badParts.error).toMatchObject({ code: -32602, message: expect.stringMatching(/data must be a JSON object/) });
    const notParts = await (await rpcCall({ message: { kind: "message", role: "user", messageId: "m2", parts: "fng" } })).json();
    expect(notParts.error.code).toBe(-32602);
    const badPayload = await (await rpcCall({ message: { kind: "message", role: "user", messageId: "m3", parts: [], metadata: { skill: "fng", "x402.payment.payload": 42 } } })).json();
    expect(badPayload.error).toMatchObject({ code: -32602, message: expect.stringMatching(/PaymentPayload/) });

    const big = await post("/a2a/jsonrpc", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { pad: "x".repeat(70_000) } }));
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe(-32600);
    const bigRest = await post("/a2a/v1/message:send", JSON.stringify({ pad: "x".repeat(70_000) }));
    expect(bigRest.status).toBe(413);

    const garbage = await post("/a2a/jsonrpc", "{not json");
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).error.code).toBe(-32700);
    const restGarbage = await post("/a2a/v1/message:send", "{not json");
    expect(restGarbage.status).toBe(400);

    const restBadPart = await post("/a2a/v1/message:send", JSON.stringify({ message: { messageId: "m4", role: "ROLE_USER", content: [{}], metadata: { skill: "fng" } } }));
    expect(restBadPart.status).toBe(400);
    const restNoMessage = await post("/a2a/v1/message:send", JSON.stringify({}));
    expect(restNoMessage.status).toBe(400);
    const unknownMethod = await (await post("/a2a/jsonrpc", JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/explode", params: {} }))).json();
    expect(unknownMethod.error.code).toBe(-32601);
    expect((await fetch(`${fx.svc.url}/a2a/v1/nothing-here`)).status).toBe(404);
    expect((await fetch(`${fx.svc.url}/a2a/v1/tasks/${randomUUID()}`)).status).toBe(404);
    const stream = await post("/a2a/v1/message:stream", JSON.stringify({ message: { messageId: "m5", role: "ROLE_USER", content: [{ text: "hi" }], metadata: { skill: "fng" } } }));
    expect(stream.status).toBe(400);
  });

  it("echoes the a2a-x402 extension header when the client activates it", async () => {
    const res = await fetch(`${fx.svc.url}/a2a/jsonrpc`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-A2A-Extensions": X402 },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: message({ skill: "fng" }) }),
    });
    expect(res.headers.get("x-a2a-extensions")).toBe(X402);
    const body = await res.json();
    expect(body.result.status.state).toBe("input-required");
    expect(body.result.status.message.metadata["x402.payment.required"]).toMatchObject({ x402Version: 2 });
  });
});

async function mintKey(): Promise<string> {
  return (await fx.json("/v1/free-key")).body.api_key as string;
}

describe("A2A answers hold the HTTP answer", () => {
  let cached: Fixture;
  let client: Client;
  beforeAll(async () => {
    // The response cache on (the paid fixture turns it off): the HTTP call and the skill
    // call within its TTL read the same value, so the two answers can be compared whole.
    cached = await startFixture({});
    client = await new ClientFactory().createFromUrl(cached.svc.url);
  }, 120_000);
  afterAll(async () => cached?.close());

  it("the artifact's JSON deep-equals the HTTP body for the same product and parameters", async () => {
    const key = (await cached.json("/v1/free-key")).body.api_key as string;
    const cases: Array<[string, string, J]> = [
      ["fng", "/v1/fng", {}],
      ["screen", "/v1/screen?tickers=XLM-USD,BTC-USD&period=1mo", { tickers: "XLM-USD,BTC-USD", period: "1mo" }],
    ];
    for (const [skill, path, data] of cases) {
      const res = await cached.get(path, { headers: { "X-Api-Key": key } });
      expect(res.status, path).toBe(200);
      const body = await res.json();
      const t = await send(client, message({ skill, data, metadata: { api_key: key } }));
      expect(t.status.state, JSON.stringify(t.status)).toBe("completed");
      expect(artifactData(t), skill).toEqual(body);
    }
  });
});

describe("A2A 1.0: the official 1.x client (its 0.3 compatibility off) and raw 1.0 requests", () => {
  type V1Task = { id: string; status: { state: number; message?: { metadata?: J; parts: J[] } }; artifacts: Array<{ parts: J[] }> };
  const options = { serviceParameters: v1.ServiceParameters.create(v1.withA2AExtensions(X402)) };
  const clients: Array<[string, v1.Client]> = [];
  beforeAll(async () => {
    for (const preferred of ["HTTP+JSON", "JSONRPC"]) {
      const factory = new v1.ClientFactory(
        v1.ClientFactoryOptions.createFrom(v1.ClientFactoryOptions.default, {
          transports: [new v1.JsonRpcTransportFactory(), new v1.RestTransportFactory()],
          cardResolver: new v1.DefaultAgentCardResolver(),
          preferredTransports: [preferred],
        }),
      );
      clients.push([preferred, await factory.createFromUrl(fx.svc.url)]);
    }
  });
  const send1 = async (client: v1.Client, opts: { skill?: string; data?: J; metadata?: J; taskId?: string }): Promise<V1Task> => {
    const part = opts.data ? { content: { $case: "data" as const, value: opts.data } } : { content: { $case: "text" as const, value: "please" } };
    const message = {
      messageId: randomUUID(),
      contextId: "",
      taskId: opts.taskId ?? "",
      role: RoleV1.ROLE_USER,
      parts: [{ ...part, metadata: undefined, filename: "", mediaType: "" }],
      metadata: { ...(opts.skill ? { skill: opts.skill } : {}), ...opts.metadata },
      extensions: [],
      referenceTaskIds: [],
    };
    const r = (await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined } as never, options)) as unknown as V1Task;
    if (!r.status) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
    return r;
  };
  const meta1 = (t: V1Task): J => t.status.message?.metadata ?? {};
  const data1 = (t: V1Task): J => t.artifacts[0]?.parts[0]?.content?.value as J;

  it("the card is chosen by A2A-Version: 1.0 gets the 1.0 card, no header the 0.3 card (Vary: A2A-Version)", async () => {
    const res1 = await fetch(`${fx.svc.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(res1.headers.get("vary")).toMatch(/A2A-Version/i);
    const card1 = (await res1.json()) as J;
    expect(card1.protocolVersion).toBeUndefined();
    expect(card1.supportedInterfaces).toEqual(expect.arrayContaining([{ url: `${fx.svc.url}/a2a/v1`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }]));
    const card03 = (await fx.json("/.well-known/agent-card.json")).body;
    expect(card03.protocolVersion).toBe("0.3.0");
    expect(card03.supportedInterfaces).toEqual(card1.supportedInterfaces);
  });

  it("free and paid skills on both bindings: input-required with the x402 requirement, the signed payload on the task completes it with the artifact and the receipt, charged once", async () => {
    for (const [binding, client] of clients) {
      const free = await send1(client, { skill: "get_xlm_sentiment" });
      expect(free.status.state, binding).toBe(TaskStateV1.TASK_STATE_COMPLETED);
      expect(data1(free)).toMatchObject({ sentiment: expect.any(Number) });

      const first = await send1(client, { skill: "fng" });
      expect(first.status.state, binding).toBe(TaskStateV1.TASK_STATE_INPUT_REQUIRED);
      expect(meta1(first)["x402.payment.status"]).toBe("payment-required");
      const required = meta1(first)["x402.payment.required"];
      expect(required.accepts[0]).toMatchObject({ amount: PRICE_FNG.toString(), payTo: payTo.address });
      const before = await chain.usdcBalance(payer.address);
      const payload = await signer.createPaymentPayload(required);
      const done = await send1(client, { taskId: first.id, metadata: { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload } });
      expect(done.status.state, JSON.stringify(done.status)).toBe(TaskStateV1.TASK_STATE_COMPLETED);
      expect(FNG.output.safeParse(data1(done)).success).toBe(true);
      expect(meta1(done)["x402.payment.status"]).toBe("payment-completed");
      expect(meta1(done)["x402.payment.receipts"][0]).toMatchObject({ success: true, network: "eip155:8453" });
      expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
      expect(JSON.stringify(done)).not.toContain(payload.payload.signature as string);
      // Presented again on a new task: the kept answer, nothing more charged.
      const again = await send1(client, { skill: "fng", metadata: { "x402.payment.payload": payload } });
      expect(meta1(again)["x402.payment.receipts"]).toEqual(meta1(done)["x402.payment.receipts"]);
      expect(before - (await chain.usdcBalance(payer.address))).toBe(PRICE_FNG);
      // Read back; a finished task takes no more messages and cannot be canceled.
      const stored = (await client.getTask({ tenant: "", id: done.id, historyLength: 10 } as never)) as unknown as V1Task;
      expect(stored.status.state).toBe(TaskStateV1.TASK_STATE_COMPLETED);
      await expect(client.cancelTask({ tenant: "", id: done.id, metadata: undefined } as never)).rejects.toThrow(/cancel/i);
      await expect(send1(client, { taskId: done.id, metadata: { api_key: "echo_fk_x" } })).rejects.toThrow(/terminal/i);
    }
  });

  it("a task created in 0.3 is paid in 1.0 (one task store, one task)", async () => {
    const first = await send(rpc, message({ skill: "fng" }));
    const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
    const done = await send1(clients[0]![1], { taskId: first.id, metadata: { "x402.payment.payload": payload } });
    expect(done.id).toBe(first.id);
    expect(done.status.state).toBe(TaskStateV1.TASK_STATE_COMPLETED);
    expect((await rest.getTask({ id: first.id })).status.state).toBe("completed");
  });

  it("errors in 1.0's terms: unknown skill and malformed parts (-32602 / 400 INVALID_ARGUMENT), an unsupported A2A-Version, unknown task, never 500", async () => {
    for (const [, client] of clients) {
      await expect(send1(client, { skill: "nope" })).rejects.toThrow(/Unknown skill "nope"/);
      await expect(send1(client, { skill: "fng", data: { hours: "x" } }).then((t) => t.status.state)).resolves.toBe(TaskStateV1.TASK_STATE_FAILED);
    }
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${fx.svc.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", "A2A-Version": "1.0", ...headers }, body: JSON.stringify(body) });
    const badData = await post("/a2a/v1/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [{ data: [1, 2] }], metadata: { skill: "fng" } } });
    expect(badData.status).toBe(400);
    expect(((await badData.json()) as J).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.stringMatching(/JSON object/) });
    const rpcBad = (await (await post("/a2a/jsonrpc", { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }], metadata: { skill: "nope" } } } })).json()) as J;
    expect(rpcBad.error.code).toBe(-32602);
    const version = await post("/a2a/v1/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [], metadata: { skill: "fng" } } }, { "A2A-Version": "9.0" });
    expect(version.status).toBe(400);
    const missing = await fetch(`${fx.svc.url}/a2a/v1/tasks/${randomUUID()}`, { headers: { "A2A-Version": "1.0" } });
    expect(missing.status).toBe(404);
    const list = (await (await post("/a2a/jsonrpc", { jsonrpc: "2.0", id: 2, method: "ListTasks", params: {} })).json()) as J;
    expect(list.error.code).toBe(-32004);
    // The extension is echoed in 1.0's header.
    const ext = await post("/a2a/v1/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [], metadata: { skill: "get_xlm_sentiment" } } }, { "A2A-Extensions": X402 });
    expect(ext.status).toBe(200);
    expect(ext.headers.get("a2a-extensions")).toBe(X402);
    expect(((await ext.json()) as J).task.status.state).toBe("TASK_STATE_COMPLETED");
  });
});

describe("A2A on an instance whose only per-call method is XLM (which A2A cannot carry)", () => {
  let xlmOnly: Fixture;
  let client: Client;
  beforeAll(async () => {
    xlmOnly = await startFixture({ env: { PAY_TO_ADDRESS: undefined, FACILITATOR_URL: undefined, FACILITATOR_PRIVATE_KEY: undefined, SOLANA_PAY_TO_ADDRESS: undefined, STELLAR_PAY_TO_ADDRESS: Keypair.random().publicKey() } });
    client = await new ClientFactory().createFromUrl(xlmOnly.svc.url);
  }, 120_000);
  afterAll(async () => xlmOnly?.close());

  it("a paid skill waits for a bundle token or a key, with no x402 keys (never a null requirement); a bundle purchase fails saying where to buy", async () => {
    const t = await send(client, message({ skill: "fng" }));
    expect(t.status.state).toBe("input-required");
    expect(Object.keys(meta(t)).filter((k) => k.startsWith("x402."))).toEqual([]);
    expect(meta(t)["echo.error"]).toMatchObject({ code: "payment_required", status: 402 });
    const text = (t.status.message?.parts[0] as { text: string }).text;
    expect(text).toMatch(/Per-call payment is not available over A2A on this instance \(native XLM on stellar:pubnet is accepted over HTTP and MCP only\)/);
    expect(text).toContain('metadata["bundle_token"]');
    expect(text).toContain('metadata["api_key"]');
    // The key it names works on the same task.
    const key = (await xlmOnly.json("/v1/free-key")).body.api_key as string;
    const done = await send(client, message({ taskId: t.id, metadata: { api_key: key } }));
    expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
    // Over HTTP the same instance offers XLM.
    expect((await xlmOnly.json("/v1/fng")).body.instruction).toMatch(/native XLM/);
    const bundle = await send(client, message({ skill: "bundle" }));
    expect(bundle.status.state).toBe("failed");
    expect(Object.keys(meta(bundle)).filter((k) => k.startsWith("x402."))).toEqual([]);
    expect((bundle.status.message?.parts[0] as { text: string }).text).toContain(`Buy ${BUNDLE.path} over HTTP or MCP.`);
  });
});
