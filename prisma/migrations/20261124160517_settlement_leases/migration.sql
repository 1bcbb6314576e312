-- The nonce counter no longer guesses gaps from how long it ran ahead of the chain:
-- every nonce handed out is a lease (lib/payments/x402/nonces.ts).
-- AlterTable
ALTER TABLE "evm_sender_nonces" DROP COLUMN "ahead_since";

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "optimistic" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "settlement_payload" TEXT;

-- CreateTable
CREATE TABLE "evm_nonce_leases" (
    "address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "state" TEXT NOT NULL,
    "token" TEXT,
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evm_nonce_leases_pkey" PRIMARY KEY ("address","nonce")
);

-- Holes recorded by the previous allocator were nonces whose transaction never reached
-- the node: unused, free to hand out again.
INSERT INTO "evm_nonce_leases" ("address", "nonce", "state", "since")
SELECT "address", "nonce", 'free', "created_at" FROM "evm_nonce_holes";

-- DropTable
DROP TABLE "evm_nonce_holes";

-- CreateTable
CREATE TABLE "x402_pending_settlements" (
    "key" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "x402_pending_settlements_pkey" PRIMARY KEY ("key")
);
