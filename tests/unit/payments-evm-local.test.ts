/**
 * The in-process facilitator's own crypto against viem's (what the official x402 verifier
 * and viem's transaction signer use): libsecp256k1 recovery gives the same signer for
 * random keys and digests and declines what it should not judge; transactions it signs are
 * byte-for-byte viem's.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes, keccak256, recoverAddress, serializeTransaction, type Hex } from "viem";
import { privateKeyToAccount, sign } from "viem/accounts";
import { recoverSigner, signDigest } from "@/lib/payments/x402/evm-local";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const hex32 = () => bytesToHex(randomBytes(32));

describe("recoverSigner (libsecp256k1) agrees with viem's recoverAddress", () => {
  it.each(Array.from({ length: 25 }, (_, i) => i))("random key and digest #%d", async () => {
    const key = hex32();
    const digest = hex32();
    const signature = await sign({ hash: digest, privateKey: key, to: "hex" });
    const expected = await recoverAddress({ hash: digest, signature });
    expect(expected).toBe(privateKeyToAccount(key).address);
    expect(recoverSigner(digest, signature)).toBe(expected);
  });

  it("accepts v as 27/28 and as 0/1", async () => {
    const key = hex32();
    const digest = hex32();
    const sig = hexToBytes(await sign({ hash: digest, privateKey: key, to: "hex" }));
    const address = privateKeyToAccount(key).address;
    const asParity = Uint8Array.from(sig);
    asParity[64] = sig[64]! - 27;
    expect(recoverSigner(digest, bytesToHex(sig))).toBe(address);
    expect(recoverSigner(digest, bytesToHex(asParity))).toBe(address);
  });

  it("another digest recovers someone else", async () => {
    const key = hex32();
    const signature = await sign({ hash: hex32(), privateKey: key, to: "hex" });
    expect(recoverSigner(hex32(), signature)).not.toBe(privateKeyToAccount(key).address);
  });

  it("declines a high-s (malleated) signature, a bad v, a short or out-of-range signature", async () => {
    const digest = hex32();
    const sig = hexToBytes(await sign({ hash: digest, privateKey: hex32(), to: "hex" }));
    const highS = Uint8Array.from(sig);
    const s = N - BigInt(bytesToHex(sig.subarray(32, 64)));
    highS.set(hexToBytes(`0x${s.toString(16).padStart(64, "0")}`), 32);
    highS[64] = sig[64] === 27 ? 28 : 27;
    expect(recoverSigner(digest, bytesToHex(highS))).toBeNull();
    const badV = Uint8Array.from(sig);
    badV[64] = 29;
    expect(recoverSigner(digest, bytesToHex(badV))).toBeNull();
    expect(recoverSigner(digest, bytesToHex(sig.subarray(0, 64)))).toBeNull();
    const zeroR = Uint8Array.from(sig);
    zeroR.fill(0, 0, 32);
    expect(recoverSigner(digest, bytesToHex(zeroR))).toBeNull();
  });
});

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
