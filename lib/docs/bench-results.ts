/**
 * The benchmark figures of the latest run, as `npm run bench` writes them
 * (docs/benchmarks.json, one entry per section: date, commit, machine, every `name: value`
 * line it printed), and the one table docs/benchmarks.md shows of them (`npm run
 * readme`). A section run again replaces its entry; earlier runs live in git's history.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as nodeOs from "node:os";

/** Where `npm run bench` writes the figures (scripts/bench.ts). */
export const BENCH_RESULTS_FILE = new URL("../../docs/benchmarks.json", import.meta.url);

export type Figure = number | string;

export interface BenchMachine {
  /** One line for people: CPUs, memory, OS, Node, load. */
  description: string;
  cpus?: number;
  cpu_model?: string;
  memory_gb?: number;
  os?: string;
  node?: string;
  /** The host's 1-minute load average when the section started (the machine may be shared). */
  load_average_1m?: number;
}

export interface BenchSection {
  /** When the section ran (ISO 8601), or the dates figures were taken on. */
  date: string;
  /** The commit measured (`git describe`-like, `-dirty` when the tree had changes), if known. */
  commit: string | null;
  machine: BenchMachine;
  /** How the figures were obtained when not written by `npm run bench` itself. */
  source?: string;
  figures: Record<string, Figure>;
}

export interface BenchResults {
  sections: Record<string, BenchSection>;
}

/** This machine, as a section records it. */
export function describeMachine(): BenchMachine {
  const c = nodeOs.cpus();
  const memory_gb = Math.round((nodeOs.totalmem() / 2 ** 30) * 10) / 10;
  const os = `${nodeOs.type()} ${nodeOs.release()} ${nodeOs.arch()}`;
  const load = Math.round(nodeOs.loadavg()[0]! * 100) / 100;
  const model = c[0]?.model.trim() ?? "unknown CPU";
  return {
    description: `${c.length} × ${model}, ${memory_gb} GB, ${os}, Node ${process.version}, load average ${load} at start`,
    cpus: c.length,
    cpu_model: model,
    memory_gb,
    os,
    node: process.version,
    load_average_1m: load,
  };
}

/** `results` with `name`'s entry replaced by `section` (the other sections kept, in their order). */
export function withSection(results: BenchResults | null, name: string, section: BenchSection): BenchResults {
  return { sections: { ...(results?.sections ?? {}), [name]: section } };
}

/** Writes `section` as `name`'s entry of the results file at `file`, keeping the other sections. */
export function recordSection(file: URL | string, name: string, section: BenchSection): BenchResults {
  const before = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as BenchResults) : null;
  const after = withSection(before, name, section);
  writeFileSync(file, `${JSON.stringify(after, null, 2)}\n`);
  return after;
}

type Goal = { op: "≥" | "≤" | "="; value: number };

interface Row {
  section: string;
  label: string;
  figure: string;
  unit?: string;
  /** Figures shown beside the value, e.g. the two latencies a ratio divides. */
  detail?: (f: Record<string, Figure>) => string | null;
  goal?: Goal;
  /** A target in words when it is not a bound (shown as is, not checked). */
  target?: string;
}

/** `a vs b unit`, when both figures were measured. */
const versus = (f: Record<string, Figure>, a: string, b: string, unit: string) => (f[a] !== undefined && f[b] !== undefined ? `${f[a]} vs ${f[b]} ${unit}` : null);
const ms = (f: Record<string, Figure>, a: string, b: string) => versus(f, a, b, "ms");

/**
 * The figures the table shows, with their targets (the rest stay in the JSON file). The
 * targets of issue 29 (the fast lane): key call ≥ 0.15× bare Node, p99 ≤ 2× p50 at 50
 * connections, MCP and A2A ≥ 0.9× HTTP on the same lane, x402 ≤ 2.5× a key call. Every
 * service these sections start is `npm start`'s server, so every figure is on the lane
 * unless its label names Next's pipeline.
 */
