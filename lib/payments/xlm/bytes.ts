/**
 * Byte helpers over stellar-sdk 17's XDR values: hashes, memos and signature hints are
 * Uint8Arrays (15 gave Buffers with `.equals` and hex `toString`). No I/O, so the
 * upstream simulator's Horizon can share them with the verifier.
 */
import type { Keypair, Transaction } from "@stellar/stellar-sdk";

/** Lower-case hex of bytes. */
export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** Whether a decorated signature is `key`'s signature of `hash` (hint, then Ed25519 check). */
export function signedBy(sig: Transaction["signatures"][number], key: Keypair, hash: Uint8Array): boolean {
  return Buffer.from(key.signatureHint()).equals(sig.hint.value) && key.verify(hash, sig.signature);
}
