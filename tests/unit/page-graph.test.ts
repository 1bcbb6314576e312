/**
 * One copy of the payment modules per process: the web pages never import them.
 *
 * Next runs page entries and route entries on two Turbopack runtimes, each with its own
 * module cache, so a module both import exists twice in the process. For the payment
 * modules that broke answers: after a page had built the payment-method registry with its
 * copy, a paid call's errors came from that copy, were not recognized by the route's, and
 * a settlement still on its way was answered "nothing was charged". Pages read what they
 * show about payments from lib/payments/methods/facts.ts (configuration only) and the MCP
 * tool list from lib/mcp/free-tools.ts. This test walks the static import graph from
 * every page, layout and client component; the integration test
 * tests/integration/pages-then-pay.test.ts checks the built chunks and the behaviour.
 */
import path from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importGraph } from "../helpers/import-graph";
import { isPaymentCore } from "../helpers/page-graph";

const ROOT = path.resolve(__dirname, "../..");

function pageEntries(edges: ReturnType<typeof importGraph>): string[] {
  const files = new Set(edges.flatMap((e) => [e.from, e.to]).filter((f) => f.startsWith("app/") && f.endsWith(".tsx")));
  return [...files].filter((f) => /\/(page|layout)\.tsx$/.test(f) || /^\s*["']use client["']/.test(readFileSync(path.join(ROOT, f), "utf8")));
}

/** Every module `from` reaches at run time (type-only imports are erased by the compiler). */
function reach(edges: ReturnType<typeof importGraph>, from: string): Map<string, string> {
  const next = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const via = new Map<string, string>([[from, from]]);
  const stack = [from];
  while (stack.length) {
    const f = stack.pop()!;
    for (const t of next.get(f) ?? []) {
      if (via.has(t)) continue;
      via.set(t, f);
      stack.push(t);
    }
  }
  return via;
}

describe("the web pages' import graph", () => {
  const edges = importGraph(ROOT, ["app", "lib"]);
  const entries = pageEntries(edges);

  it("finds the pages, layouts and client components", () => {
    expect(entries).toContain("app/page.tsx");
    expect(entries).toContain("app/wallet/page.tsx");
    expect(entries).toContain("app/pay/[...path]/page.tsx");
    expect(entries).toContain("app/wallet/wallet-app.tsx");
  });

  it("the rule names the modules a paid call runs through", () => {
    for (const f of ["lib/payments/x402/hold.ts", "lib/payments/ledger.ts", "lib/payments/methods/registry.ts", "lib/access/call.ts", "lib/payments/x402/facilitator.ts"]) expect(isPaymentCore(f), f).toBe(true);
  });

  it.each(entries)("%s reaches no payment module", (entry) => {
    const via = reach(edges, entry);
    const bad = [...via.keys()].filter(isPaymentCore).map((f) => {
      const chain = [f];
      for (let x = f; x !== entry; x = via.get(x)!) chain.unshift(via.get(x)!);
      return chain.join(" → ");
    });
    expect(bad).toEqual([]);
  });
});
