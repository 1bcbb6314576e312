/**
 * One process per embedded database folder. PGlite does not notice a second process
 * opening the folder it has open: the second one either aborts inside the WebAssembly
 * build ("Aborted(). Build with -sASSERTIONS…", then 503s) or, worse, runs and writes
 * the same files. So whoever opens DATA_DIR's PGlite first takes a lock file beside it,
 * `<DATA_DIR>/pglite.lock`, naming its process; a second one is refused with a message
 * that names that folder and process and how to choose another (DATA_DIR, DATABASE_URL).
 *
 * A lock outlives a process that was killed (SIGKILL, a crash, power loss). It is stale,
 * and taken over, when:
 * - it was written on this host and its PID is not alive, or is alive but is another
 *   process (Linux: its start time differs from the recorded one, so a PID reused after a
 *   restart, for instance PID 1 in a new container, is not mistaken for the holder);
 * - it was written on another host (a volume shared between containers or machines,
 *   whose PIDs cannot be checked from here) and its holder stopped renewing it: a holder
 *   touches the file every HEARTBEAT_MS; FOREIGN_STALE_MS without that and it is stale.
 * The lock is created atomically (link(2) of a complete file: no reader sees it half
 * written), and a stale one is removed only under a short-lived takeover folder and only
 * if it is still the very lock found stale, so two processes starting together over a
 * stale lock cannot both win.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { linkSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

export const LOCK_FILE = "pglite.lock";
const HEARTBEAT_MS = 10_000;
const FOREIGN_STALE_MS = 45_000;
/** A takeover folder older than this belongs to a process that died mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;

/** What the lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  /** When the holder took the lock (ISO 8601). */
  since: string;
  /** Linux: the holder's start time in clock ticks after boot (/proc/<pid>/stat field 22). */
  procStart?: string;
  /** The holder's command line and working directory, for the operator reading the refusal. */
  command: string;
  cwd: string;
}

/**
 * The folder's lock is held by a live process: this one must not open the database.
 * `message` is short enough for /health's one-line error (what, who, what to do);
 * `detail` adds what an operator needs to find the holder, for the log.
 */
export class DataDirInUseError extends Error {
  readonly code = "data_dir_in_use";
  readonly detail: string;
  constructor(
    /** The resolved DATA_DIR. */
    readonly dataDir: string,
    readonly lockFile: string,
    readonly holder: LockInfo | undefined,
  ) {
    const who = holder ? `process ${holder.pid} on host ${holder.host}` : "another process (its lock is being written)";
    super(
      `DATA_DIR ${dataDir} is in use by ${who}: an embedded database serves one process. ` +
        "Stop that one, or start this one with another folder (DATA_DIR=/other/folder) or with PostgreSQL (DATABASE_URL=postgresql://...), which several servers can share.",
    );
    this.name = "DataDirInUseError";
    this.detail =
      (holder ? `The holder runs \`${holder.command}\` in ${holder.cwd}, since ${holder.since}. ` : "") +
      `Its lock is ${lockFile}; a lock whose process is gone is taken over by the next start, so delete it by hand only if that process is certainly stopped.`;
  }
}

export interface DataDirLock {
  file: string;
  info: LockInfo;
  release(): void;
}

function procStartOf(pid: number): string | undefined {
  try {
    // Field 2 (comm) is in parentheses and may hold spaces: count fields after its ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function selfInfo(): LockInfo {
  return {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    procStart: procStartOf(process.pid),
    command: process.argv.map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ").slice(0, 300),
    cwd: process.cwd(),
  };
}

function parse(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid !== "number" || !Number.isInteger(v.pid) || v.pid <= 0 || typeof v.host !== "string") return undefined;
    return { pid: v.pid, host: v.host, since: String(v.since ?? "?"), procStart: v.procStart, command: String(v.command ?? "?"), cwd: String(v.cwd ?? "?") };
  } catch {
    return undefined;
  }
}

type Verdict = "ours" | "held" | "stale";

/** Whether the lock `info` (file last touched at `mtimeMs`) still belongs to a live process. */
export function judge(info: LockInfo | undefined, mtimeMs: number, now = Date.now()): Verdict {
  // Unreadable content: a broken file (nothing writes partial locks: link(2) publishes
  // complete ones), unless it was just written through the fallback path.
  if (!info) return now - mtimeMs < 2_000 ? "held" : "stale";
  if (info.host !== hostname()) return now - mtimeMs < FOREIGN_STALE_MS ? "held" : "stale";
  if (info.pid === process.pid) return info.procStart === procStartOf(process.pid) ? "ours" : "stale";
  if (!pidAlive(info.pid)) return "stale";
  const start = procStartOf(info.pid);
  // Alive: the same process unless its recorded start time proves otherwise.
  return info.procStart && start && start !== info.procStart ? "stale" : "held";
}

