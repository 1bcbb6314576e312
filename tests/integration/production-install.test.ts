/**
 * The production install, as the container builds it, on this machine: a fresh copy of
 * the repository (the files git tracks or would track, like a clone or a Docker build
 * context), then the build stage's RUN lines read from the Dockerfile and run in order
 * (the lockfile's npm, `npm ci --omit=dev`, scripts/standalone.mjs), then the runtime
 * stage's command (`node serve.js` in a copy of .next/standalone, nothing else beside it)
 * with DATABASE_URL (a fresh schema) and REDIS_URL. Checks on the way: the install holds
 * no dev, test or tooling package, `npm ls --omit=dev` is clean, npm printed no ERESOLVE,
 * one @solana/kit; then the smoke suite: readiness, a free key minted and used, a paid
 * call's 402 with its PAYMENT-REQUIRED, MCP tools/list. Prints the install's time and size.
 * About 80 s here (most of it npm ci and next build).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFixture, type Fixture } from "../helpers/fixture";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";
import { PRODUCTS } from "@/lib/catalog";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pg = await hasPostgres();
const redis = await hasRedis();
if ((!pg || !redis) && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const PAY_TO = "0x00000000000000000000000000000000000A11CE";

/** Packages a production install must not hold: build-time tooling, test clients and tools, their heavy dependencies. */
const NOT_IN_PRODUCTION = [
  "prisma",
  "@prisma/dev",
  "@prisma/studio-core",
  "effect",
  "@playwright/test",
  "playwright",
  "playwright-core",
  "vitest",
  "hardhat",
  "solc",
  "litesvm",
  "x402-fetch",
  "x402",
  "@x402/fetch",
  "@reown/appkit",
  "@walletconnect/core",
  "@coinbase/wallet-sdk",
  "@redocly/cli",
  "@modelcontextprotocol/inspector",
  "@apidevtools/swagger-parser",
  "unpdf",
];

/** The RUN lines of the Dockerfile's build stage, in order. */
function buildStageRuns(dockerfile: string): string[] {
  const stages = dockerfile.split(/^FROM\s+/m).slice(1);
  const build = stages.find((s) => /\sAS\s+build\b/i.test(s.split("\n")[0]!));
  if (!build) throw new Error("Dockerfile has no stage named build");
  return [...build.matchAll(/^RUN\s+(.+)$/gm)].map((m) => m[1]!.trim());
}

/** Bytes on disk (allocated blocks) and apparent bytes under `dir`, and how many package.json files (packages) it holds. */
function sizeOf(dir: string): { disk: number; apparent: number; packages: number } {
  let disk = 0;
  let apparent = 0;
  let packages = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = lstatSync(p);
      disk += st.blocks * 512;
      if (e.isDirectory()) walk(p);
      else {
        apparent += st.size;
        if (e.name === "package.json" && /node_modules\/(@[^/]+\/)?[^/@]+$/.test(d)) packages++;
      }
    }
  };
  walk(dir);
  return { disk, apparent, packages };
}

/** In MiB, as `du -h` counts. */
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

