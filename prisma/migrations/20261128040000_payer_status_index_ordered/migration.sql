-- A payer's latest optimistic failure (ORDER BY updated_at DESC LIMIT 1) and whether one of
-- its payments settled in confirmed mode since (updated_at > the failure's) read the
-- payer's index in order. On (network, payer, status) alone, a payer with a long history
-- is a most common value to the planner, which then walked the (status, updated_at) index
-- backwards through every payer's failures, filtering on the payer, rather than sort the
-- payer's few: 5 000 rows read for one lock in the test of a 20 000-row table
-- (tests/unit/optimistic-ledger.test.ts). One column more than the index it replaces,
-- whose other readers (network, payer, status) read this one as they did that one.
--
-- Built here in the migration's transaction, holding a write lock on "payments" while it
-- is built; on a large table build it first with CREATE INDEX CONCURRENTLY IF NOT EXISTS
-- (the same statement) and this one skips it (docs/deployment.md, "Prisma migrations"):
-- the old index's drop is then only a brief lock. A CONCURRENTLY build that failed leaves
-- an invalid index under the name, which IF NOT EXISTS would take for the index: the
-- migration stops instead, before it drops the one the lock reads now.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
              WHERE c.relname = 'payments_network_payer_status_updated_at_idx' AND c.relnamespace = current_schema()::regnamespace
                AND NOT i.indisvalid) THEN
    RAISE EXCEPTION 'index payments_network_payer_status_updated_at_idx exists but is invalid (a CREATE INDEX CONCURRENTLY that failed): DROP INDEX CONCURRENTLY it and build it again';
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS "payments_network_payer_status_updated_at_idx" ON "payments" ("network", "payer", "status", "updated_at");
DROP INDEX IF EXISTS "payments_network_payer_status_idx";