/** Publishes `text` as `file` only if no lock exists: true when it is now ours. */
function create(file: string, text: string): boolean {
  // Unique even between containers sharing the folder, where PIDs repeat.
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(tmp, text);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A file system without hard links: exclusive create (readers allow for it above).
    if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS" || code === "EOPNOTSUPP") {
      try {
        writeFileSync(file, text, { flag: "wx" });
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw e;
      }
    }
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function read(file: string): { text: string; mtimeMs: number } | undefined {
  try {
    return { mtimeMs: statSync(file).mtimeMs, text: readFileSync(file, "utf8") };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Removes `file` if it still holds exactly `staleText`, under the takeover folder. */
function removeStale(file: string, staleText: string): void {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // Another process is taking over right now; a guard left by one that died is removed.
    try {
      if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_STALE_MS) rmdirSync(guard);
    } catch {
      /* gone meanwhile */
    }
    return;
  }
  try {
    // Judged again under the guard: a foreign holder may have renewed it meanwhile.
    const now = read(file);
    if (now?.text === staleText && judge(parse(now.text), now.mtimeMs) === "stale") unlinkSync(file);
  } finally {
    rmdirSync(guard);
  }
}

/** This process's locks by file: one per folder, shared by every module graph in the process. */
const locks = () => processState("pglite-locks", () => new Map<string, DataDirLock>());

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes `<dataDir>/pglite.lock` for this process (a second call for the same folder
 * returns the first lock) or throws DataDirInUseError. `dataDir` must exist.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const file = join(dir, LOCK_FILE);
  const held = locks().get(file);
  if (held) return held;
  const info = selfInfo();
  const text = JSON.stringify(info, null, 2) + "\n";
  for (let attempt = 0; attempt < 50; attempt++) {
    if (create(file, text)) return track(file, info, text);
    const found = read(file);
    if (!found) continue;
    const holder = parse(found.text);
    const verdict = judge(holder, found.mtimeMs);
    if (verdict === "ours") return track(file, holder!, found.text);
    if (verdict === "held") {
      // Unreadable but fresh: give its writer a moment before calling it held.
      if (!holder && attempt < 20) {
        sleepSync(100);
        continue;
      }
      throw new DataDirInUseError(dir, file, holder);
    }
    removeStale(file, found.text);
    sleepSync(attempt < 5 ? 0 : 50);
  }
  throw new DataDirInUseError(dir, file, parse(read(file)?.text ?? ""));
}

/** Keeps the lock renewed while the process lives, and removes it on release or exit. */
function track(file: string, info: LockInfo, text: string): DataDirLock {
  const beat = setInterval(() => {
    const t = new Date();
    try {
      utimesSync(file, t, t);
    } catch {
      /* removed by hand: the next start will say what it finds */
    }
  }, HEARTBEAT_MS);
  beat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(beat);
    process.off("exit", release);
    // Only our own lock: never one another process took over after ours went stale.
    if (read(file)?.text === text) rmSync(file, { force: true });
    locks().delete(file);
  };
  process.on("exit", release);
  const lock = { file, info, release };
  locks().set(file, lock);
  return lock;
}

/**
 * At server start, before it listens: takes the embedded database's lock when that is the
 * configured database (no DATABASE_URL, DATA_DIR not `memory`), so a second server on the
 * same folder stops here with the reason instead of serving 503s. Exits the process (1)
 * when the folder is in use; any other problem (a folder that cannot be created or
 * written) is left to the database's opening, which reports it through /health.
 */
export function claimDataDirAtStart(cfg: { DATABASE_URL?: string; DATA_DIR: string }): void {
  if (cfg.DATABASE_URL || cfg.DATA_DIR === "memory") return;
  try {
    mkdirSync(resolve(cfg.DATA_DIR), { recursive: true });
    lockDataDir(cfg.DATA_DIR);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) return;
    log.error("server.data_dir_in_use", {
      message: `${err.message} ${err.detail}`,
      data_dir: err.dataDir,
      lock_file: err.lockFile,
      holder_pid: err.holder?.pid ?? null,
      holder_host: err.holder?.host ?? null,
    });
    process.exit(1);
  }
}
