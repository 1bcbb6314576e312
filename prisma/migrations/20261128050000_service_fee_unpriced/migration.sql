-- A transaction of the service's own (a nonce-gap filler) is noted before it goes out,
-- its fee unknown (NULL) until its receipt is read: a process that dies in between left
-- no trace of it before, so its fee was never counted. The recovery pass prices such rows
-- from the chain (lib/payments/recovery.ts, through the index below).
ALTER TABLE "service_fees" ALTER COLUMN "fee_native" DROP NOT NULL;
CREATE INDEX IF NOT EXISTS "service_fees_unpriced_idx" ON "service_fees" ("created_at") WHERE "fee_native" IS NULL;
