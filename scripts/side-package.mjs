// Side packages: folders with their own package.json and package-lock.json whose
// dependencies must never enter the service's install (a production `npm ci --omit=dev`
// would otherwise carry them, see docs/deployment.md, "Installs"): tools/ (the Prisma CLI),
// tests/clients (x402 v1's x402-fetch and its wallet SDKs), tests/browser (Playwright).
// Each is installed with `npm ci` on first use, and again when its lockfile changed.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** Whether `dir`'s node_modules matches its lockfile (npm ci writes node_modules/.package-lock.json after the lockfile). */
export function isInstalled(dir) {
  const installed = join(dir, "node_modules/.package-lock.json");
  return existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(dir, "package-lock.json")).mtimeMs;
}

/** `npm ci` in `dir` (relative to the project root) unless it is installed; exits on failure. */
export function ensureSidePackage(relDir, { quiet = false } = {}) {
  const dir = join(root, relDir);
  if (isInstalled(dir)) return dir;
  const log = quiet ? console.error : console.log;
  log(`installing ${relDir} (npm ci, its own lockfile)...`);
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", ...(quiet ? ["--loglevel=error"] : [])], {
    cwd: dir,
    stdio: quiet ? ["ignore", "ignore", "inherit"] : "inherit",
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
  });
  if (r.status !== 0) {
    console.error(`npm ci in ${relDir} failed (exit ${r.status}); run it there by hand to see why.`);
    process.exit(r.status ?? 1);
  }
  return dir;
}
