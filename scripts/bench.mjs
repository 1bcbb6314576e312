// `npm run bench`: runs scripts/bench.ts through tsx (it imports the TypeScript simulator).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureSidePackage, root } from "./side-package.mjs";

// The payment figures sign with the test helpers, which load the test-only clients (tests/clients).
ensureSidePackage("tests/clients");
const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts/bench.ts"), ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
process.exit(r.status ?? 1);
