/**
 * JSON answers of the tool-interface proxy paths (spec 4.4): `/mcp` (anything but a
 * JSON-RPC POST or an SSE GET), `/mcp/{path}` and `/mcp?path=...`, on every method. They
 * describe the server and its tools for agents and humans that are not (yet) MCP
 * clients; everything comes from the same tool definitions the MCP server registers.
 *
 *   ""              server description (name, version, transport, URL, tools with prices)
 *   "tools"         every tool with its schemas, price and accepted credentials
 *   "tools/<name>"  one tool, plus a ready-to-send tools/call example
 */
import { stringParam } from "@/lib/catalog/params";
import { paymentFacts } from "@/lib/discovery/service";
import { ApiError } from "@/lib/errors";
import { docUrl } from "@/lib/discovery/documents";
import { usdLabel } from "@/lib/payments/price";
import { CREDENTIAL_ARGS } from "@/lib/mcp/arguments";
import { MCP_PATH, MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO, MCP_SPEC_PROTOCOL_VERSION, MCP_TRANSPORT } from "@/lib/mcp/info";
import { mcpInstructions, mcpTool, mcpTools, type McpToolDef } from "@/lib/mcp/tools";

/**
 * The `path` of /mcp/{path} and /mcp?path=: slash-separated segments of letters,
 * digits, "_" and "-", at most 128 characters; leading/trailing slashes are ignored.
 */
export const MCP_PATH_PARAM = stringParam({
  description: 'Sub-resource of the MCP endpoint: "" (server description), "tools", or "tools/<tool name>".',
  pattern: /^(?:[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*)?$/,
  patternText: "^(?:[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*)?$",
  default: "",
  maxLength: 128,
  example: "tools/get_xlm_quote",
  normalize: (s) => s.replace(/^\/+|\/+$/g, ""),
});

/** The sub-paths served, for 404 hints. */
export const MCP_SUBPATHS = ["", "tools", "tools/{name}"] as const;

/**
 * Credentials a tool accepts (bundles are bought with a payment only; premium reports are
 * not on the free tier; `payment` only while this instance takes per-call payments).
 */
function credentialsOf(t: McpToolDef): string[] {
  const p = t.product;
  if (!p) return [];
  const perCall = paymentFacts().perCall;
  if (p.kind === "bundle") return perCall ? ["payment"] : [];
  return CREDENTIAL_ARGS.filter((c) => (c !== "api_key" || p.freeTier) && (c !== "payment" || perCall));
}

function summary(t: McpToolDef) {
  return { name: t.name, title: t.title, price_usd: t.price, price: t.free ? "free" : usdLabel(t.price), free: t.free, endpoint: t.endpoint };
}

function detail(t: McpToolDef, base: string) {
  return {
    ...summary(t),
    description: t.description,
    http_price_usd: t.product?.httpPrice ?? null,
    credentials: credentialsOf(t),
    input_schema: t.inputSchema,
    output_schema: t.outputSchema,
    annotations: t.annotations,
    url: `${base}${MCP_PATH}/tools/${t.name}`,
  };
}

/** A ready-to-send JSON-RPC tools/call body with the tool's defaults. */
function exampleCall(t: McpToolDef) {
  const props = (t.inputSchema.properties ?? {}) as Record<string, { default?: unknown; examples?: unknown[] }>;
  const args: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(props)) {
    if ((CREDENTIAL_ARGS as readonly string[]).includes(name)) continue;
    const v = s.examples?.[0] ?? s.default;
    if (v !== undefined && v !== "") args[name] = v;
  }
  const accepted = credentialsOf(t);
  const cred = accepted.includes("api_key") ? { api_key: "<free-tier key>" } : accepted.includes("payment") ? { payment: "<base64 x402 payment payload>" } : accepted.includes("bundle_token") ? { bundle_token: "<bundle token>" } : {};
  return { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: t.name, arguments: { ...args, ...cred } } };
}

/** The per-call payment this instance accepts (from the payment-method registry), or null. */
function mcpPayment() {
  const pay = paymentFacts();
  if (!pay.perCall) return null;
  return {
    protocol: "x402",
    // `exact` and its first network when an x402 method is accepted; null when only other schemes (XLM with a memo) are.
    scheme: pay.x402.length > 0 ? "exact" : null,
    network: pay.network,
    asset: pay.asset?.address ?? null,
    pay_to: pay.pay_to,
    methods: pay.methods.map((m) => ({ id: m.id, scheme: m.scheme, network: m.network, asset: m.asset, pay_to: m.payTo })),
  };
}

/** GET /mcp without an SSE request: what this endpoint is and how to use it. */
export function serverDescription(base: string) {
  return {
    name: MCP_SERVER_INFO.name,
    version: MCP_SERVER_INFO.version,
    protocol: "mcp",
    transport: MCP_TRANSPORT,
    url: `${base}${MCP_PATH}`,
    stateless: true,
    protocol_version: MCP_SPEC_PROTOCOL_VERSION,
    protocol_versions: MCP_PROTOCOL_VERSIONS,
    usage: `POST JSON-RPC 2.0 messages (initialize, tools/list, tools/call) to ${base}${MCP_PATH} with Content-Type: application/json and Accept: application/json, text/event-stream. No session (DELETE has nothing to end), no standalone SSE stream (GET with Accept: text/event-stream answers 405).`,
    instructions: mcpInstructions(),
    payment: mcpPayment(),
    tool_count: mcpTools().length,
    tools: mcpTools().map(summary),
    links: {
      tools: `${base}${MCP_PATH}/tools`,
      tool: `${base}${MCP_PATH}/tools/{name}`,
      server_card: docUrl(base, "/.well-known/mcp/server-card.json"),
    },
  };
}

/** DELETE /mcp: the acknowledgement that a stateless server has no session to end. */
export function sessionEnd(base: string) {
  return {
    url: `${base}${MCP_PATH}`,
    stateless: true,
    session_terminated: false,
    message: "This MCP server is stateless: it issues no Mcp-Session-Id, so there is no session to terminate. Nothing was changed.",
  };
}

/** The JSON of a (validated, normalised) sub-path; throws a 404 ApiError when there is none. */
export function pathView(path: string, base: string): unknown {
  if (path === "") return serverDescription(base);
  if (path === "tools") return { count: mcpTools().length, tools: mcpTools().map((t) => detail(t, base)) };
  const m = path.match(/^tools\/([^/]+)$/);
  if (m) {
    const t = mcpTool(m[1]!);
    if (t) return { ...detail(t, base), example: exampleCall(t) };
    throw new ApiError("not_found", `No tool named "${m[1]}". GET ${MCP_PATH}/tools lists the ${mcpTools().length} tools.`, {
      extra: { tools: mcpTools().map((x) => x.name) },
    });
  }
  throw new ApiError("not_found", `No resource at ${MCP_PATH}/${path}. The MCP transport is POST ${MCP_PATH} (streamable HTTP; no HTTP+SSE endpoints); JSON views: ${MCP_SUBPATHS.map((s) => `${MCP_PATH}${s ? "/" + s : ""}`).join(", ")}.`, {
    extra: { available: MCP_SUBPATHS.map((s) => `${MCP_PATH}${s ? "/" + s : ""}`) },
  });
}
