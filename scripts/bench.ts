/**
 * Benchmarks printed as `name: value` lines, each target as a ratio against a baseline
 * measured in the same run (never as timed assertions in the test suite).
 *
 *   npm run bench              all sections
 *   npm run bench -- core      only the service-core figures (also: payments, mcp, a2a)
 *
 * Sections register themselves in scripts/bench/*.ts. Each section that finishes writes
 * its figures, with the date, the commit and the machine, to docs/benchmarks.json
 * (replacing that section's previous entry; history stays in git), and `npm run readme`
 * renders them as docs/benchmarks.md's table.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { ensureBuild } from "./start.mjs";
import { takeReported } from "./bench/load";
import { BENCH_RESULTS_FILE, describeMachine, withSection, type BenchResults } from "@/lib/docs/bench-results";
import { coreBench } from "./bench/core";
import { paymentsBench } from "./bench/payments";
import { mcpBench } from "./bench/mcp";
import { a2aBench } from "./bench/a2a";

type Section = { name: string; run: () => Promise<void> };
const sections: Section[] = [
  { name: "core", run: coreBench },
  { name: "payments", run: paymentsBench },
  { name: "mcp", run: mcpBench },
  { name: "a2a", run: a2aBench },
];

/** The commit measured: its short hash, `-dirty` when the work tree has changes (null outside git). */
function commit(): string | null {
  const git = (...args: string[]) => spawnSync("git", args, { encoding: "utf8" });
  const head = git("rev-parse", "--short=12", "HEAD");
  if (head.status !== 0) return null;
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? "-dirty" : ""}`;
}

/** Writes one finished section's figures into docs/benchmarks.json. */
function record(name: string, date: string, machine: ReturnType<typeof describeMachine>, figures: Record<string, number | string>): void {
  const before = existsSync(BENCH_RESULTS_FILE) ? (JSON.parse(readFileSync(BENCH_RESULTS_FILE, "utf8")) as BenchResults) : null;
  writeFileSync(BENCH_RESULTS_FILE, `${JSON.stringify(withSection(before, name, { date, commit: commit(), machine, figures }), null, 2)}\n`);
  console.log(`# ${name}: figures written to docs/benchmarks.json (render the table with npm run readme)`);
}

async function main(): Promise<void> {
  (ensureBuild as () => void)();
  const wanted = process.argv.slice(2);
  for (const s of sections) {
    if (wanted.length && !wanted.includes(s.name)) continue;
    console.log(`# ${s.name}`);
    const date = new Date().toISOString();
    const machine = describeMachine();
    takeReported();
    await s.run();
    record(s.name, date, machine, takeReported());
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
