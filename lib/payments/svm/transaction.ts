/**
 * Offline reading of an x402 `exact` Solana payment transaction: decode it, derive its
 * replay reference, and (for clear refusal messages only) read the transferChecked
 * amount and destination. Whether the transaction is acceptable is decided by the
 * facilitator's verify, never here.
 */
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Transaction } from "@solana/kit";
import { getTokenPayerFromTransaction, transactionMessageHash } from "@x402/svm";

const TOKEN_PROGRAMS = new Set(["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"]);
const TRANSFER_CHECKED = 12;

export interface SvmPaymentTx {
  tx: Transaction;
  /**
   * The replay reference: base64 SHA-256 of the message bytes. The message (blockhash,
   * fee payer, instructions, the client's random memo nonce) is fixed when the payer signs
   * and does not change when the facilitator adds the fee payer's signature; the final
   * transaction signature does not exist until then. Signatures are not part of the
   * message, so re-encoding or altering them cannot make the same payment look new.
   * It is also the key of @x402/svm's own duplicate-settlement cache.
   */
  reference: string;
  /** Owner of the source token account (the authority of transferChecked), "" when none. */
  payer: string;
  /** The first transferChecked instruction, read without judging it. */
  transfer: { amount: bigint; destination: string; mint: string } | null;
}

/** Decodes the base64 wire transaction; null when it is not one. */
export function readSvmPayment(base64: string): SvmPaymentTx | null {
  let tx: Transaction;
  try {
    tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64)) as Transaction;
  } catch {
    return null;
  }
  let payer = "";
  let transfer: SvmPaymentTx["transfer"] = null;
  try {
    payer = getTokenPayerFromTransaction(tx);
    const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const keys = msg.staticAccounts.map(String);
    for (const ix of msg.instructions) {
      const data = ix.data;
      const accounts = ix.accountIndices ?? [];
      if (!TOKEN_PROGRAMS.has(keys[ix.programAddressIndex] ?? "") || !data || data.length < 10 || data[0] !== TRANSFER_CHECKED || accounts.length < 3) continue;
      const amount = Buffer.from(data.subarray(1, 9)).readBigUInt64LE(0);
      transfer = { amount, mint: keys[accounts[1]!] ?? "", destination: keys[accounts[2]!] ?? "" };
      break;
    }
  } catch {
    return null;
  }
  return { tx, reference: transactionMessageHash(tx), payer, transfer };
}

