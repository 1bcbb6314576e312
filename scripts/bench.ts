/**
 * Benchmarks printed as `name: value` lines, each target as a ratio against a baseline
 * measured in the same run (never as timed assertions in the test suite).
 *
 *   npm run bench              all sections
 *   npm run bench -- core      only the service-core figures (also: lane, payments, mcp, a2a)
 *
 * Sections register themselves in scripts/bench/*.ts. Each section that finishes writes
 * its figures, with the date, the commit and the machine, to docs/benchmarks.json
 * (replacing that section's previous entry; history stays in git), and `npm run readme`
 * renders them as docs/benchmarks.md's table.
 */
import { spawnSync } from "node:child_process";
import { ensureBuild } from "./start.mjs";
import { takeReported } from "./bench/load";
import { BENCH_RESULTS_FILE, describeMachine, recordSection } from "@/lib/docs/bench-results";
import { coreBench, fastLaneBench } from "./bench/core";
import { paymentsBench } from "./bench/payments";
import { mcpBench } from "./bench/mcp";
import { a2aBench } from "./bench/a2a";

type Section = { name: string; run: () => Promise<void> };
const sections: Section[] = [
  { name: "core", run: coreBench },
  // The fast-lane figures alone (core runs them too).
  { name: "lane", run: fastLaneBench },
  { name: "payments", run: paymentsBench },
  { name: "mcp", run: mcpBench },
  { name: "a2a", run: a2aBench },
];

/**
 * The commit measured: its short hash, `-dirty` when tracked files other than the results
 * file have changes (null outside git). Read once, before any section writes the file.
 */
function commit(): string | null {
  const git = (...args: string[]) => spawnSync("git", args, { encoding: "utf8" });
  const head = git("rev-parse", "--short=12", "HEAD");
  if (head.status !== 0) return null;
  const dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/benchmarks.json").stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? "-dirty" : ""}`;
}

async function main(): Promise<void> {
  (ensureBuild as () => void)();
  const wanted = process.argv.slice(2);
  const measured = commit();
  for (const s of sections) {
    if (wanted.length && !wanted.includes(s.name)) continue;
    console.log(`# ${s.name}`);
    const date = new Date().toISOString();
    const machine = describeMachine();
    takeReported();
    await s.run();
    recordSection(BENCH_RESULTS_FILE, s.name, { date, commit: measured, machine, figures: takeReported() });
    console.log(`# ${s.name}: figures written to docs/benchmarks.json (render the table with npm run readme)`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
