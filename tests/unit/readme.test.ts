/**
 * The generated tables of README.md and docs/*.md (prices, endpoints, MCP tools,
 * configuration, benchmark figures) come from the catalog, the configuration schema and
 * docs/benchmarks.json; this fails when someone edits one without the other (fix: `npm
 * run readme`), or when a table is in no document or in two. The README stays a front
 * door (at most 250 lines) whose quick start is the two documented commands.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderTables, tablePlacement, TABLES } from "@/lib/docs/readme-tables";
import { PRODUCTS } from "@/lib/catalog";

const root = new URL("../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");
const files = ["README.md", ...readdirSync(new URL("docs/", root)).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const docs = Object.fromEntries(files.map((f) => [f, read(f)]));
const readme = docs["README.md"]!;
const api = docs["docs/api.md"]!;

describe("README and docs", () => {
  it.each(files)("%s has tables that match their sources", (file) => {
    expect(renderTables(docs[file]!, file)).toBe(docs[file]);
  });
  it("holds every generated table in exactly one document", () => {
    expect(tablePlacement(docs)).toEqual({ missing: [], repeated: [] });
    expect(Object.keys(TABLES).length).toBeGreaterThanOrEqual(5);
  });
  it("the README lists every catalog path with its HTTP price; docs/api.md every path with its parameters and contents", () => {
    for (const p of PRODUCTS) {
      expect(readme).toContain(`| \`${p.path}\` | ${p.httpPrice} |`);
      expect(api).toContain(`| \`${p.path}\` |`);
      expect(api).toContain(p.description.replace(/\|/g, "\\|"));
    }
  });
  it("configuration.md documents every setting of lib/config/env.ts", async () => {
    const { CONFIG_DOCS } = await import("@/lib/config/env");
    for (const k of Object.keys(CONFIG_DOCS)) expect(docs["docs/configuration.md"]).toContain(`| \`${k}\` |`);
  });
  it("the README is a front door: at most 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });
  it("keeps the two-command quick start", () => {
    expect(readme).toContain("npm install && npm start");
    expect(readme).toMatch(/^npm test$/m);
  });
  it("has exactly the two commands in the Quick start, and the simulated start in its own Offline demo section right after", () => {
    const sections = readme.split(/^## /m).map((s) => s.split("\n")[0]!.trim());
    const quick = sections.indexOf("Quick start");
    expect(quick).toBeGreaterThan(0);
    expect(sections[quick + 1]).toBe("Offline demo");
    const body = (title: string) => readme.split(/^## /m).find((s) => s.startsWith(`${title}\n`))!;
    const commands = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(commands(body("Quick start"))).toEqual(["npm install && npm start", "npm test"]);
    expect(commands(body("Offline demo"))).toEqual(["UPSTREAM_MODE=simulated npm start"]);
  });
  it("the XLM table says what the service does with an undecided submission: 503 settlement_pending, not 402", () => {
    const paying = docs["docs/paying.md"]!;
    const row = paying.split("\n").find((l) => l.startsWith("| none, or none that says what happened"))!;
    expect(row).toContain("503 `settlement_pending`");
    expect(row).not.toMatch(/still undecided → 402/);
  });
});
