-- EVM payers are compared in lower case: rows settled before this migration hold the
-- checksummed address the settlement answered with. Lowered once here so the payer
-- queries (optimistic cap and failures) can use a plain index instead of lower(payer).
UPDATE "payments" SET "payer" = lower("payer") WHERE "network" LIKE 'eip155:%' AND "payer" <> lower("payer");

-- CreateIndex
CREATE INDEX "payments_network_payer_status_idx" ON "payments"("network", "payer", "status");

-- CreateIndex
CREATE INDEX "payments_status_updated_at_idx" ON "payments"("status", "updated_at");
