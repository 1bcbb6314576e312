/**
 * The database: embedded PGlite under DATA_DIR by default, PostgreSQL through
 * @prisma/adapter-pg when DATABASE_URL is set. Both run the same Prisma schema and the
 * same migrations, applied before the first query.
 *
 * The client is process-wide state (lib/process-state.ts): the custom server (lib/server) and Next's route
 * bundles are separate module graphs in one process, and PGlite must be opened once.
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { env } from "@/lib/config/env";
import { lockDataDir, type DataDirLock } from "@/lib/db/data-dir-lock";
import { CHECKPOINT_POLL_MS, CheckpointSchedule } from "@/lib/db/checkpoints";
import { installInPlaceGrowth } from "@/lib/db/memfs-growth";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { preparedQuery } from "@/lib/db/pglite-prepared";
import { log } from "@/lib/log";
import { peekProcessState, processState, resetProcessState } from "@/lib/process-state";

export type Db = PrismaClient;

export interface QueryOptions {
  /**
   * A name for the statement: PostgreSQL then parses and plans it once per connection
   * rather than on every call (for the long statements on every paid call's path: lock,
   * nonce, settlement record). Unique per SQL text. PGlite prepares every statement of
   * `query` once (lib/db/pglite-prepared.ts) and uses the name when one is given.
   */
  name?: string;
}

export interface DbHandle {
  prisma: PrismaClient;
  /**
   * The driver itself (PGlite or pg), for the few hot statements where Prisma's per-query
   * overhead matters (the ledger's group commits). Parameters are positional ($1...).
   */
  query<T>(sql: string, params: unknown[], opts?: QueryOptions): Promise<T[]>;
  mode: "pglite" | "postgres";
  /** Schema holding the tables (PostgreSQL only; PGlite uses public). */
  schema: string;
  /** The connection pool's use now (PostgreSQL only: PGlite is one in-process connection). */
  pool?: () => PoolUse;
  /**
   * VACUUM of the whole database, what PostgreSQL's autovacuum does on its own (PGlite
   * only: it runs it every EMBEDDED_VACUUM_MS itself, see openPglite).
   */
  vacuum?: () => Promise<void>;
  /** PGlite only: the checkpoints it runs itself (lib/db/checkpoints.ts). */
  checkpoints?: CheckpointSchedule;
  /** In-memory PGlite only: its growing files are extended in place, not copied (lib/db/memfs-growth.ts). */
  growsInPlace?: boolean;
  close(): Promise<void>;
}

/** Connections of a pg Pool: open, idle, clients waiting for one, and its size limit. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** The shared database handle, opened and migrated on first use. */
export function getDbHandle(): Promise<DbHandle> {
  // lib/server/main.ts closes this handle on shutdown under the same name ("db").
  return processState("db", () =>
    open().catch((err: unknown) => {
      resetProcessState("db");
      throw err;
    }),
  );
}

/** The Prisma client (migrated). */
export async function db(): Promise<PrismaClient> {
  return (await getDbHandle()).prisma;
}

/** Closes the shared handle (tests, shutdown). */
export async function closeDb(): Promise<void> {
  const p = peekProcessState<Promise<DbHandle>>("db");
  resetProcessState("db");
  if (p) await (await p).close();
}

async function open(): Promise<DbHandle> {
  const url = env().DATABASE_URL;
  return url ? openPostgres(url) : openPglite(env().DATA_DIR);
}

/** Splits Prisma's `?schema=` convention off a PostgreSQL URL. */
export function parsePostgresUrl(raw: string): { connectionString: string; schema: string } {
  const u = new URL(raw);
  const schema = u.searchParams.get("schema") ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error("DATABASE_URL schema name is invalid");
  u.searchParams.delete("schema");
  return { connectionString: u.toString(), schema };
}

async function openPostgres(url: string): Promise<DbHandle> {
  const [{ Pool }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
  const { connectionString, schema } = parsePostgresUrl(url);
  const poolConfig = {
    connectionString,
    // Per instance: N instances (or serverless invocations) open up to N × this.
    max: env().DATABASE_POOL_MAX,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
    options: `-c search_path="${schema}"`,
  };
  // Migrations run on their own connection so the advisory lock is held by one session.
  const client = new (await import("pg")).Client(poolConfig);
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const runner: SqlRunner = {
      exec: async (sql) => {
        await client.query(sql);
      },
      query: async <T,>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[])).rows as T[],
    };
    const applied = await applyMigrations(runner, { advisoryLock: true });
    if (applied.length) log.info("db.migrated", { mode: "postgres", schema, applied });
  } finally {
    await client.end();
  }
  const pool = new Pool(poolConfig);
  pool.on("error", (err) => log.warn("db.pool_error", { message: err.message }));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { schema }) });
  return {
    prisma,
    query: async <T,>(sql: string, params: unknown[], opts?: QueryOptions) =>
      (opts?.name ? await pool.query({ name: opts.name, text: sql, values: params as unknown[] }) : await pool.query(sql, params as unknown[])).rows as T[],
    mode: "postgres",
    schema,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolConfig.max }),
    close: async () => {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}

