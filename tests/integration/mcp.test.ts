/**
 * The MCP server at /mcp end to end: the official SDK client over streamable HTTP
 * against the real service (protocol 2024-11-05 and the latest), the 18 tools and their
 * schemas, the free tools, the payment requirement as a tool result, api_key,
 * bundle_token and x402 payments (argument and `_meta` binding) settled on a local chain
 * at the TOOL price (v2 and v1 payloads), nothing charged on failures or bad input, the
 * output schemas (every data tool's structured content, and the payment requirement's)
 * as the SDK client validates them, the MCP Inspector CLI, and the JSON answers of the
 * proxy paths on every method (spec 4.4).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, publicActions } from "viem";
import type { HDAccount } from "viem/accounts";
import { x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { BASE_USDC, localBase, type Chain } from "../helpers/chain";
import type { Fixture } from "../helpers/fixture";
import { startPaidFixture } from "../helpers/paid-fixture";
import { requirementFrom, signAuthorization, v1Header, v2Header, type Requirement } from "../helpers/payments";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** Spec 4.5: the 18 tools. */
const TOOL_NAMES = [
  "get_xlm_sentiment",
  "get_free_api_key",
  "get_fear_greed_index",
  "get_xlm_quote",
  "get_xlm_sentiment_report",
  "get_xlm_sentiment_history",
  "get_xlm_network_pulse",
  "get_arbitrage_opportunities",
  "screen_multi_asset_strategy",
  "get_market_breadth",
  "get_attested_quote",
  "get_base_gas_oracle",
  "get_prediction_market_pulse",
  "get_base_wallet_intel",
  "buy_call_credits_bundle",
  "buy_enterprise_bundle",
  "check_token_safety",
  "get_whale_flow",
];
const QUOTE_TOOL_PRICE = 100_000n; // get_xlm_quote: $0.10 (HTTP /v1/quote: $0.005)
const HISTORY_TOOL_PRICE = 250_000n; // get_xlm_sentiment_history: $0.25
const BREADTH_TOOL_PRICE = 100_000n; // get_market_breadth: $0.10 (HTTP /v1/breadth: $0.01)
const PULSE_TOOL_PRICE = 100_000n; // get_xlm_network_pulse: $0.10 (HTTP /v1/xlm-network: $0.01)
const FNG_TOOL_PRICE = 10_000n; // get_fear_greed_index: $0.01
const BUNDLE_TOOL_PRICE = 1_000_000n; // buy_call_credits_bundle: $1.00 (HTTP /v1/bundle: $0.05)
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** The official transport, asking for an older protocol revision in `initialize`. */
class PinnedVersionTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    private readonly version: string,
  ) {
    super(url);
  }
  override send(message: JSONRPCMessage, options?: Parameters<StreamableHTTPClientTransport["send"]>[1]): Promise<void> {
    if ("method" in message && message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: this.version } } as JSONRPCMessage;
    }
    return super.send(message, options);
  }
}

type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any>; isError?: boolean; _meta?: Record<string, any> };

const textJson = (r: ToolResult): any => JSON.parse(r.content[0]!.text!);

let chain: Chain;
let fx: Fixture;
let client: Client;
let payer: HDAccount;
let payTo: HDAccount;
let apiKey: string;

