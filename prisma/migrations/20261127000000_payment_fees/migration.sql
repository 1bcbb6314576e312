-- The network fee the service paid for each payment's settlement transaction (wei on EVM,
-- lamports on Solana), when it sent one: the ledger report and /metrics add them up per
-- network, and a payer whose failed transactions cost the service more than its fee
-- budget since its last settled payment is refused (lib/payments/fees.ts).
ALTER TABLE "payments" ADD COLUMN "fee_native" BIGINT;

-- A payer's failed settlements that cost a fee: read on every paid call (in parallel with
-- its verification), so kept to the few rows that matter.
CREATE INDEX "payments_payer_fees_idx" ON "payments" ("network", "payer", "created_at")
  WHERE "fee_native" > 0 AND "status" IN ('failed', 'optimistic_failed');
