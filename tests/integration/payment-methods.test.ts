/**
 * The payment-method registry seen from outside, over real HTTP and MCP against the built
 * service, in three configurations (no per-call method; EVM only on a local chain; EVM +
 * Solana + XLM): every discovery document offers exactly what the 402 accepts, and
 * everything x402-shaped parses with the official @x402/core schemas. Without a method
 * there is no x402 offer anywhere and no PAYMENT-REQUIRED header.
 *
 * Documents kept for reuse (OpenAPI, the PDF, the MCP tool list) follow the registry:
 * one fetched before Solana turned usable (the remote facilitator had not answered
 * /supported yet) and again after names Solana the second time.
 *
 * Also: HEAD never charges (a valid payment, the official client that pays a HEAD's 402
 * by itself, a bundle token, a free key: balances and credits checked); one structured
 * log line per refused payment and per failed settlement (no secret in it); and a
 * Server-Timing header on paid calls.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { networkName } from "@/lib/web/chain-name";
import { getBase58Decoder } from "@solana/kit";
import { Keypair } from "@stellar/stellar-sdk";
import { extractText, getDocumentProxy } from "unpdf";
import type { HDAccount } from "viem/accounts";
import { NetworkSchemaV2, PaymentRequiredV1Schema, PaymentRequiredV2Schema, PaymentRequirementsV2Schema } from "@x402/core/schemas";
import { PRODUCTS, productByPath } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import { startChain, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { decodeB64Json, signAuthorization, v2Fetch, v2Header, type Requirement } from "../helpers/payments";
import { solanaSecret } from "../helpers/solana-key";

type J = Record<string, any>;
const FNG = productByPath("/v1/fng")!;
const QUOTE = productByPath("/v1/quote")!;
/** Every way to configure per-call payment off, whatever the machine's environment says. */
const NO_METHODS = { PAY_TO_ADDRESS: undefined, FACILITATOR_URL: undefined, FACILITATOR_PRIVATE_KEY: undefined, SOLANA_PAY_TO_ADDRESS: undefined, SOLANA_FEE_PAYER_SECRET: undefined, STELLAR_PAY_TO_ADDRESS: undefined };