const call = async (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult;
const balances = async () => ({ payer: await chain.usdcBalance(payer.address), payTo: await chain.usdcBalance(payTo.address) });
const keyUsed = async (key: string) => (await fx.json("/v1/usage", { headers: { "X-Api-Key": key } })).body.used_today as number;

async function connect(version?: string): Promise<Client> {
  const url = new URL(`${fx.svc.url}/mcp`);
  const c = new Client({ name: "mcp-integration-test", version: "1.0.0" });
  await c.connect(version ? new PinnedVersionTransport(url, version) : new StreamableHTTPClientTransport(url));
  return c;
}

/** An x402 v2 payment payload for `accepted` (signed for real; nothing about verification is mocked). */
async function paymentFor(accepted: Requirement, resource: string, value = BigInt(accepted.amount)) {
  const payload = await signAuthorization(payer, { to: payTo.address, value });
  return { header: v2Header({ ...accepted, amount: value.toString() }, payload, resource) };
}

/** The requirement a paid tool returns without credentials. */
async function requirementOf(tool: string, args: Record<string, unknown> = {}) {
  const r = await call(tool, args);
  expect(r.isError).toBe(true);
  const req = textJson(r);
  return { req, accepted: req.accepts[0] as Requirement, resource: req.resource.url as string };
}

beforeAll(async () => {
  ({ chain, fx, payer, payTo } = await startPaidFixture({ FREE_KEY_MINTS_PER_HOUR: "10" }));
  client = await connect();
}, 180_000);
afterAll(async () => {
  await client?.close();
  await fx?.close();
  await chain?.stop();
});

describe("MCP transport (official SDK client, streamable HTTP)", () => {
  it("initializes: server echo-x402-sentiment 0.2.0, tools without list-changed notifications", async () => {
    expect(client.getServerVersion()).toEqual({ name: "echo-x402-sentiment", version: "0.2.0" });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect(client.getInstructions()).toMatch(/payment/);
  });

  it("accepts a client asking for protocol 2024-11-05 and serves it tools", async () => {
    const old = await connect("2024-11-05");
    try {
      expect((old.transport as StreamableHTTPClientTransport).protocolVersion).toBe("2024-11-05");
      const { tools } = await old.listTools();
      expect(tools).toHaveLength(18);
      const r = (await old.callTool({ name: "get_xlm_sentiment", arguments: {} })) as ToolResult;
      expect(r.isError).toBeFalsy();
    } finally {
      await old.close();
    }
  });

  it("lists exactly the 18 tools with string arguments, credentials, prices, annotations and output schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName.get("get_xlm_sentiment")!.inputSchema.properties ?? {})).toEqual([]);
    expect(byName.get("get_free_api_key")!.inputSchema.properties).toMatchObject({ email: { type: "string", default: "" } });
    const history = byName.get("get_xlm_sentiment_history")!;
    expect(history.inputSchema.properties).toMatchObject({ hours: { type: "string", default: "24" }, payment: { default: null }, bundle_token: { default: null }, api_key: { default: null } });
    expect(history.description).toContain("$0.25 per call");
    expect(history.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true, idempotentHint: true });
    expect(history.outputSchema?.type).toBe("object");
    for (const name of ["get_base_gas_oracle", "get_prediction_market_pulse", "get_base_wallet_intel"]) {
      expect(byName.get(name)!.description).toContain("$0.02 per call");
      expect(byName.get(name)!.title).not.toContain("0.10");
    }
    for (const t of tools.filter((x) => !["get_xlm_sentiment", "get_free_api_key"].includes(x.name))) {
      for (const [arg, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        if (["payment", "bundle_token", "api_key"].includes(arg)) continue;
        expect((schema as { type: string }).type, `${t.name}.${arg}`).toBe("string");
      }
      expect(t.outputSchema, t.name).toBeDefined();
    }
  });

  it("lists the 18 tools through the MCP Inspector CLI", async () => {
    const cli = `${root}node_modules/@modelcontextprotocol/inspector/cli/build/cli.js`;
    const { stdout } = await run(process.execPath, [cli, "--cli", `${fx.svc.url}/mcp`, "--method", "tools/list"], { timeout: 60_000, env: { ...process.env, NO_UPDATE_NOTIFIER: "1" } });
    const listed = JSON.parse(stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
  });
});

describe("free tools", () => {
  it("get_xlm_sentiment returns the spec 2.1 snapshot as a JSON string (and as structured content)", async () => {
    const r = await call("get_xlm_sentiment");
    expect(r.isError).toBeFalsy();
    const snap = textJson(r);
    expect(Object.keys(snap)).toEqual(expect.arrayContaining(["sentiment", "sentiment_source", "components", "price_usd", "mid", "spread_pct", "ts"]));
    expect(snap.sentiment).toBeGreaterThanOrEqual(-1);
    expect(snap.sentiment).toBeLessThanOrEqual(1);
    expect(Object.keys(snap.components).sort()).toEqual(["fear_greed", "momentum", "order_flow"]);
    expect(r.structuredContent).toEqual(snap);
  });

  it("get_free_api_key mints a working key through the /v1/free-key code (email recorded)", async () => {
    const r = await call("get_free_api_key", { email: "agent@example.com" });
    expect(r.isError).toBeFalsy();
    const body = textJson(r);
    expect(body.api_key).toMatch(/^echo_fk_/);
    expect(body).toMatchObject({ email_recorded: true, used_today: 0 });
    apiKey = body.api_key;
    expect((await fx.json("/v1/usage", { headers: { "X-Api-Key": apiKey } })).body).toMatchObject({ kind: "api_key", used_today: 0 });
    const bad = await call("get_free_api_key", { email: "not-an-address" });
    expect(bad.isError).toBe(true);
    expect(textJson(bad).detail[0]).toMatchObject({ loc: ["arguments", "email"], type: "value_error" });
  });
});

describe("paid tools: the same gate at the tool price", () => {
  it("without credentials returns the payment requirement as the tool result: endpoint, TOOL price, instruction, x402 accepts", async () => {
    const r = await call("get_xlm_quote");
    expect(r.isError).toBe(true);
    const req = textJson(r);
    // x402 MCP transport: the PaymentRequired as structured content too, equal to the text.
    expect(r.structuredContent).toEqual(req);
    expect(req).toMatchObject({ payment_required: true, code: "payment_required", endpoint: "/v1/quote", price: "0.10", price_usd: "0.100000", x402Version: 2 });
    expect(req.instruction).toMatch(/payment/);
    expect(req.accepts).toHaveLength(1);
    expect(req.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: String(QUOTE_TOOL_PRICE), asset: BASE_USDC, payTo: payTo.address });
    // The HTTP operation on the same path declares its own (lower) price.
    const http = await fx.get("/v1/quote");
    expect(http.status).toBe(402);
    expect(requirementFrom(http).accepts[0]!.amount).toBe("5000");
  });

  it("runs with api_key: same data as the HTTP path, one quota call counted, receipt in _meta", async () => {
    const before = await keyUsed(apiKey);
    const r = await call("get_fear_greed_index", { api_key: apiKey });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toEqual(textJson(r));
    expect(r.structuredContent!.index).toBeGreaterThanOrEqual(0);
    expect(r._meta?.["echo/access"]).toMatchObject({ credential: "api_key", quota: { limit: 50, remaining: 50 - before - 1 } });
    expect(r._meta?.["echo/access"].receipt_id).toBeTruthy();
    const http = await fx.json("/v1/fng", { headers: { "X-Api-Key": apiKey } });
    expect(http.status).toBe(200);
    expect({ ...http.body, ts: null }).toEqual({ ...r.structuredContent, ts: null });
    expect(await keyUsed(apiKey)).toBe(before + 2);
  });

  it("refuses api_key on a premium report with the requirement, counting nothing", async () => {
    const before = await keyUsed(apiKey);
    const r = await call("get_xlm_sentiment_report", { api_key: apiKey });
    expect(r.isError).toBe(true);
    expect(textJson(r)).toMatchObject({ code: "free_tier_not_covered", endpoint: "/v1/sentiment-report", price: "0.25" });
    expect(await keyUsed(apiKey)).toBe(before);
  });

  it("settles an x402 `payment` argument at the tool price ($0.10, not the HTTP $0.005); presented again, the same result, charged once", async () => {
    const { accepted, resource } = await requirementOf("get_xlm_quote");
    expect(BigInt(accepted.amount)).toBe(QUOTE_TOOL_PRICE);
    const { header } = await paymentFor(accepted, resource);
    const before = await balances();
    const r = await call("get_xlm_quote", { payment: header });
    expect(r.isError, JSON.stringify(r).slice(0, 500)).toBeFalsy();
    expect(r.structuredContent).toEqual(textJson(r));
    const receipt = r._meta?.["x402/payment-response"];
    expect(receipt).toMatchObject({ success: true, network: "eip155:8453" });
    expect(String(receipt.payer).toLowerCase()).toBe(payer.address.toLowerCase());
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r._meta?.["echo/access"]).toMatchObject({ credential: "x402" });
    const tx = await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction });
    expect(tx.status).toBe("success");
    const after = await balances();
    expect(before.payer - after.payer).toBe(QUOTE_TOOL_PRICE);
    expect(after.payTo - before.payTo).toBe(QUOTE_TOOL_PRICE);

    // Presented again: the same result (data, receipt, settlement response), nothing charged again.
    const replay = await call("get_xlm_quote", { payment: header });
    expect(replay.isError).toBeFalsy();
    expect(replay.content).toEqual(r.content);
    expect(replay._meta?.["x402/payment-response"]).toEqual(receipt);
    expect(replay._meta?.["echo/access"]).toEqual(r._meta?.["echo/access"]);
    expect(replay._meta?.["echo/replayed"]).toBe(true);
    expect(await balances()).toEqual(after);
  });

  it('settles a payment sent in _meta["x402/payment"] by the official x402 client (MCP binding) and answers _meta["x402/payment-response"]', async () => {
    const required = textJson(await call("get_xlm_network_pulse"));
    expect(BigInt(required.accepts[0].amount)).toBe(PULSE_TOOL_PRICE);
    // The tool result is an x402 v2 PaymentRequired: the official client signs it as is.
    const wallet = createWalletClient({ account: payer, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
    const x402 = new x402Client();
    registerExactEvmScheme(x402, { signer: toClientEvmSigner(payer, wallet as never) });
    const payload = await x402.createPaymentPayload(required);
    const before = await balances();
    const r = await call("get_xlm_network_pulse", {}, { "x402/payment": payload });
    expect(r.isError, JSON.stringify(r).slice(0, 500)).toBeFalsy();
    expect(r._meta?.["x402/payment-response"]).toMatchObject({ success: true, network: "eip155:8453" });
    expect(before.payer - (await balances()).payer).toBe(PULSE_TOOL_PRICE);
  });

  it("refuses a payment for the HTTP price and settles nothing", async () => {
    const { accepted, resource } = await requirementOf("get_xlm_quote");
    const { header } = await paymentFor(accepted, resource, 5_000n);
    const before = await balances();
    const r = await call("get_xlm_quote", { payment: header });
    expect(r.isError).toBe(true);
    const body = textJson(r);
    expect(body).toMatchObject({ code: "payment_invalid", price: "0.10" });
    expect(body.error).toMatch(/100000/);
    expect(await balances()).toEqual(before);
  });

  it("a refused payment writes one payment.refused log line naming surface, method, reason and the payment's payer:nonce, never a secret", async () => {
    const { accepted, resource } = await requirementOf("get_xlm_quote");
    const auth = await signAuthorization(payer, { to: payTo.address, value: 5_000n });
    const header = v2Header({ ...accepted, amount: "5000" }, auth, resource);
    const logsBefore = fx.svc.logs().length;
    const r = await call("get_xlm_quote", { payment: header });
    expect(textJson(r)).toMatchObject({ code: "payment_invalid" });
    const lines = fx.svc.logs().slice(logsBefore).split("\n").filter((l) => l.includes('"payment.refused"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: "warn",
      product: "quote",
      surface: "mcp",
      price_usd: "0.10",
      method: "evm-exact",
      code: "payment_invalid",
      reason: expect.stringMatching(/100000/),
      reference: `${payer.address.toLowerCase()}:${auth.authorization.nonce.toLowerCase()}`,
      paymentId: null,
    });
    expect(lines[0]).not.toContain(auth.signature);
    expect(lines[0]).not.toContain(header);
  });

  it("a lone paid tools/call answers Server-Timing (verification, handler, settlement), readable by browsers, and the same timing in _meta", async () => {
    const { accepted, resource } = await requirementOf("get_fear_greed_index");
    const { header } = await paymentFor(accepted, resource);
    const res = await fetch(`${fx.svc.url}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "get_fear_greed_index", arguments: { payment: header } } }),
    });
    const body = await res.json();
    expect(body.result.isError, JSON.stringify(body).slice(0, 400)).toBeFalsy();
    const timing = res.headers.get("server-timing")!;
    for (const phase of ["verify", "handler", "settle"]) expect(timing).toMatch(new RegExp(`${phase};(desc="[^"]*";)?dur=\\d+(\\.\\d+)?`));
    expect(body.result._meta["echo/timing"]).toEqual({ verify_ms: expect.any(Number), handler_ms: expect.any(Number), settle_ms: expect.any(Number) });
    expect(res.headers.get("access-control-expose-headers")).toContain("Server-Timing");
    expect(res.headers.get("timing-allow-origin")).toBe("*");
    // A refusal ran the credential check only; a free tool and tools/list run no gate.
    const refused = await fetch(`${fx.svc.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {} } }) });
    expect(refused.headers.get("server-timing")).toMatch(/^verify;desc="credential check";dur=[\d.]+$/);
    const free = await fetch(`${fx.svc.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "get_xlm_sentiment", arguments: {} } }) });
    expect(free.headers.get("server-timing")).toBeNull();
  });

  it("refuses a valid payment sent with an invalid argument (spec 2.6 result), settles nothing, and the payment still works afterwards", async () => {
    const { accepted, resource } = await requirementOf("get_xlm_sentiment_history");
    expect(BigInt(accepted.amount)).toBe(HISTORY_TOOL_PRICE);
    const { header } = await paymentFor(accepted, resource);
    const before = await balances();
    for (const args of [{ hours: "500" }, { hours: 24 }, { hourz: "24" }]) {
      const r = await call("get_xlm_sentiment_history", { ...args, payment: header });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      expect(textJson(r).detail[0].loc, JSON.stringify(args)).toEqual(["arguments", Object.keys(args)[0]]);
      expect(r._meta?.["x402/payment-response"]).toBeUndefined();
    }
    expect(await balances()).toEqual(before);
    const ok = await call("get_xlm_sentiment_history", { hours: "12", payment: header });
    expect(ok.isError, JSON.stringify(ok).slice(0, 500)).toBeFalsy();
    expect(ok.structuredContent!.hours).toBe(12);
    expect(before.payer - (await balances()).payer).toBe(HISTORY_TOOL_PRICE);
  });

  it("settles an x402 v1 payload passed as `payment` at the tool price", async () => {
    const { accepted } = await requirementOf("get_market_breadth");
    expect(BigInt(accepted.amount)).toBe(BREADTH_TOOL_PRICE);
    const payload = await signAuthorization(payer, { to: payTo.address, value: BREADTH_TOOL_PRICE });
    const before = await balances();
    const r = await call("get_market_breadth", { payment: v1Header(payload) });
    expect(r.isError, JSON.stringify(r).slice(0, 500)).toBeFalsy();
    expect(r.structuredContent).toEqual(textJson(r));
    expect(r._meta?.["x402/payment-response"]).toMatchObject({ success: true });
    const after = await balances();
    expect(before.payer - after.payer).toBe(BREADTH_TOOL_PRICE);
    expect(after.payTo - before.payTo).toBe(BREADTH_TOOL_PRICE);
    // A v1 payload for the HTTP price ($0.01) is refused.
    const cheap = await signAuthorization(payer, { to: payTo.address, value: 10_000n });
    const refused = await call("get_market_breadth", { payment: v1Header(cheap) });
    expect(refused.isError).toBe(true);
    expect(textJson(refused)).toMatchObject({ code: "payment_invalid", price: "0.10" });
    expect(await balances()).toEqual(after);
  });

  it('refuses an unusable _meta["x402/payment"] instead of charging the api_key or bundle_token sent with it', async () => {
    const keyBefore = await keyUsed(apiKey);
    const before = await balances();
    for (const bad of [12345, ["not", "a", "payload"], "   ", { padding: "x".repeat(13_000) }]) {
      const r = await call("get_fear_greed_index", { api_key: apiKey }, { "x402/payment": bad });
      expect(r.isError, JSON.stringify(bad).slice(0, 40)).toBe(true);
      expect(textJson(r).detail[0]).toMatchObject({ loc: ["_meta", "x402/payment"], type: expect.stringMatching(/^(model_type|string_too_short|string_too_long)$/) });
    }
    expect(await keyUsed(apiKey)).toBe(keyBefore);
    expect(await balances()).toEqual(before);
  });

  it("charges nothing when the upstream fails; the same payment works once it is back", async () => {
    const { accepted, resource } = await requirementOf("get_fear_greed_index");
    expect(BigInt(accepted.amount)).toBe(FNG_TOOL_PRICE);
    const { header } = await paymentFor(accepted, resource);
    const before = await balances();
    const keyBefore = await keyUsed(apiKey);
    fx.sim.setFault("alternative", { mode: "error", status: 500 });
    try {
      for (const args of [{ payment: header }, { api_key: apiKey }]) {
        const failed = await call("get_fear_greed_index", args);
        expect(failed.isError).toBe(true);
        expect(textJson(failed).error).toMatchObject({ code: "upstream_unavailable", status: 503 });
        expect(failed._meta?.["x402/payment-response"]).toBeUndefined();
      }
    } finally {
      fx.sim.clearFaults();
    }
    expect(await balances()).toEqual(before);
    expect(await keyUsed(apiKey)).toBe(keyBefore);
    const ok = await call("get_fear_greed_index", { payment: header });
    expect(ok.isError, JSON.stringify(ok).slice(0, 500)).toBeFalsy();
    expect(before.payer - (await balances()).payer).toBe(FNG_TOOL_PRICE);
  });

  it("buys a bundle at the tool price ($1.00) and spends its credits with bundle_token (1 per call, 2 per report)", async () => {
    const { accepted, resource } = await requirementOf("buy_call_credits_bundle");
    expect(BigInt(accepted.amount)).toBe(BUNDLE_TOOL_PRICE);
    const { header } = await paymentFor(accepted, resource);
    const before = await balances();
    const bought = await call("buy_call_credits_bundle", { payment: header });
    expect(bought.isError, JSON.stringify(bought).slice(0, 500)).toBeFalsy();
    expect(before.payer - (await balances()).payer).toBe(BUNDLE_TOOL_PRICE);
    const token = bought.structuredContent!.bundle_token as string;
    expect(token).toMatch(/^echo_bt_/);
    expect(bought.structuredContent).toMatchObject({ tier: "standard", credits: 10 });

    const quote = await call("get_xlm_quote", { bundle_token: token });
    expect(quote.isError, JSON.stringify(quote).slice(0, 500)).toBeFalsy();
    expect(quote._meta?.["echo/access"]).toMatchObject({ credential: "bundle", bundle: { credits_charged: 1, credits_remaining: 9 } });
    const report = await call("get_xlm_sentiment_report", { bundle_token: token });
    expect(report.isError, JSON.stringify(report).slice(0, 500)).toBeFalsy();
    expect(report._meta?.["echo/access"]).toMatchObject({ bundle: { credits_charged: 2, credits_remaining: 7 } });
    expect((await fx.json("/v1/usage", { headers: { "X-Bundle-Token": token } })).body).toMatchObject({ kind: "bundle", credits_remaining: 7 });
    // Bundles are sold for payments only.
    const viaBundle = await call("buy_call_credits_bundle", { bundle_token: token });
    expect(viaBundle.isError).toBe(true);
    expect(textJson(viaBundle)).toMatchObject({ code: "payment_required", price: "1.00" });
  });
});

