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
 * Schemas are handed to the SDK as precomputed JSON Schema (a pass-through Standard
 * Schema): listing 18 tools then costs no zod→JSON conversion per request, and argument
 * validation happens in our code so a wrong type is a spec 2.6 422 result like every
 * other bad argument, instead of the SDK's free-text message.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createMcpHandler } from "mcp-handler";
import type { McpServer, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { log } from "@/lib/log";
import { MCP_SERVER_INFO } from "@/lib/mcp/info";
import { mcpInstructions, mcpTools, type McpToolDef } from "@/lib/mcp/tools";
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

/** Serves one checked JSON-RPC POST through mcp-handler (Request → Response). */
export function mcpTransportHandler(request: Request, body: unknown): Promise<Response> {
  const exchange: McpExchange = { request, body };
  const forwarded = new ParsedJsonRequest(request.url, request.headers, body);
  const serve = handler();
  return exchanges.run(exchange, () => serve(forwarded));
}
