// Finds the Chromium the browser tests drive, or installs one where this machine allows,
// so `npm test` fails in its first seconds (not after minutes of other suites) when no
// browser can be had. Order: CHROMIUM_PATH, a system Chromium/Chrome, Playwright's own
// download cache; then Debian's package (as root with apt-get), then Playwright's
// download (needs its CDN). Playwright itself is the tests/browser package's.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";

const SYSTEM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"];
const ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) if (dir && executable(join(dir, name))) return join(dir, name);
  return null;
}

/** Chromium in Playwright's download cache (~/.cache/ms-playwright), as the installed playwright-core names it. */
function playwrightCache(browserDir) {
  try {
    const { chromium } = createRequire(join(browserDir, "package.json"))("playwright-core");
    const p = chromium.executablePath();
    return p && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** Path of a usable Chromium, or null. `browserDir`: the tests/browser package (with its node_modules). */
export function findBrowser(browserDir) {
  const env = process.env.CHROMIUM_PATH;
  if (env) return executable(env) ? env : null;
  return SYSTEM.find(executable) ?? ON_PATH.map(onPath).find(Boolean) ?? playwrightCache(browserDir);
}

const run = (cmd, args, extraEnv = {}) => spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...extraEnv } }).status === 0;

/** Finds a browser or installs one; returns its path, or null with the reason printed. */
export function ensureBrowser(browserDir) {
  if (process.env.CHROMIUM_PATH && !executable(process.env.CHROMIUM_PATH)) {
    console.error(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file.`);
    return null;
  }
  let found = findBrowser(browserDir);
  if (found) return found;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && onPath("apt-get")) {
    console.log("no Chromium found: installing Debian's chromium (apt-get)...");
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    if (run("apt-get", ["update", "-qq"], env) && run("apt-get", ["install", "-y", "-qq", "chromium", "fonts-liberation"], env)) found = findBrowser(browserDir);
    if (found) return found;
  }
  console.log("no Chromium found: trying Playwright's download (playwright install chromium)...");
  if (run(process.execPath, [join(browserDir, "node_modules/@playwright/test/cli.js"), "install", "chromium"], { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "" })) found = findBrowser(browserDir);
  return found;
}
