// `npm run bench`: runs scripts/bench.ts through tsx (it imports the TypeScript simulator).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ensureTestClients } from "./test-clients.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// The payment figures sign with the test helpers, which load the test-only clients too.
if (!ensureTestClients()) process.exit(1);
const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts/bench.ts"), ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
process.exit(r.status ?? 1);