export const BENCH_ROWS: readonly Row[] = [
  { section: "lane", label: "Key call on the fast lane (free key, `GET /v1/quote`, one ledger write) ÷ a bare Node `http` server answering the same bytes, 50 connections: throughput", figure: "lane_key_call_vs_bare_node_throughput_ratio", goal: { op: "≥", value: 0.15 }, detail: (f) => versus(f, "lane_key_call_rps", "bare_node_same_bytes_rps", "req/s") },
  { section: "lane", label: "same key call at 50 connections: p99 ÷ p50", figure: "lane_key_call_p99_over_p50", goal: { op: "≤", value: 2 }, detail: (f) => (f.lane_key_call_p50_ms !== undefined && f.lane_key_call_p99_ms !== undefined ? `p50 ${f.lane_key_call_p50_ms} ms, p99 ${f.lane_key_call_p99_ms} ms` : null) },
  { section: "lane", label: "same key call, fast lane ÷ Next's pipeline (a `FAST_LANE=0` server): throughput", figure: "lane_key_call_vs_next_pipeline_throughput_ratio", detail: (f) => versus(f, "lane_key_call_rps", "next_pipeline_key_call_rps", "req/s") },
  { section: "core", label: "Cached paid endpoint (free key, one ledger write per call) vs static route, 50 connections: throughput, embedded database", figure: "cached_vs_static_throughput_ratio", goal: { op: "≥", value: 0.6 } },
  { section: "core", label: "same, PostgreSQL", figure: "postgres_cached_vs_static_throughput_ratio", goal: { op: "≥", value: 0.6 } },
  { section: "core", label: "same, embedded: p50 / p99 latency ratio (static ÷ paid)", figure: "cached_vs_static_p50_latency_ratio", detail: (f) => (f.cached_vs_static_p99_latency_ratio !== undefined ? `p99 ${f.cached_vs_static_p99_latency_ratio}` : null) },
  { section: "core", label: "Cold-cache fan-in: upstream requests per resource for 200 concurrent calls", figure: "fanin_max_requests_per_resource", goal: { op: "=", value: 1 } },
  { section: "core", label: "Cold composite latency ÷ slowest upstream (delays 300/600/900 ms)", figure: "composite_latency_vs_slowest_ratio", target: "≈ 1", detail: (f) => (f.composite_latency_vs_sum_ratio !== undefined ? `${f.composite_latency_vs_sum_ratio} of the sum` : null) },
  { section: "payments", label: "Bundle-token call latency ÷ free-key call (p50)", figure: "bundle_vs_api_key_latency_ratio", goal: { op: "≤", value: 1.3 } },
  { section: "payments", label: "x402 call (in-process facilitator, verify + settle, local Hardhat chain, automine, confirmed mode, embedded database) ÷ free-key call (p50)", figure: "x402_vs_api_key_latency_ratio", goal: { op: "≤", value: 2.5 }, detail: (f) => ms(f, "x402_call_p50_ms", "api_key_call_p50_ms") },
  { section: "payments", label: "same on a local anvil node (Foundry: the send answered with its receipt, EIP-7966), keys on the same instance", figure: "anvil_x402_vs_api_key_latency_ratio", detail: (f) => ms(f, "anvil_x402_call_p50_ms", "anvil_api_key_call_p50_ms") },
  { section: "payments", label: "Ledger throughput, 100 concurrent callers on one bundle, embedded (credits/s)", figure: "ledger_embedded_credits_per_s" },
  { section: "payments", label: "same, PostgreSQL (credits/s)", figure: "ledger_postgres_credits_per_s" },
  { section: "payments", label: "Settlement, 40 concurrent payments, 2 instances ÷ 1 (one key, 2 s blocks)", figure: "settlement_served_ratio_2_vs_1", goal: { op: "=", value: 1 }, detail: (f) => (f.settlement_served_2_instances !== undefined ? `${f.settlement_served_2_instances} / 40 served` : null) },
  { section: "payments", label: "A served payment presented again on the other instance (its kept answer, PostgreSQL): p50", figure: "replay_other_instance_p50_ms", unit: "ms", goal: { op: "≤", value: 50 }, detail: (f) => (f.replay_other_instance_p99_ms !== undefined ? `p99 ${f.replay_other_instance_p99_ms} ms, ${f.replay_other_instance_samples} presentations` : null) },
  { section: "payments", label: "Confirmed mode p50 at 2 s blocks (node over WebSocket, calls spread over the block)", figure: "settlement_2000ms_blocks_confirmed_p50_ms", unit: "ms", goal: { op: "≤", value: 1050 } },
  { section: "payments", label: "Confirmed mode p50 at 200 ms blocks", figure: "settlement_200ms_blocks_confirmed_p50_ms", unit: "ms", goal: { op: "≤", value: 150 } },
  { section: "payments", label: "Optimistic mode p50 ÷ free-key p50 at 2 s blocks, node over WebSocket", figure: "settlement_2000ms_blocks_optimistic_vs_key_p50_ratio", goal: { op: "≤", value: 1.5 }, detail: (f) => ms(f, "settlement_2000ms_blocks_optimistic_p50_ms", "settlement_2000ms_blocks_optimistic_instance_key_p50_ms") },
  { section: "payments", label: "same at 200 ms blocks", figure: "settlement_200ms_blocks_optimistic_vs_key_p50_ratio", goal: { op: "≤", value: 1.5 }, detail: (f) => ms(f, "settlement_200ms_blocks_optimistic_p50_ms", "settlement_200ms_blocks_optimistic_instance_key_p50_ms") },
  { section: "payments", label: "Optimistic ÷ free key, node over HTTP, 2 s / 200 ms blocks", figure: "settlement_2000ms_blocks_optimistic_http_rpc_vs_key_p50_ratio", detail: (f) => (f.settlement_200ms_blocks_optimistic_http_rpc_vs_key_p50_ratio !== undefined ? `200 ms: ${f.settlement_200ms_blocks_optimistic_http_rpc_vs_key_p50_ratio}` : null) },
  { section: "mcp", label: "MCP `tools/call` vs the same product over HTTP, same lane, 32 connections: throughput", figure: "mcp_vs_http_throughput_ratio", goal: { op: "≥", value: 0.9 }, detail: (f) => versus(f, "mcp_tools_call_rps", "http_same_product_rps", "req/s") },
  { section: "mcp", label: "same: p99 ratio (HTTP p99 ÷ MCP p99)", figure: "mcp_vs_http_p99_ratio", goal: { op: "≥", value: 0.5 } },
  { section: "a2a", label: "A2A `message:send` (HTTP+JSON, free key in metadata) vs the same product over HTTP, same lane, 32 connections: throughput", figure: "a2a_vs_http_throughput_ratio", goal: { op: "≥", value: 0.9 }, detail: (f) => versus(f, "a2a_message_send_rps", "http_same_product_rps", "req/s") },
  { section: "a2a", label: "same: p99 ratio (HTTP p99 ÷ A2A p99)", figure: "a2a_vs_http_p99_ratio" },
  { section: "a2a", label: "same, both on PostgreSQL (the task store every instance shares): throughput", figure: "a2a_postgres_vs_http_throughput_ratio", goal: { op: "≥", value: 0.8 }, detail: (f) => versus(f, "a2a_postgres_message_send_rps", "postgres_http_same_product_rps", "req/s") },
];

