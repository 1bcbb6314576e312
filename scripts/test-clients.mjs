// The test-only clients (x402 v1's x402-fetch and its wallet SDKs) live in their own package,
// tests/clients, so a production install never contains them. `npm test` and `npm run bench`
// both drive them (tests/helpers/payments.ts imports them): (re)install that folder when
// its lockfile moved.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Runs `npm ci` in tests/clients unless its install is current; false when that failed. */
export function ensureTestClients(run = defaultRun) {
  const clients = join(root, "tests/clients");
  const installed = join(clients, "node_modules/.package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(clients, "package-lock.json")).mtimeMs) return true;
  return run("test clients (npm ci in tests/clients)", "npm", ["ci", "--no-audit", "--no-fund"], clients);
}

function defaultRun(label, cmd, args, cwd) {
  console.log(`=== ${label} ===`);
  return spawnSync(cmd, args, { cwd, stdio: "inherit", env: process.env }).status === 0;
}