describe.skipIf(!pg || !redis)("production install: the Dockerfile's steps on a fresh copy, then node serve.js with PostgreSQL and Redis", () => {
  const work = mkdtempSync(join(tmpdir(), "echo-prod-install-"));
  const app = join(work, "app");
  const prefix = join(work, "npm-global");
  const figures: string[] = [];
  const outputs: Record<string, string> = {};
  let fx: Fixture | undefined;
  // The build's environment: this machine's, minus what the tests set for themselves.
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", npm_config_prefix: prefix, PATH: `${join(prefix, "bin")}:${process.env.PATH}` };
  for (const k of ["NODE_ENV", "NEXT_DIST_DIR", "DATABASE_URL", "REDIS_URL"]) delete env[k];
  const sh = (cmd: string, cwd = app) => {
    const t0 = Date.now();
    const r = spawnSync("sh", ["-c", cmd], { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const seconds = (Date.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`${cmd} failed (exit ${r.status}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
    return { out: `${r.stdout}\n${r.stderr}`, seconds };
  };

  beforeAll(async () => {
    // The build context: what git tracks, plus new files it would track (a clone, or
    // `docker build .` with .dockerignore's exclusions, which git ignores too).
    const files = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" }).stdout.split("\0").filter(Boolean);
    for (const f of files) {
      if (!existsSync(join(root, f))) continue; // deleted in the working tree
      mkdirSync(dirname(join(app, f)), { recursive: true });
      cpSync(join(root, f), join(app, f), { verbatimSymlinks: true });
    }
    const runs = buildStageRuns(readFileSync(join(app, "Dockerfile"), "utf8"));
    expect(runs.some((r) => /^npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(runs.at(-1)).toBe("node scripts/standalone.mjs");
    for (const run of runs) {
      // `npm install -g` lands in a temporary prefix whose bin comes first on PATH, so
      // the following steps run with the npm the Dockerfile installs, as in the image.
      const { out, seconds } = sh(run);
      outputs[run] = out;
      figures.push(`${run}: ${seconds.toFixed(0)} s`);
      if (/^npm ci\b/.test(run)) {
        const size = sizeOf(join(app, "node_modules"));
        figures.push(`  node_modules: ${mb(size.disk)} on disk, ${mb(size.apparent)} apparent, ${size.packages} packages`);
      }
    }
    const standalone = sizeOf(join(app, ".next/standalone"));
    figures.push(`.next/standalone: ${mb(standalone.disk)} on disk, ${mb(standalone.apparent)} apparent, ${standalone.packages} packages`);
    console.log(`production install (npm ${sh("npm --version").out.trim()}, Node ${process.version}):\n${figures.join("\n")}`);

    fx = await startFixture({
      entry: "standalone",
      standaloneDir: join(app, ".next/standalone"),
      env: {
        DATABASE_URL: `${POSTGRES_URL}?schema=prod_${randomBytes(6).toString("hex")}`,
        REDIS_URL,
        REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
        PAY_TO_ADDRESS: PAY_TO,
        // x402 on EVM is offered with a facilitator; the 402 is answered before any call to it.
        FACILITATOR_URL: "http://127.0.0.1:9/facilitator",
        DATA_DIR: undefined,
      },
    });
  }, 900_000);
  afterAll(async () => {
    await fx?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("runs the build with the npm the Dockerfile installs (the lockfile's)", () => {
    const pinned = buildStageRuns(readFileSync(join(root, "Dockerfile"), "utf8")).find((r) => r.startsWith("npm install -g npm@"));
    expect(pinned).toBeDefined();
    expect(sh("npm --version").out.trim()).toBe(pinned!.split("@").pop());
  });

  it("installs no dev, test or tooling package, without ERESOLVE, and npm ls --omit=dev is clean", () => {
    const npmCi = Object.entries(outputs).find(([run]) => /^npm ci\b/.test(run))![1];
    expect(npmCi).not.toMatch(/ERESOLVE/);
    for (const name of NOT_IN_PRODUCTION) expect(existsSync(join(app, "node_modules", name)), `${name} in the production install`).toBe(false);
    const ls = spawnSync("npm", ["ls", "--omit=dev"], { cwd: app, env, encoding: "utf8" });
    expect(ls.status, ls.stdout + ls.stderr).toBe(0);
    const kit = spawnSync("npm", ["ls", "@solana/kit", "--all", "--omit=dev", "--parseable", "--long"], { cwd: app, env, encoding: "utf8" });
    const versions = new Set(kit.stdout.split("\n").filter(Boolean).map((l) => l.split(":")[1]));
    expect([...versions]).toEqual([expect.stringMatching(/^@solana\/kit@/)]);
  });

  it("builds a standalone folder under 500 MB that serves from a copy of itself", () => {
    expect(sizeOf(join(app, ".next/standalone")).disk).toBeLessThan(500 * 2 ** 20);
    expect(existsSync(join(app, ".next/standalone/serve.js"))).toBe(true);
  });

  it("is ready on PostgreSQL and Redis", async () => {
    const ready = await fx!.json("/health/ready");
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
  });

  it("mints a free key and serves a call with it", async () => {
    const minted = await fx!.json("/v1/free-key?email=prod%40example.com");
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const call = await fx!.get("/v1/fng", { headers: { "X-Api-Key": minted.body.api_key as string } });
    expect(call.status, await call.clone().text()).toBe(200);
    expect(call.headers.get("x-quota-remaining")).toBe("49");
  });

  it("answers a paid call without credentials with 402 and its PAYMENT-REQUIRED", async () => {
    const paid = await fx!.get("/v1/sentiment-report");
    expect(paid.status).toBe(402);
    const requirement = JSON.parse(Buffer.from(paid.headers.get("payment-required")!, "base64").toString("utf8"));
    expect(requirement.accepts[0]).toMatchObject({ network: "eip155:8453" });
    expect(requirement.accepts[0].payTo.toLowerCase()).toBe(PAY_TO.toLowerCase());
  });

  it("lists every MCP tool", async () => {
    const client = new Client({ name: "prod-install-smoke", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${fx!.svc.url}/mcp`)));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const p of PRODUCTS) if (p.tool) expect(names).toContain(p.tool.name);
    } finally {
      await client.close();
    }
  });
});
