/**
 * The embedded database's folder lock (lib/db/data-dir-lock.ts): one process per
 * DATA_DIR, refused with the holder named and the way out (DATA_DIR, DATABASE_URL), a
 * lock whose process is gone taken over, and a race over a stale lock won by exactly one.
 * Holders here are real processes (a `sleep`, or this module in a child process).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DataDirInUseError, LOCK_FILE, lockDataDir, type LockInfo } from "@/lib/db/data-dir-lock";

const root = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;
let lockFile: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "echo-lock-"));
  lockFile = join(dir, LOCK_FILE);
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function procStart(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

/** A live process that is not this one. */
function sleeper(): ChildProcess {
  const c = spawn("sleep", ["60"], { stdio: "ignore" });
  children.push(c);
  return c;
}

/** A PID that was alive a moment ago and is not any more. */
function deadPid(): number {
  const r = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

function writeLock(info: Partial<LockInfo>, ageMs = 0): string {
  const text = JSON.stringify({ host: hostname(), since: new Date().toISOString(), command: "node other.js", cwd: "/elsewhere", ...info });
  writeFileSync(lockFile, text);
  const t = new Date(Date.now() - ageMs);
  utimesSync(lockFile, t, t);
  return text;
}

const holderPid = () => (JSON.parse(readFileSync(lockFile, "utf8")) as LockInfo).pid;

function refusal(): DataDirInUseError {
  try {
    lockDataDir(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(DataDirInUseError);
    return err as DataDirInUseError;
  }
  throw new Error("the lock was granted");
}

describe("DATA_DIR lock", () => {
  it("is taken once per process, names this process, and is removed on release", () => {
    const lock = lockDataDir(dir);
    expect(lockDataDir(dir)).toBe(lock);
    const info = JSON.parse(readFileSync(lockFile, "utf8")) as LockInfo;
    expect(info).toMatchObject({ pid: process.pid, host: hostname(), procStart: procStart(process.pid), cwd: process.cwd() });
    lock.release();
    lock.release();
    expect(existsSync(lockFile)).toBe(false);
    // Taken again after release: a new lock.
    const again = lockDataDir(dir);
    expect(again).not.toBe(lock);
    again.release();
  });

  it("refuses a folder a live process holds, naming the folder, the PID and DATA_DIR / DATABASE_URL, and leaves its lock alone", () => {
    const other = sleeper();
    const text = writeLock({ pid: other.pid!, procStart: procStart(other.pid!) });
    const err = refusal();
    expect(err.message).toContain(`DATA_DIR ${dir} is in use by process ${other.pid} on host ${hostname()}`);
    expect(err.message).toMatch(/DATA_DIR=\/other\/folder/);
    expect(err.message).toMatch(/DATABASE_URL=postgresql:/);
    expect(err.message.length).toBeLessThanOrEqual(300 - 10 + dir.length);
    expect(err.detail).toContain("node other.js");
    expect(err.detail).toContain(lockFile);
    expect(err.holder?.pid).toBe(other.pid);
    expect(readFileSync(lockFile, "utf8")).toBe(text);
  });

  it("takes over a lock whose process is gone (killed, crashed)", () => {
    writeLock({ pid: deadPid() });
    const lock = lockDataDir(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock whose PID is alive but another process (a PID reused after a restart)", () => {
    const other = sleeper();
    writeLock({ pid: other.pid!, procStart: "1" });
    const lock = lockDataDir(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  it("takes over this PID's lock left by an earlier process (PID 1 in a new container)", () => {
    writeLock({ pid: process.pid, procStart: "1" });
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lockFile, "utf8")).procStart).toBe(procStart(process.pid));
    lock.release();
  });

  it("from another host: refused while its holder renews it, taken over once it stopped", () => {
    writeLock({ pid: 1, host: "another-host" }, 5_000);
    expect(refusal().message).toContain("process 1 on host another-host");
    writeLock({ pid: 1, host: "another-host" }, 60_000);
    const lock = lockDataDir(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  it("takes over an unreadable lock file that is not being written", () => {
    writeFileSync(lockFile, "{not json");
    const t = new Date(Date.now() - 10_000);
    utimesSync(lockFile, t, t);
    const lock = lockDataDir(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  it("release leaves a lock another process took over after ours went stale", () => {
    const lock = lockDataDir(dir);
    const theirs = writeLock({ pid: 4242 });
    lock.release();
    expect(readFileSync(lockFile, "utf8")).toBe(theirs);
  });

  it("a process that exits removes its lock; one SIGKILLed leaves it, and the next takes it over", async () => {
    const holder = (hold: boolean) =>
      spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "-e",
          `import("./lib/db/data-dir-lock.ts").then(({ lockDataDir }) => { lockDataDir(${JSON.stringify(dir)}); console.log("locked"); ${hold ? "setInterval(() => {}, 1000)" : "process.exit(0)"}; })`,
        ],
        { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
      );
    const locked = (c: ChildProcess) => new Promise<void>((resolve, reject) => {
      c.stdout!.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
      c.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`holder exited ${code}`))));
    });
    const exiting = holder(false);
    children.push(exiting);
    await locked(exiting);
    await new Promise((r) => exiting.exitCode === null ? exiting.once("exit", r) : r(null));
    expect(existsSync(lockFile)).toBe(false);

    const killed = holder(true);
    children.push(killed);
    await locked(killed);
    expect(refusal().holder?.pid).toBe(killed.pid);
    killed.kill("SIGKILL");
    await new Promise((r) => killed.once("exit", r));
    expect(holderPid()).toBe(killed.pid);
    const lock = lockDataDir(dir);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  }, 60_000);

  it("four processes starting together over a stale lock: exactly one wins, the others are refused naming it", async () => {
    writeLock({ pid: deadPid() });
    const script = `import("./lib/db/data-dir-lock.ts").then(({ lockDataDir }) => {
      try { lockDataDir(${JSON.stringify(dir)}); console.log("won " + process.pid); setTimeout(() => process.exit(0), 3000); }
      catch (e) { console.log("refused " + (e.holder ? e.holder.pid : "?")); process.exit(0); }
    })`;
    // Each child waits for a common start time, so the attempts overlap.
    const at = Date.now() + 4000;
    const runs = Array.from({ length: 4 }, () => {
      const c = spawn(process.execPath, ["--import", "tsx", "-e", `const w = ${at} - Date.now(); setTimeout(() => { ${script} }, w > 0 ? w : 0);`], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(c);
      let out = "";
      c.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      return new Promise<string>((resolve) => c.on("exit", () => resolve(out.trim())));
    });
    const results = await Promise.all(runs);
    const winners = results.filter((r) => r.startsWith("won "));
    expect(winners, results.join("\n")).toHaveLength(1);
    const winner = winners[0]!.slice(4);
    for (const r of results.filter((x) => !x.startsWith("won "))) expect(r).toBe(`refused ${winner}`);
  }, 60_000);
});
