/**
 * The in-process facilitator's own transaction signer against viem's: transactions it
 * signs with libsecp256k1 are byte-for-byte viem's. (Signatures of payments are not
 * recovered here: the token contract checks them in the verification's simulation.)
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes, keccak256, serializeTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signDigest } from "@/lib/payments/x402/evm-local";

const hex32 = () => bytesToHex(randomBytes(32));

describe("signDigest (libsecp256k1) signs transactions exactly as viem does", () => {
  it.each(Array.from({ length: 10 }, (_, i) => i))("EIP-1559 transaction #%d", async (i) => {
    const key = hex32();
    const tx = {
      type: "eip1559",
      chainId: 8453,
      to: privateKeyToAccount(hex32()).address,
      data: bytesToHex(randomBytes(100 + i)),
      gas: 90_000n + BigInt(i),
      nonce: i,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    } as const;
    const ours = serializeTransaction(tx, signDigest(keccak256(serializeTransaction(tx)), hexToBytes(key as Hex)));
    expect(ours).toBe(await privateKeyToAccount(key).signTransaction(tx));
  });
});
