/**
 * The generated tables of README.md and docs/*.md (prices, endpoints, tools,
 * configuration, benchmark figures), rendered from the catalog, the configuration schema
 * and docs/benchmarks.json. `npm run readme` (scripts/readme.ts) rewrites them between
 * their `<!-- table:name -->` markers, in whichever file holds each; a unit test fails
 * when a file and its sources disagree, or when a table is in no file or in two.
 */
import { readFileSync } from "node:fs";
import { PRODUCTS } from "@/lib/catalog";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import type { ParamSet } from "@/lib/catalog/params";
import { CONFIG_DOCS } from "@/lib/config/env";
import { mcpToolsTable } from "@/lib/mcp/docs";
import { BENCH_RESULTS_FILE, benchTable, type BenchResults } from "@/lib/docs/bench-results";

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

/** The README's price list: every path with its prices and what covers it (the full table with contents is docs/api.md's). */
export function pricesTable(): string {
  const rows = PRODUCTS.map(
    (p) => `| \`${p.path}\` | ${p.httpPrice} | ${p.tool ? `\`${p.tool.name}\` ${p.tool.price}` : "—"} | ${p.kind === "bundle" ? "—" : p.credits} | ${p.kind === "bundle" ? "—" : p.freeTier ? "yes" : "no"} | ${cell(p.title)} |`,
  );
  return ["| Path (GET) | HTTP price USD | MCP tool and price USD | Credits | Free key | What |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

export function configTable(): string {
  return ["| Variable | Meaning |", "|---|---|", ...Object.entries(CONFIG_DOCS).map(([k, v]) => `| \`${k}\` | ${cell(v)} |`)].join("\n");
}

export function benchmarksTable(): string {
  return benchTable(JSON.parse(readFileSync(BENCH_RESULTS_FILE, "utf8")) as BenchResults);
}

export const TABLES: Record<string, () => string> = {
  prices: pricesTable,
  endpoints: endpointTable,
  "mcp-tools": mcpToolsTable,
  config: configTable,
  benchmarks: benchmarksTable,
};

/** The names of the tables a document holds (its `<!-- table:name -->` markers, in order). */
export function tablesIn(doc: string): string[] {
  return [...doc.matchAll(/<!-- table:([a-z0-9-]+) -->/g)].map((m) => m[1]!);
}

/**
 * Replaces every `<!-- table:name -->...<!-- /table:name -->` block of `doc` with its
 * generated content; a marker naming no known table, or without its closing marker, throws.
 */
export function renderTables(doc: string, file = "document"): string {
  let out = doc;
  for (const name of tablesIn(doc)) {
    const render = TABLES[name];
    if (!render) throw new Error(`${file} has <!-- table:${name} -->, which is not a generated table (${Object.keys(TABLES).join(", ")})`);
    const re = new RegExp(`(<!-- table:${name} -->)[\\s\\S]*?(<!-- /table:${name} -->)`);
    if (!re.test(out)) throw new Error(`${file} has <!-- table:${name} --> without <!-- /table:${name} -->`);
    const table = render();
    out = out.replace(re, (_m, open: string, close: string) => `${open}\n${table}\n${close}`);
  }
  return out;
}

/** Every generated table must be in exactly one document: the names missing or repeated across `docs` (file → text). */
export function tablePlacement(docs: Record<string, string>): { missing: string[]; repeated: string[] } {
  const seen = Object.values(docs).flatMap(tablesIn);
  return {
    missing: Object.keys(TABLES).filter((t) => !seen.includes(t)),
    repeated: Object.keys(TABLES).filter((t) => seen.filter((s) => s === t).length > 1),
  };
}