describe("output schemas as the official SDK client validates them", () => {
  /** Arguments a tool needs: the example of each required argument (from its input schema). */
  function requiredArgs(inputSchema: { properties?: Record<string, unknown>; required?: string[] }): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of inputSchema.required ?? []) {
      const ex = (inputSchema.properties?.[name] as { examples?: string[] } | undefined)?.examples?.[0];
      expect(ex, name).toBeDefined();
      out[name] = ex!;
    }
    return out;
  }

  it("every data tool returns structured content that its output schema's data branch validates (key or bundle, simulator upstreams)", async () => {
    // A fresh client that has listed the tools validates every result against its outputSchema.
    const c = await connect();
    try {
      const { tools } = await c.listTools();
      const { accepted, resource } = await requirementOf("buy_call_credits_bundle");
      const bought = (await c.callTool({ name: "buy_call_credits_bundle", arguments: { payment: (await paymentFor(accepted, resource)).header } })) as ToolResult;
      expect(bought.isError, JSON.stringify(bought).slice(0, 500)).toBeFalsy();
      const token = bought.structuredContent!.bundle_token as string;
      const ajv = new AjvJsonSchemaValidator();
      const data = tools.filter((t) => !["get_free_api_key", "buy_call_credits_bundle", "buy_enterprise_bundle"].includes(t.name));
      expect(data).toHaveLength(15);
      for (const t of data) {
        const paid = t.name !== "get_xlm_sentiment";
        // Premium reports are not on the free tier (spec 8): a bundle pays for them.
        const usesKey = paid && !["get_xlm_sentiment_report", "get_xlm_sentiment_history"].includes(t.name);
        const args = { ...requiredArgs(t.inputSchema), ...(paid ? (usesKey ? { api_key: apiKey } : { bundle_token: token }) : {}) };
        const r = (await c.callTool({ name: t.name, arguments: args })) as ToolResult;
        expect(r.isError, `${t.name}: ${JSON.stringify(r).slice(0, 300)}`).toBeFalsy();
        expect(r.structuredContent, t.name).toEqual(textJson(r));
        // The data branch (anyOf[0] for paid tools), not the payment-requirement branch, accepts it.
        const schema = (paid ? (t.outputSchema!.anyOf as Array<Record<string, unknown>>)[0] : t.outputSchema) as Record<string, unknown>;
        const verdict = ajv.getValidator(schema)(r.structuredContent);
        expect(verdict.valid, `${t.name}: ${verdict.errorMessage}`).toBe(true);
      }
    } finally {
      await c.close();
    }
  });

  it("a payment-required result carries structured content the client accepts (a data-only schema would have thrown)", async () => {
    const c = await connect();
    try {
      const { tools } = await c.listTools();
      const ajv = new AjvJsonSchemaValidator();
      const endpoints: Record<string, string> = { get_xlm_quote: "/v1/quote", get_xlm_sentiment_report: "/v1/sentiment-report", buy_enterprise_bundle: "/v1/bundle/enterprise", get_whale_flow: "/v1/whale-flow" };
      for (const [name, endpoint] of Object.entries(endpoints)) {
        const tool = tools.find((t) => t.name === name)!;
        const args = name === "get_whale_flow" ? { token: (tool.inputSchema.properties as Record<string, { examples: string[] }>).token!.examples[0]! } : {};
        const r = (await c.callTool({ name, arguments: args })) as ToolResult;
        expect(r.isError, name).toBe(true);
        expect(r.structuredContent, name).toEqual(textJson(r));
        expect(r.structuredContent).toMatchObject({ payment_required: true, x402Version: 2, endpoint });
        const dataOnly = ajv.getValidator((tool.outputSchema!.anyOf as Array<Record<string, unknown>>)[0]!);
        expect(dataOnly(r.structuredContent).valid, name).toBe(false);
      }
    } finally {
      await c.close();
    }
  });
});

