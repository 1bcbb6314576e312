/**
 * Cards for agent clients, all generated from the catalog and the MCP tool list:
 * - the A2A agent card (card version 0.2.0, A2A protocol 1.0 with 0.3 compatibility, preferred
 *   transport HTTP+JSON; the 0.3 card for clients that ask for no version): one skill per catalog product plus the free tools, prices in each
 *   skill's description; push notifications, streaming and state history off (spec 6);
 * - the MCP server card (SEP-1649 shape, schema version 1.0) for /mcp;
 * - /.well-known/mcp.json, a fuller manifest of the MCP server with every tool's input
 *   schema, price and HTTP path, and a ready-to-paste client configuration.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { usd6, usdLabel } from "@/lib/payments/price";
import { SERVICE, paidProducts, paramDocs, paymentFacts, priceLine } from "@/lib/discovery/service";
import { toolList, type ToolInfo } from "@/lib/discovery/tools";
import { mcpInstructions } from "@/lib/mcp/tools";
import { docUrl } from "@/lib/discovery/documents";
import { bundlePaths, freeEndpoint } from "@/lib/catalog/lookup";
import { A2A_JSONRPC_PATH, A2A_LEGACY_VERSION, A2A_REST_PATH, META, X402_EXTENSION_URI } from "@/lib/a2a/protocol";
import { a2aSkills } from "@/lib/a2a/skills";
import { A2A_PRICE_NAME } from "@/lib/catalog/surfaces";

type PaymentFacts = ReturnType<typeof paymentFacts>;

/** The credentials of a paid skill; the payment header only when this instance takes per-call payments. */
function securitySchemes(pay: PaymentFacts) {
  return {
    ...(pay.perCall
      ? { x402: { type: "apiKey", in: "header", name: "X-PAYMENT", description: `Per-call payment payload, base64 (x402 v1 header; the v2 header PAYMENT-SIGNATURE is accepted too): ${pay.methods.map((m) => m.label).join(" or ")}.` } }
      : {}),
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

/** How an A2A client calls a skill (a message example). */
function a2aExample(id: string, params: Record<string, string>): string {
  return `A2A message/send: metadata {"${META.skill}":"${id}"}, data part ${JSON.stringify(params)}`;
}

function productSkill(p: AnyProduct) {
  const params = Object.fromEntries(paramDocs(p.params).filter(([, d]) => d.required && d.example).map(([n, d]) => [n, String(d.example)]));
  return {
    id: p.id,
    name: p.title,
    description: `${p.description} Price: ${priceLine(p)}; over A2A the ${A2A_PRICE_NAME}.`,
    tags: p.tags,
    examples: [example(p), a2aExample(p.id, params)],
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
    examples: [`MCP tools/call ${t.name}`, a2aExample(t.name, {})],
    inputModes: ["application/json"],
    outputModes: ["application/json"],
  };
}

/** How an A2A client calls and pays; the a2a-x402 extension is named only when an x402 method is accepted. */
function a2aHowTo(pay: PaymentFacts): string {
  const credentials = `put a bundle token in metadata["${META.bundleToken}"] or a free-tier key in metadata["${META.apiKey}"]`;
  const paid =
    pay.x402.length > 0
      ? `Paid skills cost their ${A2A_PRICE_NAME}: pay with the a2a-x402 extension (${pay.x402.map((m) => m.label).join(" or ")}; the task answers input-required with the requirement under metadata["${META.paymentRequired}"]; send the signed PaymentPayload under metadata["${META.paymentPayload}"] on the same task), or ${credentials}.`
      : `Paid skills cost their ${A2A_PRICE_NAME}: ${credentials} (this instance takes no x402 payment).`;
  return `A2A: name the skill in message.metadata["${META.skill}"] and put its parameters in one data part; the result is a data artifact with the same JSON as the HTTP answer. ${paid}`;
}

function skillCards() {
  const tools = toolList();
  return a2aSkills().map((s) => {
    if (!s.free) return productSkill(s.product);
    const tool = tools.find((t) => t.name === s.tool);
    if (!tool) throw new Error(`free skill ${s.id} has no MCP tool`);
    return freeToolSkill(tool);
  });
}

/** The a2a-x402 extension, declared only when an x402 method is accepted (it carries x402 requirements). */
export function a2aExtensions(pay: PaymentFacts = paymentFacts()): Array<{ uri: string; description: string; required: boolean }> {
  if (pay.x402.length === 0) return [];
  return [
    {
      uri: X402_EXTENSION_URI,
      description: `Payments with x402 (standalone flow): ${pay.x402.map((m) => m.label).join(" or ")} per call at the skill's ${A2A_PRICE_NAME}; bundle tokens and free-tier keys in message metadata work too.`,
      required: false,
    },
  ];
}

/** Version a client asked for in its `A2A-Version` header; absent means 0.3 (A2A 1.0, section 3.6.2). */
export function requestedA2aVersion(req: Request | undefined): string {
  return req?.headers.get("a2a-version")?.trim() || "0.3";
}

/** Whether `version` (an `A2A-Version` value) is 1.0 or later. */
export function isA2aV1(version: string): boolean {
  const major = Number(/^(\d+)/.exec(version)?.[1] ?? NaN);
  return Number.isFinite(major) && major >= 1;
}

/**
 * The card's interfaces in A2A 1.0 terms: each binding once at 1.0 and once at 0.3 (the
 * same URLs; the `A2A-Version` header of each request picks the version it is served).
 * The HTTP+JSON binding's 1.0 operations are under `{base}/a2a/v1` (`/message:send`), the
 * URL where its 0.3 operations were already (`{base}/a2a` + `/v1/message:send`).
 */
export function a2aInterfaces(base: string): Array<{ url: string; protocolBinding: string; protocolVersion: string }> {
  return [
    { url: `${base}${A2A_REST_PATH}/v1`, protocolBinding: SERVICE.preferredTransport, protocolVersion: SERVICE.a2aProtocolVersion },
    { url: `${base}${A2A_JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: SERVICE.a2aProtocolVersion },
    { url: `${base}${A2A_REST_PATH}`, protocolBinding: SERVICE.preferredTransport, protocolVersion: A2A_LEGACY_VERSION },
    { url: `${base}${A2A_JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: A2A_LEGACY_VERSION },
  ];
}

/** The 0.3 security schemes in A2A 1.0's shape (a oneof per scheme; `location` for `in`). */
function v1SecuritySchemes(pay: PaymentFacts) {
  const schemes = securitySchemes(pay) as Record<string, { in: string; name: string; description: string }>;
  return Object.fromEntries(Object.entries(schemes).map(([k, v]) => [k, { apiKeySecurityScheme: { location: v.in, name: v.name, description: v.description } }]));
}

function securityRequirements(pay: PaymentFacts): string[] {
  return [...(pay.perCall ? ["x402"] : []), "ApiKeyAuth", "BundleToken"];
}

/**
 * The A2A agent card (served at /.well-known/agent-card.json and the two legacy paths),
 * chosen by the request's `A2A-Version` header as the A2A 1.0 specification says: a
 * client that asks for 1.0 gets the 1.0 card (`supportedInterfaces`, proto-JSON security
 * schemes); one that sends no version (0.3 clients) gets the 0.3 card, which also carries
 * `supportedInterfaces` so a 1.x client reading it still sees the 1.0 interfaces.
 */
export function agentCard(base: string, req?: Request): Record<string, unknown> {
  return isA2aV1(requestedA2aVersion(req)) ? agentCardV1(base) : agentCardV03(base);
}

/** The A2A 1.0 card (valid against the 1.0 JSON Schema derived from a2a.proto). */
export function agentCardV1(base: string): Record<string, unknown> {
  const pay = paymentFacts();
  return {
    name: SERVICE.title,
    description: `${SERVICE.description} ${a2aHowTo(pay)}`,
    supportedInterfaces: a2aInterfaces(base),
    provider: { organization: SERVICE.title, url: base },
    version: SERVICE.agentCardVersion,
    documentationUrl: docUrl(base, "/llms.txt"),
    capabilities: { streaming: false, pushNotifications: false, extensions: a2aExtensions(pay), extendedAgentCard: false },
    securitySchemes: v1SecuritySchemes(pay),
    securityRequirements: securityRequirements(pay).map((k) => ({ schemes: { [k]: { list: [] } } })),
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: skillCards(),
  };
}

/** The A2A 0.3 card (valid against the 0.3.0 JSON Schema), with the 1.0 interfaces beside its own. */
export function agentCardV03(base: string): Record<string, unknown> {
  const rest = `${base}${A2A_REST_PATH}`;
  const pay = paymentFacts();
  return {
    protocolVersion: SERVICE.a2aLegacyProtocolVersion,
    name: SERVICE.title,
    description: `${SERVICE.description} ${a2aHowTo(pay)}`,
    url: rest,
    preferredTransport: SERVICE.preferredTransport,
    additionalInterfaces: [
      { url: rest, transport: SERVICE.preferredTransport },
      { url: `${base}${A2A_JSONRPC_PATH}`, transport: "JSONRPC" },
    ],
    supportedInterfaces: a2aInterfaces(base),
    provider: { organization: SERVICE.title, url: base },
    version: SERVICE.agentCardVersion,
    documentationUrl: docUrl(base, "/llms.txt"),
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: false,
      extensions: a2aExtensions(pay),
    },
    securitySchemes: securitySchemes(pay),
    security: securityRequirements(pay).map((k) => ({ [k]: [] })),
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: skillCards(),
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
    instructions: mcpInstructions(),
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
    // Only what this instance accepts: null when no per-call method is configured.
    payment:
      pay.methods.length > 0
        ? {
            protocol: "x402",
            // The x402 `exact` scheme and its first network, or null when only other schemes (XLM with a memo) are accepted.
            scheme: pay.x402.length > 0 ? "exact" : null,
            network: pay.network,
            asset: pay.asset,
            methods: pay.methods.map((m) => ({ id: m.id, scheme: m.scheme, network: m.network, asset: m.asset, pay_to: m.payTo })),
            argument: "payment",
            meta_key: "x402/payment",
            price_range_usd: { min: usd6(String(Math.min(...prices))), max: usd6(String(Math.max(...prices))) },
          }
        : null,
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
