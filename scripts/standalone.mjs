// Assembles the self-contained server that `output: "standalone"` builds: Next writes
// <distDir>/standalone/server.js with the traced node_modules but leaves the static
// assets (<distDir>/static, public/) for the deployer to copy. It also bundles the
// deployment's entry, lib/server/standalone.ts, into <distDir>/standalone/serve.js
// (esbuild, which tsx brings): Next's server.js with the service's JSON answers to
// requests Node's parser rejects (a 431 for oversized headers, 400, 408). The
// Dockerfile and the smoke test (tests/integration/deploy-shapes.test.ts) both run
// this, then `node <distDir>/standalone/serve.js`.
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { ensureBuild } from "./start.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds when stale, copies the assets in; returns the standalone folder. */
export function assembleStandalone() {
  ensureBuild();
  const dist = join(root, process.env.NEXT_DIST_DIR || ".next");
  const out = join(dist, "standalone");
  if (!existsSync(join(out, "server.js"))) throw new Error(`${out}/server.js missing: is output "standalone" set in next.config.ts?`);
  const distName = process.env.NEXT_DIST_DIR || ".next";
  rmSync(join(out, distName, "static"), { recursive: true, force: true });
  cpSync(join(dist, "static"), join(out, distName, "static"), { recursive: true });
  rmSync(join(out, "public"), { recursive: true, force: true });
  if (existsSync(join(root, "public"))) cpSync(join(root, "public"), join(out, "public"), { recursive: true });
  buildSync({
    entryPoints: [join(root, "lib/server/standalone.ts")],
    outfile: join(out, "serve.js"),
    bundle: true,
    platform: "node",
    // ESM, like Next's server.js beside it (package.json says "type": "module").
    format: "esm",
    // The oldest Node line package.json "engines" admits.
    target: "node22.14",
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "warning",
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(assembleStandalone());
