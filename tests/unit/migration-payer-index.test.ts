/**
 * Migration 20261128040000_payer_status_index_ordered on PostgreSQL, as an operator with a
 * large payments table runs it (docs/deployment.md, "Prisma migrations"): the new index
 * built first with CREATE INDEX CONCURRENTLY, then the service started, which applies the
 * migration: it keeps that index and drops the old one. A CONCURRENTLY build that failed
 * leaves an invalid index under the name: the migration then stops, saying so, and drops
 * nothing, rather than leave the optimistic lock without a usable payer index.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const usePg = await hasPostgres();
const NAME = "20261128040000_payer_status_index_ordered";

describe.skipIf(!usePg)("migration: the payer index rebuilt under a new name", () => {
  const schema = `migr_${randomBytes(5).toString("hex")}`;
  let db: pg.Client;
  const runner = (): SqlRunner => ({
    exec: async (sql) => {
      await db.query(sql);
    },
    query: async <T,>(sql: string, params?: unknown[]) => (await db.query(sql, params)).rows as T[],
  });
  const indexes = async () =>
    (await db.query<{ name: string; valid: boolean }>(`SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = $1::regnamespace AND c.relname LIKE 'payments_network_payer%' ORDER BY 1`, [schema])).rows;
  /** The database as the previous version left it: every migration but this one applied. */
  const before = async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
    await applyMigrations(runner(), { advisoryLock: false });
    await db.query(`DROP INDEX payments_network_payer_status_updated_at_idx; CREATE INDEX payments_network_payer_status_idx ON payments (network, payer, status)`);
    await db.query(`DELETE FROM _prisma_migrations WHERE migration_name = $1`, [NAME]);
    await db.query(
      `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, updated_at)
       SELECT 'p' || g, 'exact', 'eip155:8453', 'r' || g, '0xabc', 5000, 'a', 'b', 'fng', 'http', 'settled', now() FROM generate_series(1, 3) g`,
    );
  };

  beforeAll(async () => {
    db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db?.end();
  });

  it("built first CONCURRENTLY: the migration keeps it and drops the old index", async () => {
    await before();
    await db.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS payments_network_payer_status_updated_at_idx ON payments (network, payer, status, updated_at)`);
    expect(await applyMigrations(runner(), { advisoryLock: false })).toEqual([NAME]);
    expect(await indexes()).toEqual([{ name: "payments_network_payer_status_updated_at_idx", valid: true }]);
  });

  it("a CONCURRENTLY build that failed (an invalid index under the name): the migration stops and drops nothing", async () => {
    await before();
    // A build that fails half-way leaves its index invalid: here a unique index over
    // duplicate keys under the same name.
    await expect(db.query(`CREATE UNIQUE INDEX CONCURRENTLY payments_network_payer_status_updated_at_idx ON payments (network, payer, status)`)).rejects.toThrow(/could not create unique index/);
    expect(await indexes()).toEqual([
      { name: "payments_network_payer_status_idx", valid: true },
      { name: "payments_network_payer_status_updated_at_idx", valid: false },
    ]);
    await expect(applyMigrations(runner(), { advisoryLock: false })).rejects.toThrow(/exists but is invalid/);
    expect(await indexes()).toEqual([
      { name: "payments_network_payer_status_idx", valid: true },
      { name: "payments_network_payer_status_updated_at_idx", valid: false },
    ]);
    // Dropped and built again, as the error says: the migration goes through.
    await db.query(`DROP INDEX CONCURRENTLY payments_network_payer_status_updated_at_idx`);
    await db.query(`CREATE INDEX CONCURRENTLY payments_network_payer_status_updated_at_idx ON payments (network, payer, status, updated_at)`);
    expect(await applyMigrations(runner(), { advisoryLock: false })).toEqual([NAME]);
    expect(await indexes()).toEqual([{ name: "payments_network_payer_status_updated_at_idx", valid: true }]);
  });
});