describe("bad input: an MCP error or an isError result, nothing charged", () => {
  it("answers 422-shaped results (spec 2.6, loc arguments) for wrong types, bad values, unknown and missing arguments", async () => {
    const before = await keyUsed(apiKey);
    const cases: Array<[string, Record<string, unknown>, unknown[]]> = [
      ["get_xlm_sentiment_history", { hours: 24, api_key: apiKey }, [{ loc: ["arguments", "hours"], type: "string_type", input: 24 }]],
      ["get_xlm_sentiment_history", { hours: "500", api_key: apiKey }, [{ loc: ["arguments", "hours"], type: "less_than_equal", ctx: { le: 168 } }]],
      ["screen_multi_asset_strategy", { period: "10y", api_key: apiKey }, [{ loc: ["arguments", "period"], type: "literal_error" }]],
      ["get_base_wallet_intel", { api_key: apiKey }, [{ loc: ["arguments", "address"], type: "missing" }]],
      ["get_fear_greed_index", { days: "3", api_key: apiKey }, [{ loc: ["arguments", "days"], type: "extra_forbidden" }]],
      ["get_fear_greed_index", { api_key: 12345 }, [{ loc: ["arguments", "api_key"], type: "string_type" }]],
      ["get_xlm_sentiment", { hours: "24" }, [{ loc: ["arguments", "hours"], type: "extra_forbidden" }]],
      // A handler-side cross-field check (loc "query" on HTTP) is reported under "arguments".
      ["check_token_safety", { chain: "solana", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", api_key: apiKey }, [{ loc: ["arguments", "address"], type: "value_error" }]],
    ];
    for (const [tool, args, detail] of cases) {
      const r = await call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textJson(r).detail, `${tool} ${JSON.stringify(args)}`).toMatchObject(detail);
    }
    expect(await keyUsed(apiKey)).toBe(before);
  });

  it("answers an MCP error for an unknown tool and a malformed call", async () => {
    await expect(client.callTool({ name: "get_everything", arguments: {} })).rejects.toThrow(/get_everything/);
    const raw = await fx.get("/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 42 } }) });
    const text = await raw.text();
    const msg = JSON.parse(text.split("\n").find((l) => l.startsWith("data: "))?.slice(6) ?? text);
    expect(msg.id).toBe(7);
    expect(msg.error.code).toBe(-32602);
  });

  it("serves a batch mixing tools/list and tools/call, and a body sent without Content-Length (chunked)", async () => {
    const events = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.startsWith("data: ") && l.length > 6)
        .map((l) => JSON.parse(l.slice(6)) as { id: number; result?: { tools?: unknown[]; isError?: boolean; structuredContent?: Record<string, unknown> } });
    const batch = [
      { jsonrpc: "2.0", id: 11, method: "tools/list" },
      { jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {} } },
    ];
    const res = await fx.get("/mcp", { method: "POST", headers: { ...MCP_HEADERS, "Mcp-Protocol-Version": "2025-03-26" }, body: JSON.stringify(batch) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const answers = events(await res.text());
    expect(answers.find((m) => m.id === 11)?.result?.tools).toHaveLength(18);
    expect(answers.find((m) => m.id === 12)?.result).toMatchObject({ isError: true, structuredContent: { code: "payment_required", endpoint: "/v1/fng" } });

    const chunked = (text: string) =>
      fx.get("/mcp", {
        method: "POST",
        headers: MCP_HEADERS,
        body: new ReadableStream({
          start(c) {
            for (let i = 0; i < text.length; i += 1000) c.enqueue(new TextEncoder().encode(text.slice(i, i + 1000)));
            c.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
    const one = await chunked(JSON.stringify({ jsonrpc: "2.0", id: 13, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {} } }));
    expect(one.status).toBe(200);
    // A lone request's answer is sent as the JSON object itself.
    expect(one.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await one.json()).toMatchObject({ jsonrpc: "2.0", id: 13, result: { isError: true, structuredContent: { code: "payment_required" } } });
    const big = await chunked(JSON.stringify({ jsonrpc: "2.0", id: 14, method: "tools/list", params: { pad: "x".repeat(70_000) } }));
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe(-32600);
  });

  it("serves a 2026-era (per-request envelope) client: tools/list and a paid tools/call with api_key", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
    };
    const modern = async (id: number, method: string, params: Record<string, unknown>, name?: string) => {
      const headers: Record<string, string> = { ...MCP_HEADERS, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, ...(name ? { "Mcp-Name": name } : {}) };
      const res = await fx.get("/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope } }) });
      const text = await res.text();
      const data = text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: ") && l.length > 6)?.slice(6) ?? text);
      return { status: res.status, msg: JSON.parse(data) as { id: number; result?: Record<string, unknown>; error?: unknown } };
    };
    const list = await modern(21, "tools/list", {});
    expect(list.status).toBe(200);
    expect((list.msg.result?.tools as unknown[]).length).toBe(18);
    const before = await keyUsed(apiKey);
    const called = await modern(22, "tools/call", { name: "get_fear_greed_index", arguments: { api_key: apiKey } }, "get_fear_greed_index");
    expect(called.status).toBe(200);
    expect(called.msg.result?.isError).toBeFalsy();
    expect(called.msg.result?.structuredContent).toMatchObject({ index: expect.any(Number), label: expect.any(String) });
    expect(await keyUsed(apiKey)).toBe(before + 1);
  });

  it("answers JSON-RPC errors for malformed JSON-RPC and oversized bodies, never HTML", async () => {
    const post = (body: string, headers: Record<string, string> = MCP_HEADERS) => fx.json("/mcp", { method: "POST", headers, body });
    const parse = await post("{not json");
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const invalid = await post(JSON.stringify({ jsonrpc: "1.0", id: 3, method: "tools/list" }));
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32600 } });
    expect((await post(JSON.stringify({ id: 4 }))).body.error.code).toBe(-32600);
    expect((await post("[]")).body.error.code).toBe(-32600);
    const big = await post(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "get_xlm_quote", arguments: { payment: "x".repeat(70_000) } } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(-32600);
    const wrongType = await post(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list" }), { "Content-Type": "text/plain", Accept: MCP_HEADERS.Accept });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.jsonrpc).toBe("2.0");
  });
});

describe("proxy paths /mcp and /mcp/{path} (spec 4.4)", () => {
  it("GET /mcp describes the server as JSON; an SSE GET (standalone stream) answers 405", async () => {
    const d = await fx.json("/mcp");
    expect(d.status).toBe(200);
    expect(d.headers.get("content-type")).toMatch(/application\/json/);
    expect(d.body).toMatchObject({ name: "echo-x402-sentiment", version: "0.2.0", transport: "streamable-http", url: `${fx.svc.url}/mcp`, tool_count: 18 });
    expect(d.body.tools.find((t: { name: string }) => t.name === "get_base_gas_oracle")).toMatchObject({ price_usd: "0.02", price: "$0.02", endpoint: "/v1/gas" });
    const sse = await fx.json("/mcp", { headers: { Accept: "text/event-stream" } });
    expect(sse.status).toBe(405);
    expect(sse.body.error.code).toBe("method_not_allowed");
  });

  it("serves tools and tools/<name> as JSON, by path segment or by ?path=", async () => {
    const list = await fx.json("/mcp/tools");
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(18);
    expect(list.body.tools.map((t: { name: string }) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect((await fx.json("/mcp?path=tools")).body).toEqual(list.body);
    const one = await fx.json("/mcp/tools/get_xlm_sentiment_history");
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: "get_xlm_sentiment_history", price_usd: "0.25", endpoint: "/v1/sentiment-history", http_price_usd: "0.10", credentials: ["payment", "bundle_token"] });
    expect(one.body.input_schema.properties.hours).toMatchObject({ type: "string", default: "24" });
    expect(one.body.example).toMatchObject({ method: "tools/call", params: { name: "get_xlm_sentiment_history" } });
    expect((await fx.json("/mcp?path=/tools/get_xlm_sentiment_history/")).body.name).toBe("get_xlm_sentiment_history");
  });

  it("answers 404 JSON for unknown sub-paths and tools, 422 (spec 2.6) for an invalid path value", async () => {
    for (const p of ["/mcp/sse", "/mcp/tools/nope", "/mcp?path=messages"]) {
      const r = await fx.json(p);
      expect(r.status, p).toBe(404);
      expect(r.body.error.code, p).toBe("not_found");
    }
    const q = await fx.json("/mcp?path=" + encodeURIComponent("tools/<script>"));
    expect(q.status).toBe(422);
    expect(q.body.detail[0]).toMatchObject({ loc: ["query", "path"], type: "string_pattern_mismatch", input: "tools/<script>" });
    const seg = await fx.json("/mcp/bad%20name");
    expect(seg.status).toBe(422);
    expect(seg.body.detail[0]).toMatchObject({ loc: ["path", "path"], type: "string_pattern_mismatch" });
    const long = await fx.json("/mcp?path=" + "a".repeat(200));
    expect(long.status).toBe(422);
    expect(long.body.detail[0]).toMatchObject({ loc: ["query", "path"], type: "string_too_long", ctx: { max_length: 128 } });
    // Invalid on every method.
    expect((await fx.json("/mcp?path=a%20b", { method: "DELETE" })).status).toBe(422);
  });

  it("answers 200 JSON on PUT, PATCH and DELETE of /mcp and on every method of the views (spec 4.4)", async () => {
    const description = (await fx.json("/mcp")).body;
    for (const method of ["PUT", "PATCH"]) {
      const r = await fx.json("/mcp", { method, headers: { "Content-Type": "application/json" }, body: "{}" });
      expect(r.status, method).toBe(200);
      expect(r.headers.get("content-type"), method).toMatch(/application\/json/);
      expect(r.body, method).toEqual(description);
    }
    const del = await fx.json("/mcp", { method: "DELETE", headers: { "Mcp-Session-Id": "whatever" } });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ url: `${fx.svc.url}/mcp`, stateless: true, session_terminated: false });
    const tools = (await fx.json("/mcp/tools")).body;
    const quote = (await fx.json("/mcp/tools/get_xlm_quote")).body;
    for (const [method, path, expected] of [
      ["POST", "/mcp/tools", tools],
      ["PUT", "/mcp/tools", tools],
      ["PATCH", "/mcp?path=tools", tools],
      ["DELETE", "/mcp?path=tools", tools],
      ["DELETE", "/mcp/tools/get_xlm_quote", quote],
      ["POST", "/mcp/tools/get_xlm_quote", quote],
    ] as const) {
      const r = await fx.json(path, { method, headers: { "Content-Type": "application/json" }, body: method === "DELETE" ? undefined : '{"x":1}' });
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(r.body, `${method} ${path}`).toEqual(expected);
    }
    // Unknown views stay 404 on every method; an invalid path is 422 on every method.
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      expect((await fx.json("/mcp/tools/nope", { method })).status, method).toBe(404);
      expect((await fx.json("/mcp/a%20b", { method })).status, method).toBe(422);
    }
  });

  it("answers a JSON-RPC message POSTed to a view with a JSON-RPC error naming the transport URL", async () => {
    const r = await fx.json("/mcp/tools", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 12, method: "tools/list" }) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ jsonrpc: "2.0", id: 12, error: { code: -32600 } });
    expect(r.body.error.message).toContain(`${fx.svc.url}/mcp`);
  });

  it("OPTIONS lists every method in Allow", async () => {
    const r = await fx.get("/mcp", { method: "OPTIONS" });
    expect(r.status).toBe(204);
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(r.headers.get("allow"), m).toContain(m);
  });
});

describe("free keys over MCP share the per-address mint limit with /v1/free-key", () => {
  it("refuses get_free_api_key once this client address used its hourly mints over HTTP", async () => {
    // Exhaust the window over HTTP (this file's earlier mints count too), then ask over MCP.
    for (let i = 0; i < 20; i++) {
      const r = await fx.get("/v1/free-key");
      if (r.status === 429) break;
      expect(r.status).toBe(200);
    }
    const r = await call("get_free_api_key");
    expect(r.isError).toBe(true);
    expect(textJson(r).error).toMatchObject({ code: "rate_limited", status: 429 });
  });
});
