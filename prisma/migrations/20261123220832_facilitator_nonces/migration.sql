-- CreateTable
CREATE TABLE "evm_sender_nonces" (
    "address" TEXT NOT NULL,
    "next_nonce" BIGINT NOT NULL,
    "ahead_since" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evm_sender_nonces_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "evm_nonce_holes" (
    "address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evm_nonce_holes_pkey" PRIMARY KEY ("address","nonce")
);
