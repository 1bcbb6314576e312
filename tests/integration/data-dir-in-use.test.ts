/**
 * Two servers on one embedded database folder (issue 28): the second `npm start` used to
 * log PGlite's `Aborted()` and serve 503s while /health/live said it was up. Now it does
 * not start: it exits non-zero naming the folder, the process holding it and how to
 * choose another (DATA_DIR, DATABASE_URL), and the first one keeps serving untouched.
 * A server killed with SIGKILL leaves its lock behind; the next start takes it over and
 * serves the same data. The container's entry (serve.js) refuses the same way; `next
 * start` (no entry of ours to refuse at start) answers 503 from the database with the
 * same reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("a second server on the same embedded database folder", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "echo-inuse-"));
  let sim: Simulator;
  const running: Service[] = [];
  const env = () => ({ ...sim.env, UPSTREAM_MODE: "live", DATA_DIR: dataDir, DATABASE_URL: undefined });

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    for (const s of running) await s.stop();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<Service> {
    const svc = await startService({ env: env() });
    running.push(svc);
    return svc;
  }

  function expectRefusal(output: string, holderPid: number): void {
    expect(output).toContain('"event":"server.data_dir_in_use"');
    expect(output).toContain(`DATA_DIR ${dataDir} is in use by process ${holderPid} on host ${hostname()}`);
    expect(output).toContain("DATA_DIR=/other/folder");
    expect(output).toContain("DATABASE_URL=postgresql://");
    expect(output).toContain(join(dataDir, "pglite.lock"));
    // It never opened the folder: no PGlite abort, no server.
    expect(output).not.toContain("Aborted()");
    expect(output).not.toContain('"event":"server.ready"');
  }

  it("is refused at start with the folder, the holder's PID and the way out; after the holder is SIGKILLed the next start takes over and serves its data", async () => {
    const first = await start();
    const key = (await (await fetch(`${first.url}/v1/free-key`)).json()).api_key as string;
    expect(key).toBeTruthy();
    const lock = JSON.parse(readFileSync(join(dataDir, "pglite.lock"), "utf8"));
    expect(lock.pid).toBe(first.child.pid);

    // `npm start` (scripts/start.mjs, which runs lib/server/main.ts): exit status 1.
    const npmStart = spawnSync(process.execPath, [join(root, "scripts/start.mjs")], {
      cwd: root,
      env: { ...process.env, ...env(), DATABASE_URL: "", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(npmStart.status, npmStart.stdout + npmStart.stderr).toBe(1);
    expectRefusal(npmStart.stdout + npmStart.stderr, first.child.pid!);

    // The holder is untouched: still ready, its data still there.
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);
    expect((await fetch(`${first.url}/v1/usage`, { headers: { "X-Api-Key": key } })).status).toBe(200);

    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    // The killed server could not remove its lock.
    expect(JSON.parse(readFileSync(join(dataDir, "pglite.lock"), "utf8")).pid).toBe(first.child.pid);

    const next = await start();
    expect(JSON.parse(readFileSync(join(dataDir, "pglite.lock"), "utf8")).pid).toBe(next.child.pid);
    const ready = await fetch(`${next.url}/health/ready`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    // The data the killed server wrote is served.
    expect((await fetch(`${next.url}/v1/usage`, { headers: { "X-Api-Key": key } })).status).toBe(200);

    // A clean stop removes the lock.
    await next.stop();
    expect(existsSync(join(dataDir, "pglite.lock"))).toBe(false);
  }, 240_000);

  it("the container's entry (standalone serve.js) on a folder in use exits 1 with the same reason", async () => {
    const holder = await start();
    try {
      const refused = await startService({ entry: "standalone", env: env() }).then(
        (svc) => {
          running.push(svc);
          throw new Error(`it started: ${svc.url}`);
        },
        (err: Error) => err.message,
      );
      expect(refused).toMatch(/^service exited with 1 before it was ready/);
      expectRefusal(refused, holder.child.pid!);
      expect((await fetch(`${holder.url}/health/ready`)).status).toBe(200);
    } finally {
      await holder.stop();
    }
  }, 240_000);

  it("`next start` on a folder in use answers 503 on /health/ready with the same reason, and opens nothing", async () => {
    const holder = await start();
    const second = await startService({ entry: "next-start", env: env() });
    running.push(second);
    try {
      const ready = await fetch(`${second.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = await ready.json();
      expect(body.database.error).toContain(`DATA_DIR ${dataDir} is in use by process ${holder.child.pid}`);
      expect(second.logs()).not.toContain("Aborted()");
      expect((await fetch(`${holder.url}/health/ready`)).status).toBe(200);
    } finally {
      await second.stop();
      await holder.stop();
    }
  }, 240_000);
});
