// `npm run readme`: regenerates the README's tables from the catalog and configuration.
import { readFileSync, writeFileSync } from "node:fs";
import { renderReadme } from "@/lib/docs/readme-tables";

const path = new URL("../README.md", import.meta.url);
const before = readFileSync(path, "utf8");
const after = renderReadme(before);
writeFileSync(path, after);
console.log(before === after ? "README tables already up to date" : "README tables regenerated");
