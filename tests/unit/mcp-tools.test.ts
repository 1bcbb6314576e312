/**
 * The MCP tool list generated from the catalog, checked against spec 4.5 written out
 * here independently (names, paths, prices, titles, arguments, defaults), plus argument
 * validation (spec 2.6 issues under "arguments"), the `_meta["x402/payment"]` refusals,
 * the output schemas (data or payment requirement), the x402 `_meta` receipt mapping and
 * the HTTP layer's answer to a transport crash.
 */
import { validationIssuesOf } from "../helpers/validation";
import { describe, expect, it } from "vitest";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { PRODUCTS } from "@/lib/catalog";
import { usd6, usdLabel } from "@/lib/payments/price";
import { credentialFromToolArgs } from "@/lib/access/credentials";
import { serveMcp } from "@/lib/mcp/http";
import { ValidationError } from "@/lib/errors";
import { mcpTools } from "@/lib/mcp/tools";
import { asArgumentIssues, parseArguments } from "@/lib/mcp/arguments";
import { PAYMENT_REQUIRED_SCHEMA, accessMeta } from "@/lib/mcp/results";
import { MCP_SERVER_INFO } from "@/lib/mcp/info";

/** Spec 4.5 (and 4.1 for the defaults of the extra arguments). */
const SPEC: Array<{ name: string; path: string | null; price: string; args: Record<string, string | null> }> = [
  { name: "get_xlm_sentiment", path: null, price: "0", args: {} },
  { name: "get_free_api_key", path: "/v1/free-key", price: "0", args: { email: "" } },
  { name: "get_fear_greed_index", path: "/v1/fng", price: "0.01", args: {} },
  { name: "get_xlm_quote", path: "/v1/quote", price: "0.10", args: {} },
  { name: "get_xlm_sentiment_report", path: "/v1/sentiment-report", price: "0.25", args: {} },
  { name: "get_xlm_sentiment_history", path: "/v1/sentiment-history", price: "0.25", args: { hours: "24" } },
  { name: "get_xlm_network_pulse", path: "/v1/xlm-network", price: "0.10", args: {} },
  { name: "get_arbitrage_opportunities", path: "/v1/arb-opportunities", price: "0.10", args: {} },
  { name: "screen_multi_asset_strategy", path: "/v1/multi-asset", price: "0.10", args: { tickers: "XLM-USD,BTC-USD,ETH-USD,SOL-USD,ADA-USD,LINK-USD,AVAX-USD,DOGE-USD", period: "3mo" } },
  { name: "get_market_breadth", path: "/v1/breadth", price: "0.10", args: {} },
  { name: "get_attested_quote", path: "/v1/attested-quote", price: "0.10", args: { ticker: "xlm" } },
  { name: "get_base_gas_oracle", path: "/v1/gas", price: "0.02", args: {} },
  // `limit`, `address` and `token`: the spec gives no default (null = not checked).
  { name: "get_prediction_market_pulse", path: "/v1/prediction", price: "0.02", args: { limit: null } },
  { name: "get_base_wallet_intel", path: "/v1/wallet", price: "0.02", args: { address: null } },
  { name: "buy_call_credits_bundle", path: "/v1/bundle", price: "1.00", args: {} },
  { name: "buy_enterprise_bundle", path: "/v1/bundle/enterprise", price: "25.00", args: {} },
  { name: "check_token_safety", path: "/v1/token-safety", price: "0.02", args: { chain: "base", address: null } },
  { name: "get_whale_flow", path: "/v1/whale-flow", price: "0.02", args: { chain: "base", token: null } },
];
const CREDENTIALS = ["payment", "bundle_token", "api_key"];

type Props = Record<string, { type?: string; default?: unknown; anyOf?: Array<{ type: string }> }>;

