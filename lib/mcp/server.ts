/**
 * The MCP server itself: `mcp-handler` (on @modelcontextprotocol/server 2.x) serving
 * stateless streamable HTTP, one fresh McpServer per request, no Redis. 2025-era
 * clients (protocol 2024-11-05 up to 2025-11-25) are served by the SDK's stateless
 * fallback, 2026-era clients natively.
 *
 * Per-request cost matters here (a tools/call should cost little more than the same
 * product over plain HTTP), so the HTTP layer hands over the body it already read and
 * checked (lib/mcp/http.ts) and each exchange carries what it needs in an
 * AsyncLocalStorage:
 * - the fresh McpServer gets only the tool a single tools/call names (the other 17 can
 *   never be reached by that exchange; every other message gets all 18);
 * - tool handlers see the caller's own request (client IP, base URL), not the copy
 *   handed to the SDK;
 * - the copy handed to mcp-handler is a `ParsedJsonRequest`: mcp-handler reads the
 *   JSON-RPC body with `req.clone().json()` and gives the SDK that value as its
 *   `parsedBody`, after which nothing reads the body; answering `json()` with the value
 *   already parsed saves a body stream, its tee and a second parse on every call.
 *
 * A lone 2025-era `tools/call` naming one of our tools (what an agent sends in its loop)
 * skips the SDK altogether (directToolCall below): no McpServer, transport, SSE stream
 * or schema re-validation per call, the answer written once as JSON.
 *
 * Schemas are handed to the SDK as precomputed JSON Schema (a pass-through Standard
 * Schema): listing 18 tools then costs no zod→JSON conversion per request, and argument
 * validation happens in our code so a wrong type is a spec 2.6 422 result like every
 * other bad argument, instead of the SDK's free-text message.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createMcpHandler } from "mcp-handler";
import { classifyInboundRequest, isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { log } from "@/lib/log";
import { MCP_SERVER_INFO } from "@/lib/mcp/info";
import { mcpInstructions, mcpTools, type McpToolDef } from "@/lib/mcp/tools";
import { toolServerTiming } from "@/lib/mcp/results";
import type { JsonSchema } from "@/lib/mcp/arguments";

/** A Standard Schema that advertises `json` and accepts any value (validation is ours). */
function advertised(json: JsonSchema): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "echo-x402-sentiment",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  } as StandardSchemaWithJSON;
}

interface Registration {
  def: McpToolDef;
  input: StandardSchemaWithJSON;
  output: StandardSchemaWithJSON | undefined;
}

/** Registrations of one tool list; rebuilt when mcpTools() gives another (the usable payment methods changed). */
let registrations: { tools: readonly McpToolDef[]; byName: Map<string, Registration> } | undefined;

function toolRegistrations(): Map<string, Registration> {
  const tools = mcpTools();
  if (registrations?.tools !== tools) {
    registrations = { tools, byName: new Map(tools.map((def) => [def.name, { def, input: advertised(def.inputSchema), output: def.outputSchema ? advertised(def.outputSchema) : undefined }])) };
  }
  return registrations.byName;
}

/** One POST to /mcp, as the HTTP layer read and checked it. */
export interface McpExchange {
  /** The caller's request (its body already read). */
  request: Request;
  /** The JSON-RPC message or batch it carried. */
  body: unknown;
}

const exchanges = new AsyncLocalStorage<McpExchange>();

/** The tool a lone tools/call message names, if it is one of ours. */
function calledTool(body: unknown): Registration | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const m = body as { method?: unknown; params?: { name?: unknown } };
  if (m.method !== "tools/call" || typeof m.params?.name !== "string") return undefined;
  return toolRegistrations().get(m.params.name);
}

function register(server: McpServer): void {
  const only = calledTool(exchanges.getStore()?.body);
  for (const { def, input, output } of only ? [only] : toolRegistrations().values()) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: input,
        ...(output ? { outputSchema: output } : {}),
        annotations: def.annotations,
        _meta: { "echo/price_usd": def.price, "echo/endpoint": def.endpoint },
      },
      (args: unknown, ctx) =>
        def.call(args, { request: exchanges.getStore()?.request ?? ctx.http?.req, meta: ctx.mcpReq._meta as Record<string, unknown> | undefined }),
    );
  }
}

