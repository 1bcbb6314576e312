// Completes package-lock.json with the platform-specific optional packages that npm could
// not record because the registry it ran against does not serve them (a mirror without
// the darwin/win32 builds of @next/swc, litesvm, ...). Without those entries `npm ci`
// refuses the lockfile ("Missing: @next/swc-darwin-arm64 from lock file").
//
// Each added entry carries the version the parent pins and the os/cpu/libc read from the
// package's name, marked optional (and dev when the parent is). npm never fetches an
// optional package whose os/cpu do not match the machine; on a matching machine it
// fetches name@version from its registry (no `resolved`/`integrity`, like the rest of
// this lockfile, written with omit-lockfile-registry-resolved). `npm install` keeps such
// entries, so run this only after a lockfile was regenerated from scratch:
//   node scripts/lock-platforms.mjs [folder]          (rewrites folder/package-lock.json)
//   node scripts/lock-platforms.mjs [folder] --check  (exit 1 when an entry is missing)
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const folder = process.argv.slice(2).find((a) => !a.startsWith("--"));
const lockPath = folder ? resolve(folder, "package-lock.json") : fileURLToPath(new URL("../package-lock.json", import.meta.url));
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const pkgs = lock.packages;

const OS = ["darwin", "win32", "linux", "freebsd", "android", "openbsd", "sunos", "aix"];
const CPU = ["arm64", "x64", "ia32", "arm", "ppc64", "s390x", "riscv64", "loong64"];

/** os/cpu/libc a platform package's name declares, or null when it names no platform. */
export function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  const libc = parts.includes("musl") ? "musl" : os === "linux" ? "glibc" : undefined;
  return { os, cpu, libc };
}

// Where Node would find `name` from the package at `from` (its own node_modules, then
// each ancestor's), or null.
function resolveFrom(from, name) {
  let dir = from;
  for (;;) {
    const at = (dir ? `${dir}/` : "") + `node_modules/${name}`;
    if (pkgs[at]) return at;
    if (!dir) return null;
    const i = dir.lastIndexOf("/node_modules/");
    dir = i < 0 ? "" : dir.slice(0, i);
  }
}

const added = [];
const unknown = [];
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    if (resolveFrom(path, name)) continue;
    const platform = platformOf(name);
    // Only exact pins are safe to write down without asking a registry.
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) {
      unknown.push(`${name}@${spec} (from ${path || "root"})`);
      continue;
    }
    // Hoisted to the top like npm places a package no other version competes for.
    const at = pkgs[`node_modules/${name}`] ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    pkgs[at] = {
      version: spec,
      cpu: [platform.cpu],
      ...(meta.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${name}@${spec}`);
  }
}

if (process.argv.includes("--check")) {
  if (added.length) {
    console.error(`package-lock.json lacks ${added.join(", ")}: run node scripts/lock-platforms.mjs ${folder ?? ""}`);
    process.exit(1);
  }
} else if (added.length) {
  lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => a.localeCompare(b, "en")));
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`added ${added.length} platform entries: ${added.join(", ")}`);
}
if (unknown.length) console.warn(`optional dependencies neither installed nor platform-named (left alone): ${unknown.join("; ")}`);
