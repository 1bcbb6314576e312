/**
 * The x402 Bazaar declarations as a client and a facilitator see them, on the built
 * service with EVM and Solana accepted and a public base URL: every paid HTTP path's 402
 * (the v2 PAYMENT-REQUIRED header decoded by @x402/core, the v1 body), every paid MCP
 * tool's payment-required result and an A2A skill's requirement. Each declaration passes
 * @x402/extensions' own validators; the official x402 client then builds the payment
 * payload (echoing the extensions, as clients do) and the package's own extraction (what
 * a facilitator runs to catalogue the resource) reads the resource back: its URL, method
 * or tool, the example parameters and output from the catalog, and the service's name,
 * tags and icon. The payment-identifier extension is declared optional with the
 * package's schema. The encoded v2 requirement stays within one 8 KB header line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirementsV1 } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { extractDiscoveryInfo, validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, isPaymentIdentifierExtension, isValidPaymentId } from "@x402/extensions/payment-identifier";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { PRODUCTS } from "@/lib/catalog";
import { exampleParams, REQUIREMENT_HEADER_BUDGET } from "@/lib/access/x402-extensions";
import { MAX_CREDENTIAL } from "@/lib/access/credentials";
import { startFixture, type Fixture } from "../helpers/fixture";
import { closedPort } from "../helpers/services";
import { solanaSecret } from "../helpers/solana-key";

const BASE = "https://echo.example.com";
const PAID_TOOLS = PRODUCTS.filter((p) => p.tool);

let fx: Fixture;
let mcp: Client;
// No spend cap: the enterprise bundle costs more than the client's default limit.
const client = x402Client.fromConfig({ schemes: [{ network: "eip155:*", client: new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(generatePrivateKey()))) }], spendControls: false });
/** Encoded sizes seen, for the report at the end. */
const sizes: Array<{ where: string; requirement: number; signature: number }> = [];

beforeAll(async () => {
  const rpc = `http://127.0.0.1:${await closedPort()}`;
  const fee = solanaSecret();
  fx = await startFixture({
    env: {
      PUBLIC_BASE_URL: BASE,
      PAY_TO_ADDRESS: "0x00000000000000000000000000000000000d15c0",
      FACILITATOR_PRIVATE_KEY: generatePrivateKey(),
      SETTLEMENT_RPC_URL: rpc,
      FACILITATOR_URL: undefined,
      SOLANA_PAY_TO_ADDRESS: solanaSecret().address,
      SOLANA_FEE_PAYER_SECRET: fee.secret,
      SOLANA_RPC_URL: rpc,
    },
  });
  mcp = new Client({ name: "bazaar-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${fx.svc.url}/mcp`)));
}, 180_000);
afterAll(async () => {
  await mcp?.close();
  await fx?.close();
  const worst = [...sizes].sort((a, b) => b.requirement - a.requirement)[0];
  if (worst) console.log(`bazaar: largest PAYMENT-REQUIRED ${worst.requirement} B (${worst.where}); its client echo in PAYMENT-SIGNATURE ${worst.signature} B`);
});

/** Checks a declared bazaar extension with the package's validators and returns it. */
function validBazaar(extensions: Record<string, unknown> | undefined): DiscoveryExtension {
  const bazaar = extensions?.bazaar as DiscoveryExtension;
  expect(bazaar).toBeDefined();
  expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });
  expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
  return bazaar;
}

/**
 * The payment-identifier declaration: optional, with the package's own schema, and an id
 * suggested for this requirement alone (a valid one, different every time) that the
 * official client carries into the payment it signs (see clientAndFacilitator).
 */
const suggested = new Set<string>();
function expectPaymentIdentifier(extensions: Record<string, unknown> | undefined): void {
  const declared = extensions?.["payment-identifier"] as { info: { required: boolean; id?: string }; schema: unknown } | undefined;
  expect(isPaymentIdentifierExtension(declared)).toBe(true);
  const { id, ...info } = declared!.info;
  expect({ ...declared, info }).toEqual(declarePaymentIdentifierExtension(false));
  expect(isValidPaymentId(id!)).toBe(true);
  expect(suggested.has(id!)).toBe(false);
  suggested.add(id!);
}

/** The payload the official client signs for this requirement (echoing its extensions), and what a facilitator extracts from it. */
async function clientAndFacilitator(required: PaymentRequired, where: string) {
  const payload: PaymentPayload = await client.createPaymentPayload(required);
  expect(payload.extensions).toEqual(required.extensions);
  // The id our requirement suggested is the payment's identifier.
  expect(extractPaymentIdentifier(payload)).toBe((required.extensions?.["payment-identifier"] as { info: { id: string } }).info.id);
  // What a v2 header carries (an MCP result adds spec 2.2's fields beside it).
  const { x402Version, error, resource, accepts, extensions } = required;
  const requirement = Buffer.from(JSON.stringify({ x402Version, error, resource, accepts, extensions })).toString("base64").length;
  const signature = encodePaymentSignatureHeader(payload).length;
  sizes.push({ where, requirement, signature });
  expect(requirement).toBeLessThanOrEqual(REQUIREMENT_HEADER_BUDGET);
  expect(signature).toBeLessThanOrEqual(MAX_CREDENTIAL);
  const found = extractDiscoveryInfo(payload, payload.accepted);
  expect(found).not.toBeNull();
  return found!;
}

const service = { serviceName: "Echo x402 Sentiment", iconUrl: `${BASE}/favicon.svg` };

