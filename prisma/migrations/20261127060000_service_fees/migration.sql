-- Network fees the service's own keys paid outside any payment's fee (lib/payments/fees.ts):
-- nonce-gap fillers and the mined transactions of settlements that failed for a reason on
-- our side (the payment released, not failed). The ledger report adds them to the failed
-- settlements' fees per network; a payer's fee budget never counts them.
-- CreateTable
CREATE TABLE "service_fees" (
    "id" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "transaction" TEXT,
    "fee_native" BIGINT NOT NULL,
    "payment_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_fees_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "service_fees_transaction_key" ON "service_fees"("transaction");

-- CreateIndex
CREATE INDEX "service_fees_network_idx" ON "service_fees"("network");
