/**
 * No import cycles in lib/ or app/, counting type-only imports (DESIGN: "no import
 * circles"). The graph comes from the TypeScript parser (tests/helpers/import-graph.ts);
 * a dynamic import() is not an edge (it runs after loading, the documented way for a
 * module the catalog imports to read the catalog).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles, importGraph } from "../helpers/import-graph";

const ROOT = path.resolve(__dirname, "../..");

describe("import graph", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "import-graph-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function project(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(scratch, "p-"));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
    return dir;
  }

  it("finds runtime and type-only cycles through @/ and relative specifiers, index files and re-exports", () => {
    const dir = project({
      "lib/a.ts": 'import { b } from "@/lib/b";\nexport const a = b;\n',
      "lib/b.ts": 'import type { C } from "./c";\nexport const b = 1;\nexport type B = C;\n',
      "lib/c/index.ts": 'export type { A } from "@/lib/d";\nexport type C = number;\n',
      "lib/d.ts": 'export type A = typeof import("@/lib/a").a;\n',
      "lib/free.ts": 'import { a } from "@/lib/a";\nexport const f = () => import("@/lib/free-late").then((m) => m.x + a);\n',
      "lib/free-late.ts": 'import { f } from "@/lib/free";\nexport const x = typeof f;\n',
      "lib/self.ts": 'export type { S } from "./self";\nexport type S = 1;\n',
    });
    const edges = importGraph(dir, ["lib"]);
    expect(edges).toContainEqual({ from: "lib/b.ts", to: "lib/c/index.ts", typeOnly: true });
    expect(edges).toContainEqual({ from: "lib/c/index.ts", to: "lib/d.ts", typeOnly: true });
    expect(edges).toContainEqual({ from: "lib/d.ts", to: "lib/a.ts", typeOnly: true });
    expect(edges).toContainEqual({ from: "lib/a.ts", to: "lib/b.ts", typeOnly: false });
    const cycles = importCycles(edges).map((c) => c.join(" -> "));
    expect(cycles).toContain("lib/a.ts -> lib/b.ts -> lib/c/index.ts -> lib/d.ts -> lib/a.ts");
    expect(cycles).toContain("lib/self.ts -> lib/self.ts");
    // free.ts reaches free-late.ts only through a dynamic import(): no cycle.
    expect(cycles.some((c) => c.includes("free"))).toBe(false);
    expect(cycles).toHaveLength(2);
  });

  it("lib/ and app/ have no import cycle, runtime or type-only", () => {
    const edges = importGraph(ROOT, ["lib", "app"]);
    // The graph is really read: the gate imports the payment registry's module tree.
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual(expect.objectContaining({ from: "lib/access/gate.ts", to: "lib/access/payment-required.ts" }));
    expect(importCycles(edges).map((c) => c.join(" -> "))).toEqual([]);
  });
});
