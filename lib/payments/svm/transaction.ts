/**
 * Offline reading of an x402 `exact` Solana payment transaction: decode it, derive its
 * replay reference, and (for clear refusal messages only) read the transferChecked
 * amount and destination. Whether the transaction is acceptable is decided by the
 * facilitator's verify, never here.
 */
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Transaction } from "@solana/kit";
import { getTokenPayerFromTransaction, transactionMessageHash } from "@x402/svm";

const TOKEN_PROGRAMS = new Set(["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"]);
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const TRANSFER_CHECKED = 12;
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

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
  /** The first transferChecked instruction, read without judging it (`source`: the token account it debits). */
  transfer: { amount: bigint; source: string; destination: string; mint: string } | null;
  /**
   * What the fee payer would pay for it (lib/payments/svm/fees.ts): its required
   * signatures, instructions, and the compute budget it asks for (null: not set; the
   * last instruction of each kind counts, as the runtime reads it).
   */
  budget: { signatures: number; instructions: number; units: number | null; microLamports: bigint | null };
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
  let budget: SvmPaymentTx["budget"];
  try {
    payer = getTokenPayerFromTransaction(tx);
    const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const keys = msg.staticAccounts.map(String);
    budget = { signatures: msg.header.numSignerAccounts, instructions: msg.instructions.length, units: null, microLamports: null };
    for (const ix of msg.instructions) {
      const data = ix.data;
      const program = keys[ix.programAddressIndex] ?? "";
      if (program === COMPUTE_BUDGET_PROGRAM && data) {
        const b = Buffer.from(data);
        if (b[0] === SET_COMPUTE_UNIT_LIMIT && b.length >= 5) budget.units = b.readUInt32LE(1);
        if (b[0] === SET_COMPUTE_UNIT_PRICE && b.length >= 9) budget.microLamports = b.readBigUInt64LE(1);
        continue;
      }
      const accounts = ix.accountIndices ?? [];
      if (transfer || !TOKEN_PROGRAMS.has(program) || !data || data.length < 10 || data[0] !== TRANSFER_CHECKED || accounts.length < 3) continue;
      const amount = Buffer.from(data.subarray(1, 9)).readBigUInt64LE(0);
      transfer = { amount, source: keys[accounts[0]!] ?? "", mint: keys[accounts[1]!] ?? "", destination: keys[accounts[2]!] ?? "" };
    }
  } catch {
    return null;
  }
  return { tx, reference: transactionMessageHash(tx), payer, transfer, budget };
}