function exampleQuery(p: AnyProduct): string {
  const q = new URLSearchParams();
  for (const [name, param] of Object.entries(p.params) as Array<[string, { doc: ParamDoc }]>) if (param.doc.required && param.doc.example) q.set(name, param.doc.example);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** "0.005" → "5000" (USDC base units), by string arithmetic. */
function baseUnits(usd: string): string {
  const [w, f = ""] = usd.split(".");
  return String(Number(w) * 1_000_000 + Number(f.padEnd(6, "0").slice(0, 6)));
}

async function mcpRpc(fx: Fixture, method: string, params: Record<string, unknown> = {}): Promise<J> {
  const r = await fx.json("/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
  return r.body.result;
}

async function mcpCall(fx: Fixture, name: string, args: Record<string, unknown> = {}): Promise<J> {
  return mcpRpc(fx, "tools/call", { name, arguments: args });
}

/** The paid tools of tools/list (they take a `payment` argument). */
async function paidTools(fx: Fixture): Promise<J[]> {
  const { tools } = await mcpRpc(fx, "tools/list");
  const paid = (tools as J[]).filter((t) => t.inputSchema.properties?.payment);
  expect(paid.length).toBe(PRODUCTS.filter((p) => p.tool).length);
  return paid;
}

/** The visible text of a page as a browser gets it (tags and React's comment markers removed). */
async function pageText(fx: Fixture, path: string): Promise<string> {
  const res = await fx.get(path, { headers: { Accept: "text/html" } });
  expect(res.status, path).toBe(200);
  const html = await res.text();
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");
}

/** The networks of every method a metadata document lists, each a CAIP-2 id as @x402/core reads them. */
function methodNetworks(methods: J[] | undefined): string[] {
  const nets = (methods ?? []).map((m) => m.network as string);
  for (const n of nets) expect(NetworkSchemaV2.safeParse(n).success, n).toBe(true);
  return nets;
}

async function pdfText(fx: Fixture): Promise<string> {
  const bytes = new Uint8Array(await (await fx.get("/spec.pdf")).arrayBuffer());
  return (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text as string;
}

interface Paid {
  status: number;
  header: string | null;
  body: J;
}

async function paid402(fx: Fixture, p: AnyProduct, init?: RequestInit): Promise<Paid> {
  const res = await fx.get(`${p.path}${exampleQuery(p)}`, init);
  return { status: res.status, header: res.headers.get("payment-required"), body: (await res.json()) as J };
}

/**
 * Every document agrees with the 402 of every product: OpenAPI's x-payment-info offers,
 * the x402 manifest's accepts, the protected-resource metadata, /v1/manifest, and the
 * documents for people (llms.txt, agents.txt, spec.pdf, mcp.json, /mcp) name exactly the
 * accepted networks.
 */
async function expectDocumentsMatch402(fx: Fixture, expectedNetworks: string[]): Promise<void> {
  await expectAgentDocumentsMatch(fx, expectedNetworks);
  const oas = (await fx.json("/openapi.json")).body as J;
  const xm = (await fx.json("/.well-known/x402-manifest.json")).body as J;
  const m = (await fx.json("/v1/manifest")).body as J;
  for (const p of PRODUCTS) {
    const r = await paid402(fx, p);
    expect(r.status, p.path).toBe(402);
    const accepts: Requirement[] = r.header ? JSON.parse(Buffer.from(r.header, "base64").toString("utf8")).accepts : [];
    expect(accepts.map((a) => a.network), p.path).toEqual(expectedNetworks);
    if (expectedNetworks.length > 0) {
      const v2 = PaymentRequiredV2Schema.safeParse(JSON.parse(Buffer.from(r.header!, "base64").toString("utf8")));
      expect(v2.success, `${p.path} v2: ${JSON.stringify(v2.error?.issues)}`).toBe(true);
      const v1 = PaymentRequiredV1Schema.safeParse(r.body);
      expect(v1.success, `${p.path} v1: ${JSON.stringify(v1.error?.issues)}`).toBe(true);
      expect(r.body.x402.accepts).toEqual(accepts);
    } else {
      expect(r.header, p.path).toBeNull();
      expect(r.body.accepts).toBeUndefined();
      expect(r.body.x402Version).toBeUndefined();
      expect(r.body.x402).toBeUndefined();
    }
    // Spec 2.2 stays whatever is configured.
    expect(r.body).toMatchObject({ endpoint: p.path, price: p.httpPrice, code: "payment_required" });
    expect(r.body.instruction).toEqual(expect.any(String));

    const offer = oas.paths[p.path].get["x-payment-info"];
    expect(offer.protocols).toEqual(accepts.length > 0 ? [{ x402: {} }] : []);
    expect(offer.offers.map((o: J) => ({ network: o.network, amount: o.amount, asset: o.currency }))).toEqual(accepts.map((a) => ({ network: a.network, amount: a.amount, asset: a.asset })));
    for (const a of accepts) expect(a.amount).toBe(baseUnits(p.httpPrice));

    const xe = xm.resources.find((x: J) => x.path === p.path);
    expect(xe.accepts, p.path).toEqual(accepts);
    for (const a of xe.accepts) expect(PaymentRequirementsV2Schema.safeParse(a).success).toBe(true);
    expect(xe.payment_offer).toEqual(offer);
    expect(m.endpoints.find((e: J) => e.path === p.path).network).toBe(accepts[0]?.network ?? null);
  }
  const rest = (await fx.json("/.well-known/oauth-protected-resource/v1/fng")).body as J;
  expect(rest.payment_offer).toEqual(oas.paths["/v1/fng"].get["x-payment-info"]);

  const mcpJson = (await fx.json("/.well-known/mcp.json")).body as J;
  const mcpInfo = (await fx.json("/mcp")).body as J;
  const llms = await (await fx.get("/llms.txt")).text();
  const agents = await (await fx.get("/agents.txt")).text();
  const x402 = (await fx.json("/.well-known/x402")).body as J;
  const pdf = await pdfText(fx);
  if (expectedNetworks.length === 0) {
    expect(mcpJson.payment).toBeNull();
    expect(mcpInfo.payment).toBeNull();
    // (Product descriptions may name networks as data, e.g. /v1/gas on Base; the payment text may not.)
    for (const text of [llms, agents, x402.instructions, pdf]) expect(text).not.toMatch(/USDC on (eip155|solana)|scheme exact,|x402 per call/);
    expect(llms).toMatch(/no per-call payment on this instance/);
  } else {
    expect(mcpJson.payment.methods.map((x: J) => x.network)).toEqual(expect.arrayContaining(expectedNetworks));
    for (const net of expectedNetworks) {
      for (const [name, text] of [["llms.txt", llms], ["agents.txt", agents], ["/.well-known/x402", x402.instructions], ["spec.pdf", pdf.replace(/\s+/g, "")]] as const) {
        expect(text.includes(name === "spec.pdf" ? net.replace(/\s+/g, "") : net), `${name} names ${net}`).toBe(true);
      }
    }
  }
  // Documents name no network that is not accepted.
  const payLine = llms.split("\n").find((l) => l.startsWith("Base URL:"))!;
  for (const other of ["eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"].filter((n) => !expectedNetworks.includes(n))) {
    expect(payLine.includes(other), `llms.txt must not offer ${other}`).toBe(false);
    const xmOffers = { network: xm.network, methods: xm.methods, accepts: xm.resources.map((x: J) => x.accepts), offers: xm.resources.map((x: J) => x.payment_offer) };
    expect(JSON.stringify(xmOffers).includes(other), `the x402 manifest must not offer ${other}`).toBe(false);
    expect(JSON.stringify(mcpJson.payment ?? null).includes(other), `mcp.json must not offer ${other}`).toBe(false);
  }

  // The MCP requirement: the same methods at the tool price, or no structured x402 part at all.
  const result = await mcpCall(fx, QUOTE.tool!.name);
  expect(result.isError).toBe(true);
  const body = JSON.parse(result.content[0].text) as J;
  expect(body).toMatchObject({ payment_required: true, endpoint: QUOTE.path, price: QUOTE.tool!.price, code: "payment_required" });
  if (expectedNetworks.length === 0) {
    expect(result.structuredContent).toBeUndefined();
    expect(body.accepts).toBeUndefined();
  } else {
    expect(PaymentRequiredV2Schema.safeParse(result.structuredContent).success).toBe(true);
    expect(body.accepts.map((a: J) => a.network)).toEqual(expectedNetworks);
    for (const a of body.accepts) expect(a.amount).toBe(baseUnits(QUOTE.tool!.price));
  }
}

const ALL_NETWORKS = ["eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"];

/**
 * The documents that describe how to pay without carrying `accepts[]`: the agent cards
 * (A2A security and the a2a-x402 extension), MCP's tools/list (descriptions and the
 * `payment` argument) and initialize instructions, the home and /wallet pages, the
 * root protected-resource metadata and /.well-known/x402's resources. With no method
 * none offers a payment; otherwise each names every accepted network and no other.
 */
async function expectAgentDocumentsMatch(fx: Fixture, expectedNetworks: string[]): Promise<void> {
  const none = expectedNetworks.length === 0;
  const others = ALL_NETWORKS.filter((n) => !expectedNetworks.includes(n));

  const card = (await fx.json("/.well-known/agent-card.json")).body as J;
  for (const path of ["/agent.json", "/.well-known/agent.json"]) expect((await fx.json(path)).body, path).toEqual(card);
  const cardPayment = JSON.stringify({ description: card.description, schemes: card.securitySchemes, extensions: card.capabilities.extensions });
  if (none) {
    expect(card.securitySchemes.x402).toBeUndefined();
    expect(card.security).toEqual([{ ApiKeyAuth: [] }, { BundleToken: [] }]);
    expect(card.capabilities.extensions).toEqual([]);
    expect(card.description).not.toMatch(/a2a-x402|USDC/);
  } else {
    expect(card.security).toContainEqual({ x402: [] });
    expect(card.capabilities.extensions).toEqual([expect.objectContaining({ uri: "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2", required: false })]);
    for (const net of expectedNetworks) {
      expect(card.capabilities.extensions[0].description, `a2a-x402 extension names ${net}`).toContain(net);
      expect(card.securitySchemes.x402.description, `x402 scheme names ${net}`).toContain(net);
    }
  }

  const tools = await paidTools(fx);
  const init = await mcpRpc(fx, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "payment-methods-test", version: "1.0.0" } });
  for (const t of tools) {
    const payment = t.inputSchema.properties.payment.description as string;
    if (none) {
      expect(t.description, t.name).not.toMatch(/x402 payment|per-call payment of|USDC on/);
      expect(payment, t.name).toMatch(/not configured on this instance/);
    } else {
      for (const net of expectedNetworks) {
        expect(t.description, `${t.name} names ${net}`).toContain(net);
        expect(payment, `${t.name} payment argument names ${net}`).toContain(net);
      }
    }
    // (A product's description may name a network as data, e.g. Base gas; an offer names the asset on it.)
    for (const net of others) {
      expect(t.description, `${t.name} must not offer ${net}`).not.toContain(`USDC on ${net}`);
      expect(payment, `${t.name} payment argument must not offer ${net}`).not.toContain(net);
    }
  }
  if (none) expect(init.instructions).toMatch(/takes no per-call payment/);
  else for (const net of expectedNetworks) expect(init.instructions, `instructions name ${net}`).toContain(net);

  const home = await pageText(fx, "/");
  const wallet = await pageText(fx, "/wallet");
  if (none) {
    expect(home).toMatch(/this instance takes no per-call payment/);
    expect(home).not.toMatch(/x402 USDC|USDC on|on Base/);
    expect(wallet).toMatch(/does not take USDC payments from browser wallets/);
    expect(wallet).not.toMatch(/on Base/);
  } else {
    // Pages name networks as people do ("USDC on Base", not "USDC on eip155:8453"); agents' documents keep CAIP-2.
    for (const net of expectedNetworks) expect(home, `the home page names ${net}`).toContain(`USDC on ${networkName(net)}`);
    expect(home).not.toMatch(/x402 USDC on Base/);
    expect(home).not.toMatch(/USDC on (eip155|solana):/);
  }
  if (expectedNetworks.includes("eip155:8453")) expect(wallet).toMatch(/Connect a browser wallet and buy a prepaid bundle with USDC on Base/);
  if (expectedNetworks.includes("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")) expect(wallet).toMatch(/USDC on Solana/);
  for (const net of others) {
    expect(home.includes(net), `the home page must not offer ${net}`).toBe(false);
    expect(home.includes(`USDC on ${networkName(net)}`), `the home page must not offer USDC on ${networkName(net)}`).toBe(false);
    expect(wallet.includes(net), `/wallet must not offer ${net}`).toBe(false);
    expect(cardPayment.includes(net), `the agent card must not offer ${net}`).toBe(false);
  }

  const root = (await fx.json("/.well-known/oauth-protected-resource")).body as J;
  const discovery = (await fx.json("/.well-known/x402")).body as J;
  if (none) {
    expect(root.x402).toBeNull();
    expect(root.authorization_mechanism).not.toBe("x402");
    // x402 indexers take every listed resource as payable with x402: none is.
    expect(discovery.resources).toEqual([]);
  } else {
    expect(root.authorization_mechanism).toBe("x402");
    expect(methodNetworks(root.x402.methods)).toEqual(expect.arrayContaining(expectedNetworks));
    expect(discovery.resources.map((r: string) => new URL(r).pathname)).toEqual(PRODUCTS.map((p) => p.path));
  }
  for (const net of others) expect(JSON.stringify(root).includes(net), `the protected-resource metadata must not offer ${net}`).toBe(false);
}

describe("no per-call method configured", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ env: NO_METHODS });
  }, 180_000);
  afterAll(async () => fx?.close());

  it("no x402 offer anywhere, no PAYMENT-REQUIRED header; the 402 keeps endpoint, price and instruction", async () => {
    await expectDocumentsMatch402(fx, []);
    const r = await paid402(fx, FNG);
    expect(r.body.instruction).toMatch(/not configured/);
    expect(r.body.alternatives).toEqual({ bundle: "/v1/bundle", free_key: "/v1/free-key" });
  });

  it("a browser opening a paid URL is not offered a wallet payment: the paywall points to bundles and keys", async () => {
    const res = await fx.get("/v1/fng", { headers: { Accept: "text/html" } });
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-required")).toBeNull();
    const html = await res.text();
    expect(html).toContain("See how to pay for this call");
    expect(html).not.toMatch(/with a browser wallet/);
    const page = await pageText(fx, "/pay/v1/fng");
    expect(page).toMatch(/does not take per-call payments from browser wallets/);
  });

  it("a payment is refused clearly, and HEAD answers the same 402 headers", async () => {
    const res = await fx.get("/v1/fng", { headers: { "X-PAYMENT": Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "base", payload: {} })).toString("base64") } });
    expect(res.status).toBe(402);
    expect((await res.json()).error).toMatch(/not configured/);
    const head = await fx.get("/v1/fng", { method: "HEAD" });
    expect(head.status).toBe(402);
    expect(head.headers.get("payment-required")).toBeNull();
  });
});

