/**
 * Direct SQL on the database a test service was pointed at, to check what the service
 * wrote (audit rows, hashes) without going through the service. PostgreSQL: a
 * connection to the test's own schema, any time. Embedded PGlite: its data folder
 * opened in the test process, only after the service stopped (PGlite is single-process).
 */
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { parsePostgresUrl } from "@/lib/db/client";

export interface ServiceDb {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Names of the service's tables. */
  tables(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openServiceDb(env: { DATABASE_URL?: string; DATA_DIR?: string }): Promise<ServiceDb> {
  if (env.DATABASE_URL) {
    const { connectionString, schema } = parsePostgresUrl(env.DATABASE_URL);
    const client = new pg.Client({ connectionString, options: `-c search_path="${schema}"` });
    await client.connect();
    const query = async <T,>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[];
    return {
      query,
      tables: async () => (await query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'", [schema])).map((r) => r.t),
      close: () => client.end(),
    };
  }
  if (!env.DATA_DIR || env.DATA_DIR === "memory") throw new Error("an in-memory PGlite cannot be read from outside the service: give it a DATA_DIR");
  const db = new PGlite(resolve(env.DATA_DIR, "pglite"));
  await db.waitReady;
  const query = async <T,>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
  return {
    query,
    tables: async () => (await query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")).map((r) => r.t),
    close: () => db.close(),
  };
}
