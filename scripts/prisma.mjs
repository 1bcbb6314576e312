// `npm run prisma -- <command>`: the Prisma CLI, which lives in its own package (tools/,
// installed with npm ci on first use) so that no install of the service carries it. The
// service does not need it: the generated client is committed (lib/generated/prisma; a
// unit test fails when it no longer matches prisma/schema.prisma) and migrations are
// applied on start by lib/db/migrate.ts. After editing the schema:
//   npm run prisma -- generate
// Offline, the CLI still insists on a native schema engine binary it cannot download;
// `prisma generate` never runs it, so for generate any existing file satisfies the check
// (docs/deployment.md, "Prisma migrations"). Other commands (migrate, studio) need the real engine.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureSidePackage, root } from "./side-package.mjs";

/** Runs the CLI with `args` in `cwd` (default: the project root, with tools/prisma.config.ts); returns spawnSync's result. */
export function prisma(args, { cwd = root, stdio = "inherit", config = true } = {}) {
  const tools = ensureSidePackage("tools", { quiet: stdio !== "inherit" });
  const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
  if (args[0] === "generate" && !env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
  const configArgs = config && args.length > 0 && !args[0].startsWith("-") && !args.includes("--config") && !args.includes("--schema") ? ["--config", join(tools, "prisma.config.ts")] : [];
  return spawnSync(process.execPath, [join(tools, "node_modules/prisma/build/index.js"), ...args, ...configArgs], { cwd, env, stdio, encoding: "utf8" });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = prisma(process.argv.slice(2));
  process.exit(r.status ?? 1);
}