/**
 * A remote facilitator (the HTTP protocol of @x402/core's HTTPFacilitatorClient) that
 * accepts every payment at verification and refuses every settlement: how a settlement
 * failure looks from the service. Its /supported answer (which names the Solana fee
 * payer) waits for `supported` when given: until then Solana is not usable.
 */
async function refusingFacilitator(feePayer: string, supported: Promise<void> = Promise.resolve()): Promise<{ url: string; stop(): Promise<void>; supportedAsked(): number }> {
  let asked = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", async () => {
      if (req.url === "/supported") {
        asked++;
        await supported;
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }, { x402Version: 2, scheme: "exact", network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", extra: { feePayer } }], extensions: [], signers: {} }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      const { paymentPayload } = JSON.parse(body || "{}");
      const payer = paymentPayload?.payload?.authorization?.from;
      if (req.url === "/verify") return res.end(JSON.stringify({ isValid: true, payer }));
      res.end(JSON.stringify({ success: false, errorReason: "insufficient_funds", transaction: "", network: "eip155:8453", payer }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise<void>((r) => server.close(() => r())), supportedAsked: () => asked };
}

describe("EVM + Solana + XLM configured", () => {
  let fx: Fixture;
  let facilitator: { url: string; stop(): Promise<void> };
  const payTo = "0x00000000000000000000000000000000000d15c0";
  beforeAll(async () => {
    const fee = solanaSecret();
    facilitator = await refusingFacilitator(fee.address);
    fx = await startFixture({
      env: {
        ...NO_METHODS,
        PAY_TO_ADDRESS: payTo,
        FACILITATOR_URL: facilitator.url,
        SOLANA_PAY_TO_ADDRESS: solanaSecret().address,
        STELLAR_PAY_TO_ADDRESS: Keypair.random().publicKey(),
        CACHE_DISABLED: "1",
      },
    });
    // Solana is offered once the remote facilitator's fee payer is known.
    await vi.waitFor(async () => expect(JSON.parse(Buffer.from((await paid402(fx, FNG)).header!, "base64").toString("utf8")).accepts).toHaveLength(2), { timeout: 15_000, interval: 250 });
  }, 180_000);
  afterAll(async () => {
    await fx?.close();
    await facilitator?.stop();
  });

  it("every document offers what the 402 accepts (EVM and Solana in accepts[], XLM beside them)", async () => {
    await expectDocumentsMatch402(fx, ["eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]);
    const r = await paid402(fx, FNG);
    expect(r.body.xlm).toMatchObject({ scheme: "xlm-memo", network: "stellar:pubnet", memo_type: "hash" });
    const llms = await (await fx.get("/llms.txt")).text();
    expect(llms).toMatch(/native XLM on stellar:pubnet/);
  });

  it("refusing an EVM payment fetches no XLM rate, and writes one log line naming method and reason", async () => {
    const accepted = JSON.parse(Buffer.from((await paid402(fx, FNG)).header!, "base64").toString("utf8")).accepts[0] as Requirement;
    const { privateKeyToAccount, generatePrivateKey } = await import("viem/accounts");
    const payer = privateKeyToAccount(generatePrivateKey());
    const wrong = await signAuthorization(payer, { to: payTo, value: BigInt(accepted.amount) - 1n });
    const header = v2Header(accepted, wrong);
    fx.sim.resetCounts();
    const logsBefore = fx.svc.logs().length;
    const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    expect((await res.json()).code).toBe("payment_invalid");
    expect(fx.sim.total("coingecko")).toBe(0);
    const lines = fx.svc.logs().slice(logsBefore).split("\n").filter((l) => l.includes('"payment.refused"'));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "warn", event: "payment.refused", product: "fng", surface: "http", method: "evm-exact", code: "payment_invalid" });
    expect(line.reason).toMatch(/costs exactly/);
    // The payment is named by what identifies it on its network (no ledger row exists yet).
    expect(line.reference).toBe(`${payer.address.toLowerCase()}:${wrong.authorization.nonce.toLowerCase()}`);
    expect(line.paymentId).toBeNull();
    expect(lines[0]).not.toContain(header);
    expect(lines[0]).not.toContain(wrong.signature);
  });

  it("a failed settlement writes one log line with the payment id, and nothing is delivered", async () => {
    const accepted = JSON.parse(Buffer.from((await paid402(fx, FNG)).header!, "base64").toString("utf8")).accepts[0] as Requirement;
    const { privateKeyToAccount, generatePrivateKey } = await import("viem/accounts");
    const payer = privateKeyToAccount(generatePrivateKey());
    const auth = await signAuthorization(payer, { to: payTo, value: BigInt(accepted.amount) });
    const logsBefore = fx.svc.logs().length;
    const res = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(accepted, auth) } });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(402);
    expect(body.code).toBe("settlement_failed");
    expect(res.headers.get("server-timing")).toMatch(/verify;.*dur=[\d.]+.*handler;dur=[\d.]+.*settle;.*dur=[\d.]+/);
    const lines = fx.svc.logs().slice(logsBefore).split("\n").filter((l) => l.includes('"payment.settlement_failed"'));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "error", product: "fng", method: "evm-exact", code: "settlement_failed", paymentId: expect.any(String) });
    expect(line.reference).toBe(`${payer.address.toLowerCase()}:${auth.authorization.nonce.toLowerCase()}`);
    expect(lines[0]).not.toContain(auth.signature);
  });
});

