/**
 * The MCP server itself: `mcp-handler` (on @modelcontextprotocol/server 2.x) serving
 * stateless streamable HTTP, one fresh McpServer per request, no Redis. 2025-era
 * clients (protocol 2024-11-05 up to 2025-11-25) are served by the SDK's stateless
 * fallback, 2026-era clients natively.
 *
 * Schemas are handed to the SDK as precomputed JSON Schema (a pass-through Standard
 * Schema): listing 18 tools then costs no zod→JSON conversion per request, and argument
 * validation happens in our code so a wrong type is a spec 2.6 422 result like every
 * other bad argument, instead of the SDK's free-text message.
 */
import { createMcpHandler } from "mcp-handler";
import type { McpServer, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { log } from "@/lib/log";
import { MCP_INSTRUCTIONS, MCP_SERVER_INFO } from "@/lib/mcp/info";
import { mcpTools, type McpToolDef } from "@/lib/mcp/tools";
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

let registrations: Registration[] | undefined;

function toolRegistrations(): Registration[] {
  registrations ??= mcpTools().map((def) => ({ def, input: advertised(def.inputSchema), output: def.outputSchema ? advertised(def.outputSchema) : undefined }));
  return registrations;
}

function register(server: McpServer): void {
  for (const { def, input, output } of toolRegistrations()) {
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
      (args: unknown, ctx) => def.call(args, { request: ctx.http?.req, meta: ctx.mcpReq._meta as Record<string, unknown> | undefined }),
    );
  }
}

/** The web-standard MCP handler (Request → Response). */
export const mcpTransportHandler: (req: Request) => Promise<Response> = createMcpHandler(register, {
  serverInfo: { ...MCP_SERVER_INFO },
  // The tool list is fixed at build time (spec 6: list-changed notifications are off).
  capabilities: { tools: { listChanged: false } },
  instructions: MCP_INSTRUCTIONS,
  telemetry: false,
  onEvent: (e) => {
    if (e.type === "ERROR") log.error("mcp.error", { message: e.error instanceof Error ? e.error.message : String(e.error), context: e.context });
  },
});
