/**
 * Applies prisma/migrations/<name>/migration.sql in order, offline, on PGlite or
 * PostgreSQL. Progress is kept in Prisma's own `_prisma_migrations` table (same
 * columns and checksums), so `prisma migrate deploy` and this code agree on what
 * has been applied. On PostgreSQL an advisory lock serialises concurrent starts.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

/** The minimal SQL surface both drivers provide. */
export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Prisma's lock id for migrations, so our runner and `prisma migrate` never overlap. */
const ADVISORY_LOCK = 72707369;

export function migrationsDir(): string {
  const candidates = [join(process.cwd(), "prisma/migrations")];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`prisma/migrations not found under ${process.cwd()}`);
  return found;
}

export function loadMigrations(dir = migrationsDir()): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** Applies pending migrations; returns the names applied now. */
export async function applyMigrations(db: SqlRunner, opts: { advisoryLock: boolean }): Promise<string[]> {
  const migrations = loadMigrations();
  if (opts.advisoryLock) await db.query(`SELECT pg_advisory_lock(${ADVISORY_LOCK})`);
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const rows = await db.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      const prior = applied.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new Error(`migration ${m.name} was modified after it was applied (checksum mismatch)`);
        }
        continue;
      }
      const id = randomUUID();
      await db.exec("BEGIN");
      try {
        await db.exec(m.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES ($1, $2, now(), $3, 1, now())`,
          [id, m.checksum, m.name],
        );
        await db.exec("COMMIT");
      } catch (err) {
        await db.exec("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      done.push(m.name);
    }
    return done;
  } finally {
    if (opts.advisoryLock) await db.query(`SELECT pg_advisory_unlock(${ADVISORY_LOCK})`);
  }
}