describe("HTTP 402", () => {
  it.each(PRODUCTS.map((p) => [p.path, p] as const))("%s: the v2 header and the v1 body declare the resource for the Bazaar", async (_path, p) => {
    const query = new URLSearchParams(exampleParams(p, true) as Record<string, string>).toString();
    const res = await fx.get(`${p.path}${query ? `?${query}` : ""}`);
    expect(res.status).toBe(402);
    const header = res.headers.get("payment-required")!;
    const required = decodePaymentRequiredHeader(header);
    expect(required.accepts.map((a) => a.network)).toEqual(["eip155:8453", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]);
    validBazaar(required.extensions);
    expectPaymentIdentifier(required.extensions);
    expect(required.resource).toMatchObject({ url: `${BASE}${p.path}`, ...service, tags: expect.arrayContaining(p.tags.slice(0, 3)) });

    const found = await clientAndFacilitator(required, `GET ${p.path}`);
    expect(found).toMatchObject({ resourceUrl: `${BASE}${p.path}`, method: "GET", x402Version: 2, ...service });
    expect(found.discoveryInfo.input).toMatchObject({ type: "http", method: "GET", queryParams: exampleParams(p, false) });
    expect(found.discoveryInfo.output).toEqual({ type: "json", example: JSON.parse(JSON.stringify(p.example)) });

    // v1: the same extensions in the body, and accepts[].outputSchema as v1 discovery reads it.
    const body = (await res.json()) as { x402Version: number; accepts: PaymentRequirementsV1[]; extensions: Record<string, unknown> };
    expect(body.x402Version).toBe(1);
    expect(body.extensions).toEqual(required.extensions);
    for (const accepted of body.accepts) {
      const v1 = extractDiscoveryInfo({ x402Version: 1, scheme: accepted.scheme, network: accepted.network, payload: {} } as unknown as PaymentPayload, accepted);
      expect(v1).toMatchObject({ resourceUrl: `${BASE}${p.path}`, method: "GET", x402Version: 1 });
      expect(v1!.discoveryInfo).toMatchObject({ input: { type: "http", method: "GET", queryParams: exampleParams(p, false) }, output: { example: JSON.parse(JSON.stringify(p.example)) } });
    }
  });
});

describe("MCP payment-required result", () => {
  it.each(PAID_TOOLS.map((p) => [p.tool!.name, p] as const))("%s: declares the tool for the Bazaar", async (name, p) => {
    const result = await mcp.callTool({ name, arguments: exampleParams(p, true) });
    expect(result.isError).toBe(true);
    const required = result.structuredContent as unknown as PaymentRequired;
    const bazaar = validBazaar(required.extensions);
    expectPaymentIdentifier(required.extensions);
    const tools = await mcp.listTools();
    const declared = tools.tools.find((t) => t.name === name)!;
    expect(bazaar.info.input).toMatchObject({ type: "mcp", toolName: name, inputSchema: declared.inputSchema, transport: "streamable-http" });

    const found = await clientAndFacilitator(required, `MCP ${name}`);
    expect(found).toMatchObject({ resourceUrl: `${BASE}/mcp`, toolName: name, ...service });
    expect(found.discoveryInfo.output).toEqual({ type: "json", example: JSON.parse(JSON.stringify(p.example)) });
  });
});

describe("A2A requirement", () => {
  it("declares the JSON-RPC message that runs the skill, and sending that message asks for the same payment", async () => {
    const ask = async (body: unknown) => {
      const res = await fetch(`${fx.svc.url}/a2a/jsonrpc`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const answer = await res.json();
      const task = answer.result as { status: { state: string; message: { metadata: Record<string, unknown> } } };
      expect(task?.status.state, JSON.stringify(answer)).toBe("input-required");
      return task.status.message.metadata["x402.payment.required"] as PaymentRequired;
    };
    const first = await ask({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "screen" }], metadata: { skill: "multi-asset" } } } });
    const bazaar = validBazaar(first.extensions);
    expectPaymentIdentifier(first.extensions);
    const found = await clientAndFacilitator(first, "A2A multi-asset");
    expect(found).toMatchObject({ method: "POST", ...service });
    // The declared body is a request this service answers with the same requirement.
    const declaredBody = (bazaar.info.input as { body: Record<string, unknown> }).body;
    const again = await ask(declaredBody);
    // The same declaration (each requirement suggests a payment id of its own).
    expect(again.extensions?.bazaar).toEqual(first.extensions?.bazaar);
    expectPaymentIdentifier(again.extensions);
    expect(again.accepts).toEqual(first.accepts);
  });
});

describe("without a public base URL", () => {
  it("a loopback base names the service but leaves out the icon, which the Bazaar would refuse", async () => {
    const local = await startFixture({ env: { PAY_TO_ADDRESS: "0x00000000000000000000000000000000000d15c0", FACILITATOR_PRIVATE_KEY: generatePrivateKey(), FACILITATOR_URL: undefined, PUBLIC_BASE_URL: undefined } });
    try {
      const required = decodePaymentRequiredHeader((await local.get("/v1/fng")).headers.get("payment-required")!);
      expect(required.resource).toMatchObject({ url: `${local.svc.url}/v1/fng`, serviceName: service.serviceName });
      expect(required.resource).not.toHaveProperty("iconUrl");
      validBazaar(required.extensions);
    } finally {
      await local.close();
    }
  });
});
