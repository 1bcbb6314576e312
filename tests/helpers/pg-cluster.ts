/**
 * A PostgreSQL server of the test's own (initdb into a temporary folder, on a free
 * loopback port), so a test can stop and start it as an outage would, without touching
 * the machine's server that other tests use at the same time. Uses the machine's
 * PostgreSQL binaries (Debian: /usr/lib/postgresql/<version>/bin); as root, the server
 * runs as the `postgres` OS user (PostgreSQL refuses root). `available()` says whether
 * this machine can run one.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./service";

function binDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, "bin/pg_ctl"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], "bin") : null;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function postgresUid(): { uid: number; gid: number } | null {
  try {
    return { uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim()) };
  } catch {
    return null;
  }
}

/** Whether this machine can run a private PostgreSQL server for a test. */
export function available(): boolean {
  return binDir() !== null && (!asRoot || postgresUid() !== null);
}

export interface PgCluster {
  /** postgresql:// URL of its database `postgres` (add `?schema=` as DATABASE_URL does). */
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

function run(bin: string, args: string[]): void {
  const cmd = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const r = spawnSync(cmd[0] as string, cmd[1] as string[], { cwd: "/", encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql");
  const dir = mkdtempSync(join(tmpdir(), "echo-pg-"));
  const data = join(dir, "data");
  if (asRoot) {
    const u = postgresUid()!;
    chownSync(dir, u.uid, u.gid);
    chmodSync(dir, 0o700);
  }
  run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
  const start = () => run(join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  const stop = () => run(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
  start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: () => {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