describe("EVM only, on a local chain", () => {
  let chain: Chain;
  let fx: Fixture;
  let payer: HDAccount;
  let payTo: HDAccount;
  const balances = async () => ({ payer: await chain.usdcBalance(payer.address), payTo: await chain.usdcBalance(payTo.address) });
  const fngRequirement = async () => JSON.parse(Buffer.from((await paid402(fx, FNG)).header!, "base64").toString("utf8")).accepts[0] as Requirement;

  beforeAll(async () => {
    chain = await startChain();
    payer = chain.accounts[1]!;
    payTo = chain.accounts[2]!;
    await chain.mintUsdc(payer.address, 10_000_000n);
    fx = await startFixture({ env: { ...NO_METHODS, PAY_TO_ADDRESS: payTo.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: chain.rpcUrl, CACHE_DISABLED: "1" } });
  }, 180_000);
  afterAll(async () => {
    await fx?.close();
    await chain?.stop();
  });

  it("every document offers what the 402 accepts", async () => {
    await expectDocumentsMatch402(fx, ["eip155:8453"]);
  });

  it("HEAD with a valid payment: 402 with the requirement, nothing verified or settled; the payment still works with GET", async () => {
    const req = await fngRequirement();
    const auth = await signAuthorization(payer, { to: payTo.address, value: BigInt(req.amount) });
    const header = v2Header(req, auth);
    const before = await balances();
    const head = await fx.get("/v1/fng", { method: "HEAD", headers: { "PAYMENT-SIGNATURE": header } });
    expect(head.status).toBe(402);
    expect(decodeB64Json<J>(head.headers.get("payment-required")).error).toMatch(/HEAD request is never charged/);
    expect(head.headers.get("payment-response")).toBeNull();
    expect(await balances()).toEqual(before);
    // Not locked, not spent: the same authorization pays a GET once.
    const get = await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(get.status, await get.clone().text()).toBe(200);
    const after = await balances();
    expect(before.payer - after.payer).toBe(BigInt(req.amount));
  });

  it("the official client (@x402/fetch) making a HEAD gets a clear 402 and pays nothing", async () => {
    const before = await balances();
    const res = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`, { method: "HEAD" });
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-response")).toBeNull();
    expect(await balances()).toEqual(before);
  });

  it("HEAD with a bundle token or a free key: 200 with the balance, nothing consumed; GET then charges once", async () => {
    const req = (await paid402(fx, productByPath("/v1/bundle")!)).header!;
    const bundleReq = JSON.parse(Buffer.from(req, "base64").toString("utf8")).accepts[0] as Requirement;
    const buy = await fx.get("/v1/bundle", { headers: { "PAYMENT-SIGNATURE": v2Header(bundleReq, await signAuthorization(payer, { to: payTo.address, value: BigInt(bundleReq.amount) })) } });
    expect(buy.status, await buy.clone().text()).toBe(200);
    const token = (await buy.json()).bundle_token as string;
    const usage = async (h: Record<string, string>) => (await fx.json("/v1/usage", { headers: h })).body as J;
    const credits0 = (await usage({ "X-Bundle-Token": token })).credits_remaining;
    expect(credits0).toBe(10);

    for (let i = 0; i < 3; i++) {
      const head = await fx.get("/v1/fng", { method: "HEAD", headers: { "X-Bundle-Token": token } });
      expect(head.status).toBe(200);
      expect(head.headers.get("x-bundle-credits-remaining")).toBe("10");
      expect(head.headers.get("x-bundle-credits-charged")).toBeNull();
      expect(head.headers.get("x-receipt-id")).toBeNull();
    }
    expect((await usage({ "X-Bundle-Token": token })).credits_remaining).toBe(10);
    const get = await fx.get("/v1/fng", { headers: { "X-Bundle-Token": token } });
    expect(get.status).toBe(200);
    expect(get.headers.get("x-bundle-credits-remaining")).toBe("9");
    expect(get.headers.get("server-timing")).toMatch(/verify;.*handler;.*settle;/);

    const key = ((await fx.json("/v1/free-key?email=head@example.com")).body as J).api_key as string;
    for (let i = 0; i < 3; i++) {
      const head = await fx.get("/v1/fng", { method: "HEAD", headers: { "X-Api-Key": key } });
      expect(head.status).toBe(200);
      expect(head.headers.get("x-quota-remaining")).toBe("50");
    }
    expect((await usage({ "X-Api-Key": key })).remaining_today).toBe(50);
    const keyGet = await fx.get("/v1/fng", { headers: { "X-Api-Key": key } });
    expect(keyGet.headers.get("x-quota-remaining")).toBe("49");
  });

  it("a paid GET carries Server-Timing with verification, handler and settlement", async () => {
    const res = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
    expect(res.status).toBe(200);
    const t = res.headers.get("server-timing")!;
    for (const phase of ["verify", "handler", "settle"]) expect(t).toMatch(new RegExp(`${phase};(desc="[^"]*";)?dur=\\d+(\\.\\d+)?`));
  });
});

