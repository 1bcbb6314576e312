// `npm test`: set-up first (the side packages the tests use, a browser), then type-check,
// unit and integration tests (vitest; the integration project builds the app once), then
// the browser tests (Playwright). A missing browser fails here, in the first seconds,
// with one instruction, instead of after the other suites.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureBrowser } from "./browser.mjs";
import { ensureSidePackage, root } from "./side-package.mjs";

const bin = (name) => join(root, "node_modules/.bin", name);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };

function run(label, cmd, args, cwd = root) {
  console.log(`\n=== ${label} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit", env });
  console.log(`=== ${label}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(1)} s ===`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Packages the tests need that must never enter the service's install, each with its own
// lockfile (scripts/side-package.mjs): Playwright (tests/browser), x402 v1's x402-fetch and
// its wallet SDKs (tests/clients), the Prisma CLI (tools/, for the generated-client check).
// The type-check covers files importing all three. The browser package comes first, so a
// machine without a usable browser stops right here.
// The log says which Node ran the suite (.ci/run runs it on the active LTS line).
console.log(`npm test on Node ${process.version} (${process.execPath})`);
const browserDir = ensureSidePackage("tests/browser");
const only = process.argv.slice(2);
const browserTests = only.length === 0;
if (browserTests) {
  const chromium = ensureBrowser(browserDir);
  if (!chromium) {
    console.error(
      "\nnpm test needs Chromium for the browser tests and could not install one. Install it (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere: `npx playwright install chromium` in tests/browser) or point CHROMIUM_PATH at a Chrome/Chromium binary, then run npm test again.",
    );
    process.exit(1);
  }
  env.CHROMIUM_PATH = chromium;
  console.log(`browser: ${chromium}`);
}
ensureSidePackage("tests/clients");
ensureSidePackage("tools");

run("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
// Every vitest project (vitest.config.mts): unit, integration, and integration-next-start,
// which runs the HTTP contract, payment, MCP and A2A suites a second time against plain
// `next start` (SERVICE_SHAPE=next-start), the lane-less shape serverless platforms run.
run("vitest", bin("vitest"), ["run", ...only]);
if (browserTests) run("playwright", join(browserDir, "node_modules/.bin/playwright"), ["test", "--config", join(browserDir, "playwright.config.ts")], browserDir);
