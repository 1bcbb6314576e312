-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "bundles" (
    "id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "token_prefix" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "credits_total" INTEGER NOT NULL,
    "credits_remaining" INTEGER NOT NULL,
    "payment_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bundles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "email" TEXT,
    "daily_quota" INTEGER NOT NULL DEFAULT 50,
    "usage_day" DATE,
    "usage_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "scheme" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "payer" TEXT,
    "amount_atomic" BIGINT NOT NULL,
    "asset" TEXT NOT NULL,
    "pay_to" TEXT NOT NULL,
    "product" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "tx_hash" TEXT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_log" (
    "id" TEXT NOT NULL,
    "product" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "credential_kind" TEXT NOT NULL,
    "amount_usd" TEXT,
    "credits" INTEGER,
    "payer" TEXT,
    "tx_hash" TEXT,
    "bundle_id" TEXT,
    "api_key_id" TEXT,
    "payment_id" TEXT,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "service_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "bundles_token_hash_key" ON "bundles"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE UNIQUE INDEX "payments_network_reference_key" ON "payments"("network", "reference");

-- CreateIndex
CREATE INDEX "access_log_bundle_id_created_at_idx" ON "access_log"("bundle_id", "created_at");

-- CreateIndex
CREATE INDEX "access_log_api_key_id_created_at_idx" ON "access_log"("api_key_id", "created_at");
