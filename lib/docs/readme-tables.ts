/**
 * The README's generated tables (endpoints, tools, configuration), rendered from the
 * catalog and the configuration schema. `npm run readme` rewrites them between their
 * markers; a unit test fails when the README and the catalog disagree.
 */
import { PRODUCTS } from "@/lib/catalog";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import type { ParamSet } from "@/lib/catalog/params";
import { CONFIG_DOCS } from "@/lib/config/env";
import { mcpToolsTable } from "@/lib/mcp/docs";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function params(p: ParamSet): string {
  const entries = Object.entries(p);
  if (!entries.length) return "none";
  return entries
    .map(([name, param]) => {
      const d = param.doc;
      const bits: string[] = [d.type];
      if (d.required) bits.push("required");
      if (d.default !== undefined && d.default !== "") bits.push(`default \`${d.default}\``);
      if (d.minimum !== undefined) bits.push(`${d.minimum}..${d.maximum}`);
      return `\`${name}\` (${bits.join(", ")})`;
    })
    .join("; ");
}

export function endpointTable(): string {
  const rows = PRODUCTS.map(
    (p) => `| \`${p.path}\` | ${params(p.params as ParamSet)} | ${p.httpPrice} | ${p.tool ? `\`${p.tool.name}\` ${p.tool.price}` : "—"} | ${p.kind === "bundle" ? "—" : p.credits} | ${p.kind === "bundle" ? "—" : p.freeTier ? "yes" : "no"} | ${cell(p.description)} |`,
  );
  const free = PUBLIC_FREE_ENDPOINTS.map((e) => `| \`${e.path}\` | ${e.query ? Object.keys(e.query).map((k) => `\`${k}\``).join(", ") : "none"} | free | — | — | — | ${cell(e.description)} |`);
  return [
    "| Path (GET) | Query parameters | HTTP price USD | MCP tool and price USD | Credits | Free key | Content |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    ...free,
  ].join("\n");
}

export function configTable(): string {
  return ["| Variable | Meaning |", "|---|---|", ...Object.entries(CONFIG_DOCS).map(([k, v]) => `| \`${k}\` | ${cell(v)} |`)].join("\n");
}

export const TABLES: Record<string, () => string> = { endpoints: endpointTable, "mcp-tools": mcpToolsTable, config: configTable };

/** Replaces every `<!-- table:name -->...<!-- /table:name -->` block with its generated content. */
export function renderReadme(readme: string): string {
  let out = readme;
  for (const [name, render] of Object.entries(TABLES)) {
    const re = new RegExp(`(<!-- table:${name} -->)[\\s\\S]*?(<!-- /table:${name} -->)`);
    if (!re.test(out)) throw new Error(`README has no <!-- table:${name} --> block`);
    const table = render();
    out = out.replace(re, (_m, open: string, close: string) => `${open}\n${table}\n${close}`);
  }
  return out;
}
