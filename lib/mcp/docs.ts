/**
 * The MCP tools table of docs/mcp.md, rendered from the same tool definitions the server
 * registers (names, prices, paths, arguments, accepted credentials).
 */
import { CREDENTIAL_ARGS } from "@/lib/mcp/arguments";
import { mcpTools } from "@/lib/mcp/tools";
import { usdLabel } from "@/lib/payments/price";

export function mcpToolsTable(): string {
  const rows = mcpTools().map((t) => {
    const props = Object.entries((t.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>)
      .filter(([name]) => !(CREDENTIAL_ARGS as readonly string[]).includes(name))
      .map(([name, s]) => `\`${name}\`${s.default !== undefined && s.default !== "" ? ` (default \`${String(s.default)}\`)` : ""}`);
    const p = t.product;
    const creds = !p ? "none (free)" : p.kind === "bundle" ? "`payment`" : `\`payment\`, \`bundle_token\`${p.freeTier ? ", `api_key`" : ""}`;
    return `| \`${t.name}\` | ${t.free ? "free" : usdLabel(t.price)} | ${t.endpoint ? `\`${t.endpoint}\`` : "—"} | ${props.length ? props.join(", ") : "none"} | ${creds} |`;
  });
  return ["| Tool | Price | Same data as | Arguments (strings) | Credentials |", "|---|---|---|---|---|", ...rows].join("\n");
}
