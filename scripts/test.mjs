// `npm test`: type-check, then unit and integration tests (vitest; the integration
// project builds the app once), then the browser tests (Playwright) when present.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules/.bin", name);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };

function run(label, cmd, args) {
  console.log(`\n=== ${label} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  console.log(`=== ${label}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(1)} s ===`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const only = process.argv.slice(2);
run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
run("vitest", bin("vitest"), ["run", ...only]);
if (only.length === 0 && existsSync(join(root, "playwright.config.ts"))) {
  run("playwright", bin("playwright"), ["test"]);
}