/**
 * PostgreSQL settings of the in-memory database (DATA_DIR=memory). Each new WAL segment
 * (16 MB) is written as zeros by default, 8 KB at a time: in memory every write past the
 * file's end copies the whole file into a larger buffer, so creating a segment stopped the
 * process for about 200 ms every 16 MB of writes (key calls at 50 connections: slowest
 * statement 199 ms; with this setting 27 ms). Without the zeros the segment is sized by
 * one write at its end: memory is zeroed anyway, and a full disk (what the zeros guard
 * against) is not a case here. A folder on disk keeps PostgreSQL's default.
 */
const MEMORY_CONF = ["wal_init_zero = off"];

/**
 * How often the embedded database is vacuumed. PGlite is PostgreSQL in one process: no
 * autovacuum runs, so without this the space of deleted and updated rows (expired A2A
 * tasks, released payment locks, pending settlements, nonce leases, key counters) was
 * never used again, and its files grew with every row ever written: in memory for
 * DATA_DIR=memory, on disk otherwise. A VACUUM here takes 10-55 ms on this machine
 * (nothing to do, and after 50 000 task rows written since the last one).
 */
export const EMBEDDED_VACUUM_MS = 60_000;

async function openPglite(dataDir: string): Promise<DbHandle> {
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
  let location = "memory://";
  let lock: DataDirLock | undefined;
  if (dataDir !== "memory") {
    location = resolve(dataDir, "pglite");
    try {
      mkdirSync(location, { recursive: true });
      accessSync(location, constants.W_OK);
    } catch (err) {
      // No silent fallback to memory: bundles and keys sold would vanish on restart.
      // The reason reaches the log and /health; the first call after a fix opens it.
      throw new Error(
        `DATA_DIR ${location} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): ` +
          "point DATA_DIR at a writable folder, set DATABASE_URL (PostgreSQL), or DATA_DIR=memory for a throwaway database",
      );
    }
    // One process per folder (lib/db/data-dir-lock.ts): refused with the holder named, and
    // kept after a failed opening (this process still means to use the folder; the next
    // call retries), released when the database is closed or the process exits.
    lock = lockDataDir(dataDir);
  }
  const pg = new PGlite(location, location === "memory://" ? { postgresqlconf: MEMORY_CONF } : {});
  await pg.waitReady;
  // In memory, files grow in place instead of being copied whole (lib/db/memfs-growth.ts).
  const growsInPlace = location === "memory://" ? installInPlaceGrowth(pg.Module.FS) : undefined;
  const runner: SqlRunner = {
    exec: async (sql) => {
      await pg.exec(sql);
    },
    query: async <T,>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params)).rows,
  };
  const applied = await applyMigrations(runner, { advisoryLock: false });
  if (applied.length) log.info("db.migrated", { mode: "pglite", location, applied });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pg) });
  const prepared = preparedQuery(pg);
  // pg.query waits for the handle's locks: never inside another caller's transaction.
  const vacuum = async () => {
    await pg.query("VACUUM");
  };
  const vacuuming = setInterval(() => {
    vacuum().catch((err: unknown) => log.warn("db.vacuum_failed", { mode: "pglite", message: (err as Error)?.message }));
  }, EMBEDDED_VACUUM_MS);
  vacuuming.unref();
  // Checkpoints, which single-user PostgreSQL never runs on its own (lib/db/checkpoints.ts).
  const checkpoints = new CheckpointSchedule(pg);
  const checkpointing = setInterval(() => {
    checkpoints.tick().catch((err: unknown) => log.warn("db.checkpoint_failed", { mode: "pglite", message: (err as Error)?.message }));
  }, CHECKPOINT_POLL_MS);
  checkpointing.unref();
  return {
    prisma,
    query: <T,>(sql: string, params: unknown[], opts?: QueryOptions) => prepared<T>(sql, params, opts?.name),
    mode: "pglite",
    schema: "public",
    vacuum,
    growsInPlace,
    checkpoints,
    close: async () => {
      clearInterval(vacuuming);
      clearInterval(checkpointing);
      await checkpoints.stop();
      await prisma.$disconnect();
      await pg.close();
      lock?.release();
    },
  };
}
