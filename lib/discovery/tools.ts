/**
 * The MCP tool list as the discovery documents describe it. It is read from the tool
 * definitions the MCP server registers (lib/mcp/tools.ts, itself generated from the
 * catalog plus the two free tools), so the cards and manifests list exactly what
 * tools/list answers: names, titles, prices, HTTP paths and input schemas.
 */
import { mcpTools } from "@/lib/mcp/tools";

export interface ToolInfo {
  name: string;
  title: string;
  description: string;
  /** Tool price in USD ("0" for the free tools). */
  price: string;
  /** HTTP path of the same product, or null (get_xlm_sentiment has none). */
  path: string | null;
  free: boolean;
  inputSchema: Record<string, unknown>;
}

/** Every MCP tool, in the server's listing order. */
export function toolList(): ToolInfo[] {
  return mcpTools().map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    price: t.price,
    path: t.endpoint,
    free: t.free,
    inputSchema: t.inputSchema,
  }));
}
