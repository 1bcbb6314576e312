/**
 * The README's endpoint and configuration tables are generated from the catalog and the
 * configuration schema; this fails when someone edits one without the other
 * (fix: `npm run readme`). The quick start must stay the two documented commands.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderReadme } from "@/lib/docs/readme-tables";
import { PRODUCTS } from "@/lib/catalog";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("has tables that match the catalog and the configuration schema", () => {
    expect(renderReadme(readme)).toBe(readme);
  });
  it("lists every catalog path with its HTTP price", () => {
    for (const p of PRODUCTS) expect(readme).toContain(`| \`${p.path}\` |`);
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
});
