/**
 * Starts the real service (lib/server/main.ts, the same entry as `npm start`) as a
 * child process on a free port and waits for its ready line. `entry: "next-start"` runs
 * the same build under plain `next start` instead (what a platform deploy or someone
 * skipping `npm start` gets: no custom server in front of the routes); `entry:
 * "standalone"` runs the standalone folder's entry, serve.js (Next's server.js with the
 * service's JSON client-error answers, lib/server/standalone.ts), as the container does,
 * from a temporary copy of the standalone folder.
 *
 * SERVICE_SHAPE=next-start in the test process makes `next-start` the default entry: the
 * suites that must hold on both lanes (vitest.config.ts, project "integration-next-start")
 * run unchanged against plain `next start`, the shape serverless platforms run, with no
 * fast lane and no custom server in front. A suite that names its entry keeps it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_TIMEOUTS } from "@/lib/server/client-error";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Service {
  url: string;
  port: number;
  /** What runs: `npm start`'s server, plain `next start`, or the standalone serve.js. */
  entry: "server" | "next-start" | "standalone";
  child: ChildProcess;
  logs: () => string;
  stop: () => Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string | undefined>;
  /** Keep the database in memory (default) or in a temp folder. */
  persistent?: boolean;
  timeoutMs?: number;
  entry?: "server" | "next-start" | "standalone";
  /** With entry "standalone": an assembled standalone folder to run (a copy of it), instead of this checkout's. */
  standaloneDir?: string;
  /** Extra Node.js flags for the service process (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

export type ServiceShape = "server" | "next-start";

/**
 * The entry a suite gets when it names none: `npm start`'s server (the fast lane in front
 * of Next), or plain `next start` when SERVICE_SHAPE=next-start. Anything else is refused,
 * so a typo cannot quietly test the default shape twice.
 */
export function serviceShape(): ServiceShape {
  const shape = process.env.SERVICE_SHAPE;
  if (shape === undefined || shape === "" || shape === "server") return "server";
  if (shape === "next-start") return shape;
  throw new Error(`SERVICE_SHAPE=${shape}: expected "server" (npm start, the default) or "next-start"`);
}

/**
 * Skips the running test, with `why` as the reporter's note, unless this run's default
 * shape is `npm start`'s server: for checks of what only that server has (the fast lane
 * and its debug log, say), in the suites that also run against plain `next start`. Call it
 * first in the test body: `it("…", (ctx) => { onlyOnServer(ctx, "the lane's debug log"); … })`.
 */
export function onlyOnServer(ctx: { skip(condition: boolean, note?: string): void }, why: string): void {
  ctx.skip(serviceShape() !== "server", `only npm start's server has this: ${why} (this run: ${serviceShape()})`);
}

/**
 * `next start`'s flags when the shape comes from SERVICE_SHAPE: keep-alive as long as
 * the service's own servers keep it (SERVER_TIMEOUTS, 65 s; Next's own flag for this). Under
 * Node's 5 s default the suites' HTTP client, on a loaded 2-core machine, reused
 * connections the server was closing: conformance's discovery test failed with ECONNRESET
 * in 2 of 4 runs. That is the client's keep-alive race, not an answer of the service; the
 * suites test the answers. A suite that names `next-start` itself (deploy-shapes) gets
 * Next's defaults, as a platform's plain command does.
 */
function nextStartKeepAlive(named: ServiceOptions["entry"]): string[] {
  return named === undefined ? ["--keepAliveTimeout", String(SERVER_TIMEOUTS.keepAliveTimeout)] : [];
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  const dataDir = opts.persistent ? mkdtempSync(join(tmpdir(), "echo-data-")) : "memory";
  const env = {} as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    PORT: "0",
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    LOG_LEVEL: opts.env?.LOG_LEVEL ?? "info",
  });
  if (!opts.env?.DATA_DIR) env.DATA_DIR = dataDir;
  // The local Hardhat chain charges about 2.2 gwei per unit of gas, some 400 times Base's:
  // its ether is valued 400 times lower than X402_GAS_TOKEN_USD's default, so the gas bound
  // (X402_MAX_GAS_SHARE) judges a settlement here as it would one on Base.
  if (!("X402_GAS_TOKEN_USD" in (opts.env ?? {}))) env.X402_GAS_TOKEN_USD = "10";
  const entry = opts.entry ?? serviceShape();
  let args: string[];
  let cwd = root;
  let copy: string | undefined;
  if (entry === "standalone") {
    // server.js reads PORT with `|| 3000`, so 0 would mean 3000: hand it a free port.
    const { assembleStandalone } = await import("../../scripts/standalone.mjs");
    Object.assign(env, { PORT: String(await freePort()), HOSTNAME: "127.0.0.1" });
    const folder = opts.standaloneDir ?? assembleStandalone();
    // Run a copy of the folder from elsewhere, as the container's runtime stage holds it:
    // anything it still reads from the checkout (a file tracing missed, the repository's
    // node_modules) fails here instead of working by accident.
    copy = mkdtempSync(join(tmpdir(), "echo-standalone-"));
    cpSync(folder, copy, { recursive: true, verbatimSymlinks: true });
    cwd = copy;
    args = [join(copy, "serve.js")];
  } else {
    args =
      entry === "next-start"
        ? [join(root, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", "0", ...nextStartKeepAlive(opts.entry)]
        : ["--import", "tsx", join(root, "lib/server/main.ts")];
  }
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const onData = (d: Buffer) => {
    out += d.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);

  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A service that never got ready would outlive the test run otherwise.
      child.kill("SIGKILL");
      reject(new Error(`service did not start in time:\n${out.slice(-4000)}`));
    }, opts.timeoutMs ?? 60_000);
    const check = () => {
      const m =
        entry === "next-start" || entry === "standalone"
          ? out.includes("Ready in") && out.match(/- Local:\s+(http:\/\/\S+)/)
          : out.match(/"event":"server\.ready","url":"([^"]+)"/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${out.slice(-4000)}`));
    });
  });
  const url = await ready.catch((err: unknown) => {
    if (copy) rmSync(copy, { recursive: true, force: true });
    throw err;
  });
  return {
    url,
    port: Number(new URL(url).port),
    entry,
    child,
    logs: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      if (opts.persistent) rmSync(dataDir, { recursive: true, force: true });
      if (copy) rmSync(copy, { recursive: true, force: true });
    },
  };
}
