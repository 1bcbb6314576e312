/**
 * Cards for agent clients, all generated from the catalog and the MCP tool list:
 * - the A2A agent card (card version 0.2.0, A2A protocol 0.3.0, preferred transport
 *   HTTP+JSON): one skill per catalog product plus the free tools, prices in each
 *   skill's description; push notifications, streaming and state history off (spec 6);
 * - the MCP server card (SEP-1649 shape, schema version 1.0) for /mcp;
 * - /.well-known/mcp.json, a fuller manifest of the MCP server with every tool's input
 *   schema, price and HTTP path, and a ready-to-paste client configuration.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { usd6, usdLabel } from "@/lib/payments/price";
import { SERVICE, paidProducts, paramDocs, paymentFacts, priceLine } from "@/lib/discovery/service";
import { toolList, type ToolInfo } from "@/lib/discovery/tools";
import { MCP_INSTRUCTIONS } from "@/lib/mcp/info";
import { docUrl } from "@/lib/discovery/documents";
import { bundlePaths, freeEndpoint } from "@/lib/catalog/lookup";

function securitySchemes() {
  return {
    x402: { type: "apiKey", in: "header", name: "X-PAYMENT", description: "x402 v1 payment payload (the v2 header PAYMENT-SIGNATURE is accepted too)." },
    ApiKeyAuth: { type: "apiKey", in: "header", name: "X-Api-Key", description: `Free-tier API key (GET ${freeEndpoint("/v1/free-key").path}).` },
    BundleToken: { type: "apiKey", in: "header", name: "X-Bundle-Token", description: `Prepaid bundle token (GET ${bundlePaths().join(" or GET ")}).` },
  };
}

function example(p: AnyProduct): string {
  const q = new URLSearchParams();
  for (const [name, d] of paramDocs(p.params)) if (d.required && d.example) q.set(name, d.example);
  const s = q.toString();
  return `GET ${p.path}${s ? `?${s}` : ""}`;
}

function productSkill(p: AnyProduct) {
  return {
    id: p.id,
    name: p.title,
    description: `${p.description} Price: ${priceLine(p)}.`,
    tags: p.tags,
    examples: [example(p)],
    inputModes: ["application/json"],
    outputModes: ["application/json"],
  };
}

function freeToolSkill(t: ToolInfo) {
  return {
    id: t.name,
    name: t.title,
    description: `${t.description} MCP tool ${t.name}, free.`,
    tags: ["free", "mcp"],
    examples: [`MCP tools/call ${t.name}`],
    inputModes: ["application/json"],
    outputModes: ["application/json"],
  };
}

/** A2A agent card (served at /.well-known/agent-card.json and the two legacy paths). */
export function agentCard(base: string): Record<string, unknown> {
  return {
    protocolVersion: SERVICE.a2aProtocolVersion,
    name: SERVICE.title,
    description: SERVICE.description,
    url: base,
    preferredTransport: SERVICE.preferredTransport,
    additionalInterfaces: [{ url: base, transport: SERVICE.preferredTransport }],
    provider: { organization: SERVICE.title, url: base },
    version: SERVICE.agentCardVersion,
    documentationUrl: docUrl(base, "/llms.txt"),
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: securitySchemes(),
    security: [{ x402: [] }, { ApiKeyAuth: [] }, { BundleToken: [] }],
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [...toolList().filter((t) => t.free && !t.path).map(freeToolSkill), ...paidProducts().map(productSkill)],
    supportsAuthenticatedExtendedCard: false,
  };
}

function cardTool(t: ToolInfo) {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    _meta: { price_usd: usd6(t.price), free: t.free, http_path: t.path },
  };
}

/** MCP server card, schema version 1.0 (/.well-known/mcp/server-card.json). */
export function mcpServerCard(base: string): Record<string, unknown> {
  return {
    $schema: "https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json",
    version: SERVICE.serverCardVersion,
    protocolVersion: SERVICE.mcpProtocolVersion,
    serverInfo: { name: SERVICE.name, title: SERVICE.title, version: SERVICE.mcpServerVersion },
    description: SERVICE.description,
    documentationUrl: docUrl(base, "/llms.txt"),
    transport: { type: SERVICE.mcpTransport, endpoint: SERVICE.mcpPath },
    capabilities: { tools: { listChanged: false } },
    authentication: { required: false, schemes: [] },
    instructions: MCP_INSTRUCTIONS,
    tools: toolList().map(cardTool),
  };
}


/** /.well-known/mcp.json: the MCP server and every tool with its schema and price. */
export function mcpManifest(base: string): Record<string, unknown> {
  const pay = paymentFacts();
  const tools = toolList();
  const prices = tools.filter((t) => !t.free).map((t) => Number(t.price));
  return {
    name: SERVICE.name,
    title: SERVICE.title,
    version: SERVICE.mcpServerVersion,
    description: SERVICE.description,
    protocolVersion: SERVICE.mcpProtocolVersion,
    transport: { type: SERVICE.mcpTransport, url: `${base}${SERVICE.mcpPath}` },
    endpoint: `${base}${SERVICE.mcpPath}`,
    capabilities: { tools: { listChanged: false } },
    authentication: { required: false, note: "No account. Paid tools take the credential as a tool argument (payment, bundle_token or api_key)." },
    payment: {
      protocol: "x402",
      scheme: "exact",
      network: pay.network,
      asset: pay.asset,
      argument: "payment",
      meta_key: "x402/payment",
      price_range_usd: { min: usd6(String(Math.min(...prices))), max: usd6(String(Math.max(...prices))) },
    },
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      price_usd: usd6(t.price),
      price_label: t.free ? "free" : usdLabel(t.price),
      free: t.free,
      http_path: t.path,
      inputSchema: t.inputSchema,
    })),
    client_config: { mcpServers: { [SERVICE.name]: { type: SERVICE.mcpTransport, url: `${base}${SERVICE.mcpPath}` } } },
    documents: { server_card: docUrl(base, "/.well-known/mcp/server-card.json"), openapi: docUrl(base, "/openapi.json"), llms_txt: docUrl(base, "/llms.txt") },
  };
}
