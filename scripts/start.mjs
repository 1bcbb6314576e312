// `npm start`: build the Next app when the build is missing or older than the sources,
// then run the custom server (lib/server/main.ts) on PORT (default 3000).
import { spawnSync, spawn } from "node:child_process";
import { existsSync, statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SOURCES = ["app", "lib", "public", "prisma", "next.config.ts", "package.json", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next", "generated", "data"]);

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of readdirSync(path)) if (!SKIP.has(e)) m = Math.max(m, newest(join(path, e)));
  return m;
}

export function buildIsFresh() {
  const id = join(root, ".next", "BUILD_ID");
  if (!existsSync(id)) return false;
  const built = statSync(id).mtimeMs;
  return SOURCES.every((s) => newest(join(root, s)) <= built);
}

export function ensureBuild() {
  if (buildIsFresh()) return;
  console.log("building the app (next build)...");
  const r = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureBuild();
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "lib/server/main.ts")], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
  child.on("exit", (code) => process.exit(code ?? 0));
}
