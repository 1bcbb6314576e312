/**
 * The answer a paid call sent, kept with its payment (payments.response) so that the same
 * payment presented again gets it again, on any instance and surface: the product's output
 * and the receipt (id, settlement response, mode), written in the same statement as the
 * settlement's record (lib/payments/ledger.ts, recordSettlement).
 *
 * A product's secret fields (a bundle's token) are never kept in clear. They are sealed
 * (AES-256-GCM) under a key derived from the payment's identifier, the x402
 * `payment-identifier` id the payer chose (or that our 402 suggested and its client
 * echoed): the id is never on chain and the database keeps only its SHA-256, so neither a
 * copy of the database nor someone who rebuilt the signed payment from the chain can open
 * them. A payment without an identifier has its secrets withheld: presented again it is
 * told that the token was sent once, with the original answer (anyone can rebuild such a
 * payment from the chain once it settled, so it cannot be trusted with the token).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import type { PaymentResponse, ReceiptFields, SettlementMode, StoredAnswer } from "@/lib/payments/types";
import { ApiError } from "@/lib/errors";

/** A value in place of a secret field: sealed under the payment identifier, or withheld. */
type Sealed = { $sealed: string } | { $withheld: true };

const INFO = Buffer.from("echo/payment-answer-secret/v1");

function keyFor(paymentId: string, identifier: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(identifier, "utf8"), Buffer.from(paymentId, "utf8"), INFO, 32));
}

/**
 * The prefix of the payment identifiers our requirements suggest (lib/access/x402-extensions.ts).
 * One requirement may be reused to sign several payments, all carrying its suggested id:
 * such an id is each payment's secret but keys nothing exclusive, so the rule "same id,
 * another payload: 409" holds only for ids a client chose.
 */
export const SUGGESTED_ID_PREFIX = "srv_";

/** The SHA-256 (hex) the ledger keeps of a payment identifier (never the id itself). */
export function identifierKey(identifier: string): string {
  return createHash("sha256").update(`payment-identifier\n${identifier}`).digest("hex");
}

/**
 * What a payment is, for telling "the same payment again" from "another payload with the
 * same reference": its canonical form (what the chain settles) and its identifier.
 */
export function paymentIdentity(canonical: string, identifier: string | null): string {
  return createHash("sha256")
    .update(`${canonical}\n${identifier ?? ""}`)
    .digest("hex");
}

function seal(paymentId: string, identifier: string | null, value: unknown): Sealed {
  if (!identifier) return { $withheld: true };
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", keyFor(paymentId, identifier), iv);
  const body = Buffer.concat([c.update(JSON.stringify(value), "utf8"), c.final()]);
  return { $sealed: Buffer.concat([iv, c.getAuthTag(), body]).toString("base64") };
}

function unseal(paymentId: string, identifier: string, s: { $sealed: string }): unknown {
  const raw = Buffer.from(s.$sealed, "base64");
  const d = createDecipheriv("aes-256-gcm", keyFor(paymentId, identifier), raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8"));
}

/** The answer as the ledger keeps it (JSON), `secrets` (top-level fields of the value) sealed. */
export function keepAnswer(paymentId: string, a: StoredAnswer, secrets: readonly string[], identifier: string | null): string {
  if (secrets.length === 0 || typeof a.value !== "object" || a.value === null) return JSON.stringify(a);
  const value = { ...(a.value as Record<string, unknown>) };
  for (const k of secrets) if (k in value) value[k] = seal(paymentId, identifier, value[k]);
  return JSON.stringify({ ...a, value });
}

/** The receipt id of an answer kept as JSON (null: none kept). */
export function keptReceiptId(kept: string | null): string | null {
  return kept ? (JSON.parse(kept) as { receiptId: string | null }).receiptId : null;
}

/** The answer of a settled call as the ledger keeps it (null when the call passed none: nothing to keep). */
export function answerToKeep(paymentId: string, receipt: ReceiptFields, receiptId: string, payment: PaymentResponse, settlement: SettlementMode, identifier: string | null): string | null {
  if (!receipt.answer) return null;
  return keepAnswer(paymentId, { v: 1, product: receipt.product, value: receipt.answer.value, receiptId, payment, settlement }, receipt.answer.secrets, identifier);
}

/**
 * The kept answer with its secrets opened by the identifier presented now. A withheld
 * secret (the original payment had no identifier) or one that does not open is refused
 * with 409: the answer exists, but this presentation cannot be given it.
 */
export function openAnswer(paymentId: string, json: string, identifier: string | null): StoredAnswer {
  const a = JSON.parse(json) as StoredAnswer;
  if (typeof a.value !== "object" || a.value === null) return a;
  const value = { ...(a.value as Record<string, unknown>) };
  for (const [k, v] of Object.entries(value)) {
    if (!v || typeof v !== "object") continue;
    if ("$withheld" in v) throw withheld(paymentId, a);
    if ("$sealed" in v) {
      if (!identifier) throw withheld(paymentId, a);
      try {
        value[k] = unseal(paymentId, identifier, v as { $sealed: string });
      } catch {
        throw withheld(paymentId, a);
      }
    }
  }
  return { ...a, value };
}

function withheld(paymentId: string, a: StoredAnswer): ApiError {
  return new ApiError(
    "payment_conflict",
    `This payment was served before (payment ${paymentId}, receipt ${a.receiptId ?? "unknown"}, transaction ${a.payment.transaction}); its answer holds a secret (a bundle token) that was sent once, with that answer, and is given again only to the same payment carrying the same x402 payment-identifier id. Nothing was charged again.`,
    { extra: { payment_id: paymentId, receipt_id: a.receiptId, transaction: a.payment.transaction } },
  );
}
