// `npm run readme`: regenerates the tables of README.md and docs/*.md from the catalog, the
// configuration schema (lib/config/env.ts) and the latest benchmark figures
// (docs/benchmarks.json, written by `npm run bench`). One generator: lib/docs/readme-tables.ts.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { renderTables, tablePlacement } from "@/lib/docs/readme-tables";

const root = new URL("../", import.meta.url);
const files = ["README.md", ...readdirSync(new URL("docs/", root)).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const docs = Object.fromEntries(files.map((f) => [f, readFileSync(new URL(f, root), "utf8")]));
const { missing, repeated } = tablePlacement(docs);
if (missing.length || repeated.length) {
  console.error(`every generated table must be in exactly one document: missing ${missing.join(", ") || "none"}, repeated ${repeated.join(", ") || "none"}`);
  process.exit(1);
}
const changed: string[] = [];
for (const [file, before] of Object.entries(docs)) {
  const after = renderTables(before, file);
  if (after !== before) {
    writeFileSync(new URL(file, root), after);
    changed.push(file);
  }
}
console.log(changed.length ? `tables regenerated in ${changed.join(", ")}` : "tables already up to date");
