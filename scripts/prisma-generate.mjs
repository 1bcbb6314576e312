// Generates the Prisma client offline. The CLI insists on a native schema engine
// binary that cannot be downloaded here; `prisma generate` does not use it, so any
// existing file satisfies the check (see README, "Prisma with internet").
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const cli = `${root}node_modules/prisma/build/index.js`;
if (!existsSync(cli)) {
  console.error("prisma CLI not installed; skipping client generation");
  process.exit(0);
}
const r = spawnSync(process.execPath, [cli, "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(r.status ?? 1);