describe("documents kept for reuse follow the registry: Solana turns usable after they were first served", () => {
  const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
  let fx: Fixture;
  let facilitator: Awaited<ReturnType<typeof refusingFacilitator>>;
  let answerSupported: () => void = () => {};

  beforeAll(async () => {
    const supported = new Promise<void>((r) => (answerSupported = r));
    facilitator = await refusingFacilitator(solanaSecret().address, supported);
    fx = await startFixture({
      env: {
        ...NO_METHODS,
        PAY_TO_ADDRESS: "0x00000000000000000000000000000000000d15c0",
        FACILITATOR_URL: facilitator.url,
        SOLANA_PAY_TO_ADDRESS: solanaSecret().address,
        // The held /supported request must not time out (a failed one is retried only after 30 s).
        PAYMENT_TIMEOUT_MS: "120000",
        CACHE_DISABLED: "1",
      },
    });
  }, 180_000);
  afterAll(async () => {
    answerSupported();
    await fx?.close();
    await facilitator?.stop();
  });

  /** The networks of every x-payment-info offer in an OpenAPI document. */
  const offered = (oas: J) => [...new Set(Object.values(oas.paths as Record<string, J>).flatMap((item) => (item.get?.["x-payment-info"]?.offers ?? []).map((o: J) => o.network as string)))];
  const acceptsOf = async () => JSON.parse(Buffer.from((await paid402(fx, FNG)).header!, "base64").toString("utf8")).accepts.map((a: Requirement) => a.network) as string[];

  it("OpenAPI, spec.pdf and MCP tools/list fetched before omit Solana; fetched again after, they name it", async () => {
    // Before: the facilitator has been asked for its fee payer and has not answered.
    const oasBefore = (await fx.json("/openapi.json")).body as J;
    const pdfBefore = (await pdfText(fx)).replace(/\s+/g, "");
    const toolsBefore = await paidTools(fx);
    await vi.waitFor(() => expect(facilitator.supportedAsked()).toBeGreaterThan(0), { timeout: 10_000 });
    expect(await acceptsOf()).toEqual(["eip155:8453"]);
    expect(offered(oasBefore)).toEqual(["eip155:8453"]);
    expect(pdfBefore).not.toContain(SOLANA);
    for (const t of toolsBefore) expect(t.description, t.name).not.toContain(SOLANA);

    answerSupported();
    await vi.waitFor(async () => expect(await acceptsOf()).toEqual(["eip155:8453", SOLANA]), { timeout: 15_000, interval: 250 });

    const oasAfter = (await fx.json("/openapi.json")).body as J;
    expect(offered(oasAfter)).toEqual(["eip155:8453", SOLANA]);
    expect((await pdfText(fx)).replace(/\s+/g, "")).toContain(SOLANA);
    for (const t of await paidTools(fx)) expect(t.description, t.name).toContain(SOLANA);
    // And every other document agrees with the 402 now.
    await expectDocumentsMatch402(fx, ["eip155:8453", SOLANA]);
  });
});
