/**
 * Benchmarks printed as `name: value` lines, each target as a ratio against a baseline
 * measured in the same run (never as timed assertions in the test suite).
 *
 *   npm run bench              all sections
 *   npm run bench -- core      only the service-core figures (also: lane, payments, mcp, a2a)
 *
 * Sections register themselves in scripts/bench/*.ts.
 */
import { ensureBuild } from "./start.mjs";
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

async function main(): Promise<void> {
  (ensureBuild as () => void)();
  const wanted = process.argv.slice(2);
  for (const s of sections) {
    if (wanted.length && !wanted.includes(s.name)) continue;
    console.log(`# ${s.name}`);
    await s.run();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