/**
 * A request whose JSON body was already read and parsed: `json()` answers that value
 * and `clone()` an equal request, neither touching a body stream (it has none).
 *
 * It carries no abort signal: following the caller's would cost two signals per call,
 * and the SDK does not need it to end an exchange whose client went away, because Next
 * cancels the response stream then, which tears the exchange down just the same.
 */
class ParsedJsonRequest extends Request {
  readonly #parsed: unknown;

  constructor(url: string, headers: Headers, parsed: unknown) {
    super(url, { method: "POST", headers });
    this.#parsed = parsed;
  }

  override json(): Promise<unknown> {
    return Promise.resolve(this.#parsed);
  }

  override text(): Promise<string> {
    return Promise.resolve(JSON.stringify(this.#parsed));
  }

  override clone(): ParsedJsonRequest {
    return new ParsedJsonRequest(this.url, this.headers, this.#parsed);
  }
}

function makeHandler(instructions: string) {
  return createMcpHandler(register, {
    serverInfo: { ...MCP_SERVER_INFO },
    // The tool list is fixed while the payment methods are (spec 6: list-changed notifications are off).
    capabilities: { tools: { listChanged: false } },
    instructions,
    telemetry: false,
    onEvent: (e) => {
      if (e.type === "ERROR") log.error("mcp.error", { message: e.error instanceof Error ? e.error.message : String(e.error), context: e.context });
    },
  });
}

/** The handler for the current instructions (they name the accepted payment methods); rebuilt only when they change. */
let built: { instructions: string; handler: ReturnType<typeof makeHandler> } | undefined;

function handler(): ReturnType<typeof makeHandler> {
  const instructions = mcpInstructions();
  if (built?.instructions !== instructions) built = { instructions, handler: makeHandler(instructions) };
  return built.handler;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The protocol revisions the SDK's stateless (2025-era) fallback serves. */
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < "2026"));

/** The members the SDK's JSON-RPC request schema admits (it is strict: any other member makes the message something else). */
const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * Whether the SDK's classifier (classifyInboundRequest) is bound to call this tools/call
 * a plain legacy request, so running it can be skipped: exactly the members of a JSON-RPC
 * request, an id its schema takes (a string or a safe integer), and no `params._meta`, so
 * no 2026-era envelope claim (the header was already checked to name no 2026-era
 * revision). The classifier would parse the body against three zod schemas to find that
 * out, two of them failing with a ZodError each, on every call. Anything else (a `_meta`
 * object above all, which may carry a claim) still goes through the classifier;
 * tests/unit/mcp-direct.test.ts checks that it answers "legacy" for these messages.
 */
function plainLegacyCall(body: Record<string, unknown>, params: Record<string, unknown>): boolean {
  if (body.jsonrpc !== "2.0" || params._meta !== undefined) return false;
  if (typeof body.id === "number" && !Number.isSafeInteger(body.id)) return false;
  for (const k in body) if (!REQUEST_MEMBERS.has(k)) return false;
  return true;
}

/**
 * The tool and call a message is, when the SDK would serve it as a plain 2025-era
 * tools/call of that tool: a lone request, classified legacy by the SDK's own
 * classifier, whose headers its stateless transport accepts (Accept naming JSON and
 * SSE, a JSON body, no protocol version or a 2025-era one), whose params hold only
 * `name`, an `arguments` object and a `_meta` object. Anything else (an unknown tool, a
 * task-augmented call, a 2026-era envelope, a header the transport refuses) is left to
 * the SDK, which answers it as before.
 */
function directCall(request: Request, body: unknown): { reg: Registration; id: string | number; args: Record<string, unknown>; meta: Record<string, unknown> | undefined } | undefined {
  if (!isPlainObject(body) || body.method !== "tools/call" || !isPlainObject(body.params)) return undefined;
  const id = body.id;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const params = body.params;
  for (const k in params) if (k !== "name" && k !== "arguments" && k !== "_meta") return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string") return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (meta !== undefined && !isPlainObject(meta)) return undefined;
  const reg = toolRegistrations().get(name);
  if (!reg) return undefined;
  const headers = request.headers;
  const accept = (headers.get("accept") ?? "").toLowerCase();
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if (!isJsonContentType(headers.get("content-type"))) return undefined;
  const version = headers.get("mcp-protocol-version") ?? undefined;
  if (version !== undefined && !LEGACY_VERSIONS.has(version.trim())) return undefined;
  if (plainLegacyCall(body, params)) return { reg, id, args: args ?? {}, meta };
  const route = classifyInboundRequest({
    httpMethod: "POST",
    body,
    ...(version !== undefined && { protocolVersionHeader: version }),
    ...(headers.has("mcp-method") && { mcpMethodHeader: headers.get("mcp-method")! }),
    ...(headers.has("mcp-name") && { mcpNameHeader: headers.get("mcp-name")! }),
  });
  if (route.kind !== "legacy") return undefined;
  return { reg, id, args: args ?? {}, meta };
}

/**
 * What the SDK's McpServer makes of a tool's return value on the 2025 wire: a result
 * lacking the structured content its output schema promises becomes an error result;
 * non-object structured content gains a text copy and is wrapped as `{result}` (as it
 * is when the advertised output schema's root is not an object); a result without
 * `content` gets an empty one; the members come in the order of the SDK's wire schema.
 */
function asSdkWouldSend(reg: Registration, result: CallToolResult): CallToolResult {
  const schema = reg.def.outputSchema;
  if (schema && !result.isError && result.structuredContent === undefined) {
    return { content: [{ type: "text", text: `Output validation error: Tool ${reg.def.name} has an output schema but no structured content was provided` }], isError: true };
  }
  let out: CallToolResult = result;
  const sc = out.structuredContent as unknown;
  if (sc !== undefined) {
    const nonObject = !isPlainObject(sc);
    if (nonObject && !(out.content?.some((c) => c.type === "text") ?? false)) out = { ...out, content: [...(out.content ?? []), { type: "text", text: JSON.stringify(sc) }] };
    if (nonObject || (schema !== null && schema.type !== "object")) out = { ...out, structuredContent: { result: sc } };
  }
  // The SDK sends the result as its wire schema parsed it: declared members first, in the schema's order.
  const { _meta, content, structuredContent, isError, ...rest } = out;
  return {
    ...(_meta !== undefined && { _meta }),
    content: content ?? [],
    ...(structuredContent !== undefined && { structuredContent }),
    ...(isError !== undefined && { isError }),
    ...rest,
  };
}

/**
 * A lone 2025-era tools/call of one of our tools, answered without the SDK: the tool's
 * own function with the caller's request and `params._meta`, exactly as the SDK would
 * call it (arguments `{}` when absent, a throw as an error result), and the JSON-RPC
 * response as one JSON body (streamable HTTP lets a server answer a request with
 * `application/json`; clients must accept both). Null when the message is anything
 * else: the SDK serves it. tests/unit/mcp-direct.test.ts holds the answers to those of
 * the SDK, byte for byte.
 */
export async function directToolCall(request: Request, body: unknown): Promise<Response | null> {
  const call = directCall(request, body);
  if (!call) return null;
  let result: CallToolResult;
  try {
    result = asSdkWouldSend(call.reg, await call.reg.def.call(call.args, { request, meta: call.meta }));
  } catch (err) {
    result = { content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }], isError: true };
  }
  const headers: Record<string, string> = { "Content-Type": "application/json", "Cache-Control": "no-cache, no-transform" };
  // A lone paid tools/call: its gate's timing as Server-Timing, as singleAnswer (lib/mcp/http.ts) sets it on the SDK's answer.
  const timing = toolServerTiming(result);
  if (timing) headers["Server-Timing"] = timing;
  return new Response(JSON.stringify({ result, jsonrpc: "2.0", id: call.id }), { status: 200, headers });
}

/** Serves one checked JSON-RPC POST: a plain tools/call directly, anything else through mcp-handler (Request → Response). */
export async function mcpTransportHandler(request: Request, body: unknown): Promise<Response> {
  const direct = await directToolCall(request, body);
  if (direct) return direct;
  return sdkTransportHandler(request, body);
}

/** Serves one checked JSON-RPC POST through mcp-handler (Request → Response). */
export function sdkTransportHandler(request: Request, body: unknown): Promise<Response> {
  const exchange: McpExchange = { request, body };
  const forwarded = new ParsedJsonRequest(request.url, request.headers, body);
  const serve = handler();
  return exchanges.run(exchange, () => serve(forwarded));
}
