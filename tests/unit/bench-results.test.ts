/**
 * `npm run bench` keeps every figure it prints and writes each finished section, with its
 * date, commit and machine, to docs/benchmarks.json (replacing only that section); `npm
 * run readme` renders docs/benchmarks.md's one table from it, saying which targets the
 * figures meet.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { benchSummary, benchTable, describeMachine, recordSection, withSection, type BenchResults, type BenchSection } from "@/lib/docs/bench-results";
import { report, takeReported } from "../../scripts/bench/load";

describe("benchmark figures", () => {
  const section = (figures: BenchSection["figures"], date = "2026-11-26T23:00:00.000Z"): BenchSection => ({ date, commit: "abc123", machine: { description: "2 × test CPU" }, figures });

  it("a section run again replaces only its own entry", () => {
    const before: BenchResults = { sections: { core: section({ cached_vs_static_throughput_ratio: 0.7 }), mcp: section({ mcp_vs_http_throughput_ratio: 0.6 }) } };
    const after = withSection(before, "core", section({ cached_vs_static_throughput_ratio: 0.9 }, "2026-11-27T00:00:00.000Z"));
    expect(after.sections.core!.figures.cached_vs_static_throughput_ratio).toBe(0.9);
    expect(after.sections.mcp).toEqual(before.sections.mcp);
    expect(withSection(null, "a2a", section({})).sections).toEqual({ a2a: section({}) });
  });
  it("writes a finished section into the results file, creating it, keeping the other sections", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-results-"));
    try {
      const file = join(dir, "benchmarks.json");
      recordSection(file, "core", section({ fanin_max_requests_per_resource: 1 }));
      recordSection(file, "mcp", section({ mcp_vs_http_throughput_ratio: 0.6 }));
      recordSection(file, "core", section({ fanin_max_requests_per_resource: 2 }, "2026-11-27T00:00:00.000Z"));
      const written = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
      expect(Object.keys(written.sections)).toEqual(["core", "mcp"]);
      expect(written.sections.core).toEqual(section({ fanin_max_requests_per_resource: 2 }, "2026-11-27T00:00:00.000Z"));
      expect(written.sections.mcp!.figures).toEqual({ mcp_vs_http_throughput_ratio: 0.6 });
      expect(readFileSync(file, "utf8").endsWith("}\n")).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("the table says which targets the figures meet, with each section's date and machine, and what was not measured", () => {
    const t = benchTable({ sections: { payments: section({ x402_vs_api_key_latency_ratio: 3.2, x402_call_p50_ms: 16, api_key_call_p50_ms: 5, bundle_vs_api_key_latency_ratio: "0.9-1.4", settlement_2000ms_blocks_optimistic_vs_key_p50_ratio: 1.5 }) } });
    const row = (label: string) => t.split("\n").find((l) => l.startsWith(`| ${label}`))!;
    expect(row("x402 call")).toMatch(/\| 3\.2 \(16 vs 5 ms\) \| ≤ 2\.5 \| no \|$/);
    expect(row("Bundle-token call")).toMatch(/\| ≤ 1\.3 \| in part of the range \|$/);
    expect(row("Optimistic mode p50 ÷ free-key p50 at 2 s")).toMatch(/\| yes \|$/);
    expect(row("MCP `tools/call`")).toContain("| not measured |");
    expect(t).toContain("- `payments`: 2026-11-26T23:00:00.000Z, commit `abc123`; 2 × test CPU.");
    expect(t).toContain("- `core`: not run yet.");
  });
  it("shows issue 29's figures with its targets, from the lane, payments, MCP and A2A sections; absent ones are not measured", () => {
    const results: BenchResults = {
      sections: {
        lane: section({ lane_key_call_vs_bare_node_throughput_ratio: 0.16, lane_key_call_rps: 5600, bare_node_same_bytes_rps: 35000, lane_key_call_p99_over_p50: 2.4, lane_key_call_p50_ms: 8, lane_key_call_p99_ms: 19.2 }),
        mcp: section({ mcp_vs_http_throughput_ratio: 0.91, mcp_tools_call_rps: 910, http_same_product_rps: 1000 }),
      },
    };
    const t = benchTable(results);
    const row = (label: string) => t.split("\n").find((l) => l.startsWith(`| ${label}`))!;
    expect(row("Key call on the fast lane")).toMatch(/\| 0\.16 \(5600 vs 35000 req\/s\) \| ≥ 0\.15 \| yes \|$/);
    expect(row("same key call at 50 connections: p99 ÷ p50")).toMatch(/\| 2\.4 \(p50 8 ms, p99 19\.2 ms\) \| ≤ 2 \| no \|$/);
    expect(row("same key call, fast lane ÷ Next's pipeline")).toContain("| not measured | — | — |");
    expect(row("MCP `tools/call`")).toMatch(/\| 0\.91 \(910 vs 1000 req\/s\) \| ≥ 0\.9 \| yes \|$/);
    expect(row("A2A `message:send`")).toMatch(/\| not measured \| ≥ 0\.9 \| — \|$/);
    expect(row("x402 call")).toMatch(/\| not measured \| ≤ 2\.5 \| — \|$/);
    // What npm run bench prints after the sections it ran: their rows only, each with its target.
    const printed = benchSummary(results, ["lane", "a2a"]);
    expect(printed).toHaveLength(6);
    expect(printed[0]).toMatch(/^Key call on the fast lane .*: 0\.16 \(5600 vs 35000 req\/s\); target ≥ 0\.15; met: yes$/);
    expect(printed.find((l) => l.startsWith("A2A"))).toMatch(/: not measured; target ≥ 0\.9; met: —$/);
    expect(printed.find((l) => l.startsWith("same, both on PostgreSQL"))).toMatch(/: not measured; target ≥ 0\.8; met: —$/);
    expect(printed.some((l) => l.startsWith("MCP"))).toBe(false);
  });
  it("records the machine it ran on, with its load", () => {
    const m = describeMachine();
    expect(m.cpus).toBeGreaterThan(0);
    expect(m.node).toBe(process.version);
    expect(m.description).toContain(`Node ${process.version}`);
    expect(m.description).toMatch(/load average [\d.]+ at start$/);
  });
  it("npm run bench keeps every figure it prints, as printed, for docs/benchmarks.json", () => {
    takeReported();
    report("a_ratio", 1.23456);
    report("an_rps", 1234.56);
    report("a_count", 40);
    report("skipped_figure", "skipped (PostgreSQL not reachable)");
    expect(takeReported()).toEqual({ a_ratio: 1.235, an_rps: 1234.6, a_count: 40, skipped_figure: "skipped (PostgreSQL not reachable)" });
    expect(takeReported()).toEqual({});
  });
});
