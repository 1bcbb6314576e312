// `npm start`: build the Next app when the build is missing or older than the sources,
// then run the custom server (lib/server/main.ts) on PORT (default 3000).
import { spawnSync, spawn } from "node:child_process";
import { existsSync, statSync, readdirSync, writeFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SOURCES = ["app", "lib", "public", "prisma", "instrumentation.ts", "next.config.ts", "package.json", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next", "generated", "data"]);
const isBuildDir = (name) => name === ".next" || name.startsWith(".next-");

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of readdirSync(path)) if (!SKIP.has(e) && !isBuildDir(e)) m = Math.max(m, newest(join(path, e)));
  return m;
}

const distDir = () => join(root, process.env.NEXT_DIST_DIR || ".next");
// Carries the time the last successful build STARTED: a source edited while a build
// was running is newer than it, so the next start rebuilds.
const stampPath = () => join(distDir(), "build-started.stamp");

export function buildIsFresh() {
  if (!existsSync(join(distDir(), "BUILD_ID")) || !existsSync(stampPath())) return false;
  const started = statSync(stampPath()).mtimeMs;
  return SOURCES.every((s) => newest(join(root, s)) < started);
}

export function ensureBuild() {
  if (buildIsFresh()) return;
  console.log("building the app (next build)...");
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stampPath(), "");
  utimesSync(stampPath(), started / 1000, started / 1000);
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
