// `npm test`: set-up first (the test-only client package, a browser), then type-check,
// unit and integration tests (vitest; the integration project builds the app once), then
// the browser tests (Playwright). A missing browser fails here, in the first seconds,
// with one instruction, instead of after the other suites.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ensureBrowser } from "./browser.mjs";
import { ensureTestClients } from "./test-clients.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules/.bin", name);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };

function run(label, cmd, args, cwd = root) {
  console.log(`\n=== ${label} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit", env });
  console.log(`=== ${label}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(1)} s ===`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Test-only clients (x402 v1's x402-fetch and its wallet SDKs): see scripts/test-clients.mjs.
ensureTestClients((label, cmd, args, cwd) => (run(label, cmd, args, cwd), true));

const only = process.argv.slice(2);
const browserTests = only.length === 0 && existsSync(join(root, "playwright.config.ts"));
if (browserTests) {
  const chromium = ensureBrowser(root);
  if (!chromium) {
    console.error(
      "\nnpm test needs Chromium for the browser tests and could not install one. Install it (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere: `npx playwright install chromium`) or point CHROMIUM_PATH at a Chrome/Chromium binary, then run npm test again.",
    );
    process.exit(1);
  }
  env.CHROMIUM_PATH = chromium;
  console.log(`browser: ${chromium}`);
}

run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
run("vitest", bin("vitest"), ["run", ...only]);
if (browserTests) run("playwright", bin("playwright"), ["test"]);
