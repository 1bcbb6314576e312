/**
 * Benchmarks printed as `name: value` lines, each target as a ratio against a baseline
 * measured in the same run (never as timed assertions in the test suite).
 *
 *   npm run bench              all sections
 *   npm run bench -- core      only the service-core figures (also: lane, payments, mcp, a2a)
 *
 * After its sections it prints the table's rows for them (lib/docs/bench-results.ts): the
 * issue-29 figures (lane, payments, mcp, a2a) and the others, each with its target and
 * whether it is met. Every service it starts is `npm start`'s server (the fast lane).
 *
 * Sections register themselves in scripts/bench/*.ts. Each section that finishes writes
 * its figures, with the date, the commit and the machine, to docs/benchmarks.json
 * (replacing that section's previous entry; history stays in git), and `npm run readme`
 * renders them as docs/benchmarks.md's table.
 */
import { spawnSync } from "node:child_process";
import { ensureBuild } from "./start.mjs";
import { takeReported } from "./bench/load";
import { BENCH_RESULTS_FILE, benchSummary, describeMachine, recordSection, type BenchResults } from "@/lib/docs/bench-results";
import { serviceShape } from "../tests/helpers/service";
import { coreBench, fastLaneBench } from "./bench/core";
import { paymentsBench } from "./bench/payments";
import { mcpBench } from "./bench/mcp";
import { a2aBench } from "./bench/a2a";

type Section = { name: string; run: () => Promise<void> };
const sections: Section[] = [
  { name: "core", run: coreBench },
  // The fast lane against bare Node and against Next's pipeline (issue 29).
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
  // The figures and their targets are `npm start`'s server's; SERVICE_SHAPE (the test
  // suites' switch to plain `next start`) would measure another server under their names.
  if (serviceShape() !== "server") throw new Error("npm run bench measures npm start's server: unset SERVICE_SHAPE");
  (ensureBuild as () => void)();
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !sections.some((s) => s.name === w));
  if (unknown.length) throw new Error(`unknown section(s) ${unknown.join(", ")}: expected ${sections.map((s) => s.name).join(", ")}`);
  const measured = commit();
  const ran: string[] = [];
  let results: BenchResults | undefined;
  for (const s of sections) {
    if (wanted.length && !wanted.includes(s.name)) continue;
    console.log(`# ${s.name}`);
    const date = new Date().toISOString();
    const machine = describeMachine();
    takeReported();
    await s.run();
    results = recordSection(BENCH_RESULTS_FILE, s.name, { date, commit: measured, machine, figures: takeReported() });
    ran.push(s.name);
    console.log(`# ${s.name}: figures written to docs/benchmarks.json (render the table with npm run readme)`);
  }
  if (!results) return;
  console.log("# targets (the table npm run readme renders from docs/benchmarks.json)");
  for (const line of benchSummary(results, ran)) console.log(line);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