function meets(v: number, g: Goal): boolean {
  // Figures are printed to 3 decimals: "=" compares at that precision.
  return g.op === "≥" ? v >= g.value : g.op === "≤" ? v <= g.value : Math.abs(v - g.value) < 0.0005;
}

/** Whether a figure meets its goal: a number, or a range "a-b" (both ends, one, or neither). */
function met(value: Figure | undefined, goal: Goal | undefined): string {
  if (!goal || value === undefined) return "—";
  if (typeof value === "number") return meets(value, goal) ? "yes" : "no";
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!range) return "—";
  const ends = [Number(range[1]), Number(range[2])].map((v) => meets(v, goal));
  return ends.every(Boolean) ? "yes" : ends.some(Boolean) ? "in part of the range" : "no";
}

/** One row's value ("not measured" when the figure is absent), detail, target and verdict. */
function rowCells(results: BenchResults, r: Row): { value: string; detail: string | null; target: string; met: string } {
  const f = results.sections[r.section]?.figures ?? {};
  const v = f[r.figure];
  return {
    value: v === undefined ? "not measured" : `${v}${r.unit ? ` ${r.unit}` : ""}`,
    detail: v === undefined ? null : (r.detail?.(f) ?? null),
    target: r.goal ? `${r.goal.op === "=" ? "" : `${r.goal.op} `}${r.goal.value}${r.unit ? ` ${r.unit}` : ""}` : (r.target ?? "—"),
    met: met(v, r.goal),
  };
}

/**
 * What `npm run bench` prints after its sections: each table row of the sections it ran,
 * as one line with its target and whether the figure meets it.
 */
export function benchSummary(results: BenchResults, sections: readonly string[]): string[] {
  return BENCH_ROWS.filter((r) => sections.includes(r.section)).map((r) => {
    const c = rowCells(results, r);
    return `${r.label}: ${c.value}${c.detail ? ` (${c.detail})` : ""}; target ${c.target}; met: ${c.met}`;
  });
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The runs the table is made of (date, commit, machine per section), then the table. */
export function benchTable(results: BenchResults): string {
  const sections = [...new Set(BENCH_ROWS.map((r) => r.section))];
  const runs = sections.map((name) => {
    const s = results.sections[name];
    if (!s) return `- \`${name}\`: not run yet.`;
    const commit = s.commit ? `, commit \`${s.commit}\`` : "";
    const source = s.source ? ` ${cell(s.source)}` : "";
    return `- \`${name}\`: ${s.date}${commit}; ${cell(s.machine.description)}.${source}`;
  });
  const rows = BENCH_ROWS.map((r) => {
    const c = rowCells(results, r);
    return `| ${cell(r.label)} | \`${r.section}\` | ${cell(c.value)}${c.detail ? ` (${cell(c.detail)})` : ""} | ${c.target} | ${c.met} |`;
  });
  return [...runs, "", "| Figure | Section | Latest value | Target | Met |", "|---|---|---|---|---|", ...rows].join("\n");
}