describe("MCP tools vs spec 4.5", () => {
  const tools = mcpTools();
  const byName = new Map(tools.map((t) => [t.name, t]));

  it("lists exactly the 18 tools of spec 4.5, server 0.2.0", () => {
    expect(tools).toHaveLength(18);
    expect(new Set(tools.map((t) => t.name))).toEqual(new Set(SPEC.map((s) => s.name)));
    expect(MCP_SERVER_INFO).toEqual({ name: "echo-x402-sentiment", version: "0.2.0" });
  });

  it("is generated from the catalog: one paid tool per product that declares one, at the spec 4.5 price and path", () => {
    const declared = PRODUCTS.filter((p) => p.tool);
    expect(declared).toHaveLength(16);
    for (const p of declared) {
      const t = byName.get(p.tool!.name)!;
      const s = SPEC.find((x) => x.name === t.name)!;
      expect(t.product).toBe(p);
      expect(t.endpoint).toBe(s.path);
      expect(p.path).toBe(s.path);
      expect(usd6(t.price)).toBe(usd6(s.price));
      // Titles state the tool price as spec 4.5 writes it (never the old wrong 0.10).
      expect(t.title).toContain(`($${s.price})`);
    }
    // Paths without a tool (spec 4.1 "none") stay HTTP-only.
    for (const path of ["/v1/sentiment", "/v1/screen", "/v1/verdict", "/v1/top-movers", "/v1/eth-gas", "/v1/btc-quote", "/v1/global-market"]) {
      expect(tools.find((t) => t.endpoint === path), path).toBeUndefined();
    }
  });

  for (const s of SPEC) {
    it(`${s.name}: path, price in the description, arguments`, () => {
      const t = byName.get(s.name)!;
      expect(t.endpoint).toBe(s.path);
      expect(usd6(t.price)).toBe(usd6(s.price));
      const paid = s.price !== "0";
      expect(t.free).toBe(!paid);
      if (paid) expect(t.description).toContain(`${usdLabel(s.price)} per call`);
      else expect(t.description).toMatch(/^Free/);

      const props = t.inputSchema.properties as Props;
      expect(Object.keys(props).sort()).toEqual([...Object.keys(s.args), ...(paid ? CREDENTIALS : [])].sort());
      expect(t.inputSchema.type).toBe("object");
      for (const [arg, def] of Object.entries(s.args)) {
        expect(props[arg]!.type, arg).toBe("string"); // every extra argument is a string, `hours` included
        if (def !== null) expect(props[arg]!.default, arg).toBe(def);
      }
      for (const c of paid ? CREDENTIALS : []) {
        expect(props[c]!.default).toBeNull();
        expect(props[c]!.anyOf!.map((x) => x.type).sort()).toEqual(["null", "string"]);
      }
    });
  }

  it("states 0.02 (never the wrong 0.10 of the old titles) for gas oracle, prediction pulse and wallet intel", () => {
    for (const name of ["get_base_gas_oracle", "get_prediction_market_pulse", "get_base_wallet_intel"]) {
      const t = byName.get(name)!;
      expect(t.title).not.toContain("0.10");
      expect(t.description).not.toContain("$0.10");
      expect(t.description).toContain("$0.02");
    }
  });

  it("annotates data tools read-only/open-world/idempotent and purchases/minting as not read-only", () => {
    for (const t of tools) {
      const writes = t.name === "get_free_api_key" || t.product?.kind === "bundle";
      expect(t.annotations.readOnlyHint, t.name).toBe(!writes);
      expect(t.annotations.idempotentHint, t.name).toBe(!writes);
      expect(t.annotations.destructiveHint, t.name).toBe(false);
    }
    expect(byName.get("get_xlm_quote")!.annotations.openWorldHint).toBe(true);
  });

  it("gives every paid tool an output schema that admits its data or the payment requirement, nothing else", () => {
    const ajv = new AjvJsonSchemaValidator();
    const requirement = {
      payment_required: true,
      error: "Payment required: /v1/quote costs 0.10 USD per call.",
      code: "payment_required",
      endpoint: "/v1/quote",
      price: "0.10",
      price_usd: "0.100000",
      currency: "USD",
      instruction: "Pay $0.10 in USDC ...",
      x402Version: 2,
      accepts: [{ scheme: "exact", network: "eip155:8453", amount: "100000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x0000000000000000000000000000000000000001", maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
      resource: { url: "http://localhost/mcp#get_xlm_quote", description: "q", mimeType: "application/json" },
      xlm: null,
      alternatives: { bundle: "/v1/bundle", free_key: "/v1/free-key" },
    };
    for (const t of tools.filter((x) => !x.free)) {
      const schema = t.outputSchema!;
      expect(schema.type, t.name).toBe("object");
      const [data, payment] = schema.anyOf as Array<Record<string, unknown>>;
      expect(payment).toBe(PAYMENT_REQUIRED_SCHEMA);
      expect(data!.type).toBe("object");
      const validate = ajv.getValidator(schema);
      expect(validate(requirement).valid, t.name).toBe(true);
      // Neither branch takes an empty object, or a requirement missing its x402 fields.
      expect(validate({}).valid, t.name).toBe(false);
      const { accepts: _a, ...noAccepts } = requirement;
      expect(validate(noAccepts).valid, t.name).toBe(false);
      expect(validate({ ...requirement, x402Version: 1 }).valid, t.name).toBe(false);
    }
  });

  it("gives every data tool an object outputSchema that the SDK client's validator compiles", () => {
    const ajv = new AjvJsonSchemaValidator();
    for (const t of tools) {
      if (t.name === "get_free_api_key") continue;
      expect(t.outputSchema, t.name).not.toBeNull();
      expect(t.outputSchema!.type, t.name).toBe("object");
      expect(t.outputSchema!.$schema, t.name).toBeUndefined();
      expect(() => ajv.getValidator(t.outputSchema!), t.name).not.toThrow();
    }
  });
});

describe("tool arguments (spec 2.6 under 'arguments')", () => {
  const history = PRODUCTS.find((p) => p.tool?.name === "get_xlm_sentiment_history")!;
  const wallet = PRODUCTS.find((p) => p.tool?.name === "get_base_wallet_intel")!;

  const issues = validationIssuesOf;

  it("applies defaults, treats null as absent and separates credentials", () => {
    const a = parseArguments<{ hours: number }>(history.params, true, { hours: null, api_key: "k", payment: null });
    expect(a.params).toEqual({ hours: 24 });
    expect(a.credentials).toEqual({ api_key: "k" });
    expect(parseArguments<{ hours: number }>(history.params, true, undefined).params).toEqual({ hours: 24 });
    expect(parseArguments<{ hours: number }>(history.params, true, { hours: "168" }).params).toEqual({ hours: 168 });
  });

  it("refuses a number for a string argument (hours is a string on this surface)", () => {
    expect(issues(() => parseArguments(history.params, true, { hours: 24 }))).toEqual([
      { loc: ["arguments", "hours"], msg: "Input should be a valid string", type: "string_type", input: 24 },
    ]);
  });

  it("reports the catalog's own validation errors under arguments", () => {
    expect(issues(() => parseArguments(history.params, true, { hours: "169" }))).toEqual([
      { loc: ["arguments", "hours"], msg: "Input should be less than or equal to 168", type: "less_than_equal", input: "169", ctx: { le: 168 } },
    ]);
    expect(issues(() => parseArguments(history.params, true, { hours: "a day" }))[0]).toMatchObject({ loc: ["arguments", "hours"], type: "int_parsing" });
    expect(issues(() => parseArguments(wallet.params, true, {}))).toEqual([{ loc: ["arguments", "address"], msg: "Field required", type: "missing", input: null }]);
  });

  it("refuses unknown arguments, credentials on free tools, wrong credential types and oversized credentials", () => {
    expect(issues(() => parseArguments(history.params, true, { hour: "3" }))).toEqual([
      { loc: ["arguments", "hour"], msg: "Extra inputs are not permitted", type: "extra_forbidden", input: "3" },
    ]);
    expect(issues(() => parseArguments({}, false, { api_key: "k" }))[0]).toMatchObject({ loc: ["arguments", "api_key"], type: "extra_forbidden" });
    expect(issues(() => parseArguments(history.params, true, { bundle_token: 5 }))[0]).toMatchObject({ loc: ["arguments", "bundle_token"], type: "string_type" });
    expect(issues(() => parseArguments(history.params, true, { payment: "x".repeat(20_000) }))[0]).toMatchObject({
      loc: ["arguments", "payment"],
      type: "string_too_long",
      ctx: { max_length: 16_384 },
    });
    expect(issues(() => parseArguments(history.params, true, ["24"]))).toEqual([{ loc: ["arguments"], msg: "Input should be a valid dictionary", type: "dict_type", input: ["24"] }]);
  });

  it("reports every bad argument at once, each once", () => {
    const d = issues(() => parseArguments(wallet.params, true, { address: 42, extra: "x" }));
    expect(d.map((i) => [i.loc.join("."), i.type])).toEqual([
      ["arguments.address", "string_type"],
      ["arguments.extra", "extra_forbidden"],
    ]);
  });

  it("moves handler-side cross-field issues from query to arguments", () => {
    const err = new ValidationError([{ loc: ["query", "address"], msg: "m", type: "t", input: "x" }]);
    expect(asArgumentIssues(err)).toEqual([{ loc: ["arguments", "address"], msg: "m", type: "t", input: "x" }]);
  });
});

describe('_meta["x402/payment"]', () => {
  const issue = (meta: unknown, args: Record<string, string> = { api_key: "echo_fk_x" }) => {
    try {
      credentialFromToolArgs(args, meta);
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).detail;
    }
    throw new Error("expected a ValidationError");
  };

  it("is the payment when usable (object or base64), ahead of a bundle token or key", () => {
    const payload = { x402Version: 2, payload: { signature: "0x1" } };
    expect(credentialFromToolArgs({ api_key: "k" }, payload)).toEqual({ kind: "x402", payload: Buffer.from(JSON.stringify(payload)).toString("base64"), version: 2 });
    expect(credentialFromToolArgs({ bundle_token: "t" }, " abc= ")).toEqual({ kind: "x402", payload: "abc=", version: 2 });
    expect(credentialFromToolArgs({ bundle_token: "t" }, null)).toEqual({ kind: "bundle", token: "t" });
    expect(credentialFromToolArgs({ api_key: "k" })).toEqual({ kind: "api_key", key: "k" });
  });

  it("is refused with a spec 2.6 issue, never dropped in favour of another credential, when unusable", () => {
    expect(issue(12345)).toEqual([{ loc: ["_meta", "x402/payment"], msg: expect.any(String), type: "model_type", input: 12345 }]);
    expect(issue([1, 2])[0]).toMatchObject({ loc: ["_meta", "x402/payment"], type: "model_type" });
    expect(issue(true)[0]).toMatchObject({ type: "model_type" });
    expect(issue("   ", { bundle_token: "echo_bt_x" })[0]).toMatchObject({ type: "string_too_short" });
    expect(issue({ pad: "x".repeat(13_000) })[0]).toMatchObject({ loc: ["_meta", "x402/payment"], type: "string_too_long", ctx: { max_length: 16_384 } });
    expect(issue("y".repeat(16_385), { bundle_token: "echo_bt_x" })[0]).toMatchObject({ type: "string_too_long" });
  });
});

describe("HTTP layer over the MCP transport", () => {
  const rpc = (body: unknown) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });

  it("answers a transport crash with a JSON-RPC -32603 error for the request's id, not an HTTP 500", async () => {
    const crash = async (): Promise<Response> => {
      throw new Error("transport exploded");
    };
    const res = await serveMcp(rpc({ jsonrpc: "2.0", id: 41, method: "tools/list" }), null, crash);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 41, error: { code: -32603 } });
    expect(body.error.message).toMatch(/nothing was charged/);
    const batch = await (await serveMcp(rpc([{ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: "b", method: "tools/list" }]), null, crash)).json();
    expect(batch).toMatchObject({ id: "b", error: { code: -32603 } });
  });

  it("hands valid JSON-RPC to the transport unchanged", async () => {
    let seen: unknown;
    const echo = async (_r: Request, body: unknown) => {
      seen = body;
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), { headers: { "Content-Type": "application/json" } });
    };
    const res = await serveMcp(rpc({ jsonrpc: "2.0", id: 1, method: "ping" }), null, echo);
    expect(res.status).toBe(200);
    expect(seen).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
  });

  it("answers a JSON-RPC batch per the negotiated protocol: served for 2025-03-26 (and without the header, which means 2025-03-26), refused for 2025-06-18 and later", async () => {
    let calls = 0;
    const echo = async () => {
      calls++;
      return new Response("[]", { headers: { "Content-Type": "application/json" } });
    };
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ];
    const post = (body: unknown, version?: string) =>
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(version ? { "MCP-Protocol-Version": version } : {}) },
        body: JSON.stringify(body),
      });
    for (const version of ["2025-03-26", "2024-11-05", undefined]) {
      expect((await serveMcp(post(batch, version), null, echo)).status, String(version)).toBe(200);
    }
    expect(calls).toBe(3);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await serveMcp(post(batch, version), null, echo);
      expect(res.status, version).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      expect(body.error.message).toContain(`MCP protocol ${version}`);
    }
    // An initialize asking for 2025-06-18 inside a batch negotiates a revision without batches.
    const init = [{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, { jsonrpc: "2.0", method: "notifications/initialized" }];
    expect((await serveMcp(post(init), null, echo)).status).toBe(400);
    // A single message is never a batch.
    expect((await serveMcp(post(batch[0], "2025-06-18"), null, echo)).status).toBe(200);
    expect(calls).toBe(4);
  });
});

