/**
 * Starts the real service (lib/server/main.ts, the same entry as `npm start`) as a
 * child process on a free port and waits for its ready line. `entry: "next-start"` runs
 * the same build under plain `next start` instead (what a platform deploy or someone
 * skipping `npm start` gets: no custom server in front of the routes); `entry:
 * "standalone"` runs the standalone folder's entry, serve.js (Next's server.js with the
 * service's JSON client-error answers, lib/server/standalone.ts), as the container does,
 * from a temporary copy of the standalone folder.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Service {
  url: string;
  port: number;
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
  let args: string[];
  let cwd = root;
  let copy: string | undefined;
  if (opts.entry === "standalone") {
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
      opts.entry === "next-start"
        ? [join(root, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", "0"]
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
        opts.entry === "next-start" || opts.entry === "standalone"
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