describe("a lone request's SSE answer", () => {
  const rpc = (body: unknown) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
  const sse = (stream: ReadableStream<Uint8Array> | string) => async () =>
    new Response(stream, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
  const event = (m: unknown) => `event: message\ndata: ${JSON.stringify(m)}\n\n`;

  it("is sent as the JSON-RPC response itself when the stream holds only that answer", async () => {
    const answer = { jsonrpc: "2.0", id: 5, result: { ok: true } };
    const res = await serveMcp(rpc({ jsonrpc: "2.0", id: 5, method: "ping" }), null, sse(`id: 1\ndata: \n\n${event(answer)}`));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(answer);
  });

  it("stays SSE when notifications precede the answer or the answer is for another id", async () => {
    const stream = event({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }) + event({ jsonrpc: "2.0", id: 6, result: {} });
    const res = await serveMcp(rpc({ jsonrpc: "2.0", id: 6, method: "ping" }), null, sse(stream));
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe(stream);
    const other = await serveMcp(rpc({ jsonrpc: "2.0", id: 7, method: "ping" }), null, sse(event({ jsonrpc: "2.0", id: 8, result: {} })));
    expect(other.headers.get("content-type")).toMatch(/^text\/event-stream/);
  });

  it("that cannot be read is an error that does not claim nothing was charged", async () => {
    const broken = new ReadableStream<Uint8Array>({
      pull(c) {
        c.error(new Error("stream broke"));
      },
    });
    const res = await serveMcp(rpc({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "get_fear_greed_index", arguments: {} } }), null, sse(broken));
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32603 } });
    expect(body.error.message).toMatch(/may have run/);
    expect(body.error.message).not.toMatch(/nothing was charged/);
  });
});

describe("result _meta of a charged call", () => {
  // The gate's typed outcome (lib/access/outcome.ts) rendered as _meta; no headers involved.
  const granted = { granted: true, method: null, charged: true, payment: null, quota: null, credits: null } as const;
  it("reports the x402 settlement receipt, receipt id, quota and bundle credits", () => {
    const settle = { success: true, transaction: "0xabc", network: "eip155:8453", payer: "0x1" } as const;
    const meta = accessMeta({ ...granted, credential: "x402", method: "evm-exact", receiptId: "r1", payment: settle });
    expect(meta).toEqual({ "x402/payment-response": settle, "echo/access": { credential: "x402", receipt_id: "r1" } });
    const key = accessMeta({ ...granted, credential: "api_key", receiptId: "r2", quota: { limit: 50, remaining: 49, resetAt: Date.now() + 99_500 } });
    expect(key["echo/access"]).toEqual({ credential: "api_key", receipt_id: "r2", quota: { limit: 50, remaining: 49, reset_seconds: 100 } });
    const bundle = accessMeta({ ...granted, credential: "bundle", receiptId: "r3", credits: { remaining: 8, charged: 2 } });
    expect(bundle["echo/access"]).toEqual({ credential: "bundle", receipt_id: "r3", bundle: { credits_charged: 2, credits_remaining: 8 } });
    expect(bundle["x402/payment-response"]).toBeUndefined();
  });
});
