/**
 * Submission of a verified XLM payment to Horizon after the paid call succeeded, and an
 * honest reading of the answer.
 *
 * A transaction's hash is known before it is sent, so an answer that says nothing (a
 * timeout, a 5xx such as Horizon's 504, a proxy page) is not the end of the story: the
 * network may have applied the transaction all the same. Horizon is then asked for the
 * transaction by hash, about once a second, until one of:
 * - it is on the ledger → paid (or, if it failed there, not paid: no XLM moved);
 * - a ledger that closed after the transaction's maxTime is visible and the transaction
 *   is not on the ledger → it can never be applied (the network refuses a transaction
 *   in any ledger closing after its maxTime), so nothing was charged;
 * - PAYMENT_TIMEOUT_MS has passed since the submission's (missing) answer → the outcome
 *   is unknown, and the caller is told so.
 * A definite refusal (HTTP 4xx with a transaction result code) is final for the copy we
 * sent, but it is still looked up once by hash: the payer may have submitted the very
 * same transaction himself (then the refusal is tx_bad_seq and the payment did arrive).
 *
 * Lookups use the inner transaction's hash, under which Horizon also finds a fee bump,
 * so whichever envelope carried the payment is found.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import type { VerifiedXlm } from "@/lib/payments/xlm/verify";

export type XlmSettlement =
  | { outcome: "paid"; hash: string; ledger: number | null }
  | { outcome: "not_paid"; message: string }
  | { outcome: "unknown"; message: string };

const POLL_INTERVAL_MS = 1000;

const SubmitOk = z.object({ hash: z.string(), successful: z.boolean().optional(), ledger: z.number().optional() }).passthrough();
const SubmitErr = z
  .object({ extras: z.object({ result_codes: z.object({ transaction: z.string().optional(), operations: z.array(z.string()).optional() }).optional() }).optional() })
  .passthrough();
const TxRecord = z
  .object({
    hash: z.string(),
    successful: z.boolean(),
    ledger: z.number().int().optional(),
    fee_bump_transaction: z.object({ hash: z.string() }).optional(),
  })
  .passthrough();
const LatestLedger = z.object({ _embedded: z.object({ records: z.array(z.object({ closed_at: z.string() })).min(1) }) }).passthrough();

interface HorizonAnswer {
  status: number;
  body: unknown;
}

function horizonBase(): string {
  const cfg = env();
  return (cfg.STELLAR_HORIZON_SUBMIT_URL ?? cfg.HORIZON_BASE_URL).replace(/\/+$/, "");
}

/** One Horizon request; a transport failure or timeout is returned as a reason string. */
async function horizon(path: string, init: RequestInit, timeoutMs: number): Promise<HorizonAnswer | string> {
  try {
    const res = await fetch(`${horizonBase()}${path}`, { ...init, headers: { Accept: "application/json", ...init.headers }, signal: AbortSignal.timeout(Math.max(1, timeoutMs)) });
    const body: unknown = await res.json().catch(() => null);
    return { status: res.status, body };
  } catch (err) {
    const e = err as Error;
    return e.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : `no answer: ${e.message}`;
  }
}

type Lookup = { found: true; successful: boolean; hash: string; ledger: number | null } | { found: false } | { error: string };

/** The transaction as Horizon has it: found (successful or failed), not found, or no clear answer. */
async function lookup(hash: string, timeoutMs: number): Promise<Lookup> {
  const a = await horizon(`/transactions/${hash}`, { method: "GET" }, timeoutMs);
  if (typeof a === "string") return { error: a };
  if (a.status === 404) return { found: false };
  const rec = a.status === 200 ? TxRecord.safeParse(a.body) : null;
  if (!rec?.success) return { error: `lookup answered HTTP ${a.status}` };
  // The receipt names the envelope that was applied: a fee bump's own hash when there is one.
  return { found: true, successful: rec.data.successful, hash: rec.data.fee_bump_transaction?.hash ?? rec.data.hash, ledger: rec.data.ledger ?? null };
}

/** Close time (Unix seconds) of the latest ledger Horizon has ingested, or null. */
async function latestLedgerClose(timeoutMs: number): Promise<number | null> {
  const a = await horizon("/ledgers?order=desc&limit=1", { method: "GET" }, timeoutMs);
  if (typeof a === "string" || a.status !== 200) return null;
  const l = LatestLedger.safeParse(a.body);
  if (!l.success) return null;
  const t = Date.parse(l.data._embedded.records[0]!.closed_at);
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

/**
 * Submits the envelope and decides what happened. Never throws for Horizon's sake:
 * every answer, or the lack of one, becomes one of the three outcomes (the caller tells
 * the payer how an unknown one is resolved).
 */
export async function settleXlmPayment(v: VerifiedXlm): Promise<XlmSettlement> {
  const cfg = env();
  const started = Date.now();
  const sent = await horizon(
    "/transactions",
    { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ tx: v.envelopeXdr }).toString() },
    cfg.PAYMENT_TIMEOUT_MS,
  );

  let refusal: string | null = null;
  let silence: string;
  if (typeof sent === "string") {
    silence = `Horizon gave ${sent}`;
  } else {
    if (sent.status >= 200 && sent.status < 300) {
      const ok = SubmitOk.safeParse(sent.body);
      if (ok.success && ok.data.successful !== false) return { outcome: "paid", hash: ok.data.hash, ledger: ok.data.ledger ?? null };
    }
    const codes = SubmitErr.safeParse(sent.body);
    const rc = codes.success ? codes.data.extras?.result_codes : undefined;
    if (sent.status >= 400 && sent.status < 500 && rc?.transaction) {
      refusal = `${rc.transaction}${rc.operations?.length ? `: ${rc.operations.join(",")}` : ""}`;
    }
    silence = `Horizon answered HTTP ${sent.status} without a result`;
  }

  // Either a definite refusal (one lookup settles it) or silence (poll until the ledger
  // has moved past maxTime, or until the deadline). The budget starts after the submit,
  // so a submission that timed out still leaves time to ask.
  const deadline = Date.now() + cfg.PAYMENT_TIMEOUT_MS;
  for (;;) {
    const remaining = () => Math.max(1, deadline - Date.now());
    // The latest ledger is read BEFORE the lookup: if a ledger past maxTime was already
    // visible, every ledger that could hold the transaction was ingested before the lookup.
    const closed = refusal ? null : await latestLedgerClose(remaining());
    const found = await lookup(v.innerHash, remaining());
    if ("found" in found && found.found) {
      if (found.successful) return { outcome: "paid", hash: found.hash, ledger: found.ledger };
      return {
        outcome: "not_paid",
        message: `The XLM payment transaction ${found.hash} was included in ledger ${found.ledger ?? "?"} but failed there: no XLM moved and nothing was charged. Sign a new payment.`,
      };
    }
    if ("found" in found && refusal) {
      return { outcome: "not_paid", message: `Horizon refused the XLM payment (${refusal}); the transaction was not applied and nothing was charged.` };
    }
    if ("found" in found && closed !== null && closed > v.maxTime) {
      return {
        outcome: "not_paid",
        message:
          `${silence}, and the transaction is not on the ledger although a ledger has closed after its maxTime ` +
          `(${new Date(v.maxTime * 1000).toISOString()}), so it can never be applied: nothing was charged. Sign a new payment.`,
      };
    }
    if (Date.now() + POLL_INTERVAL_MS >= deadline) {
      const why = refusal ? `Horizon refused the submission (${refusal}) but could not be asked whether the transaction had been applied before` : silence;
      return {
        outcome: "unknown",
        message:
          `The outcome of the XLM payment is unknown: ${why}, and transaction ${v.innerHash} had not been confirmed either way ` +
          `after ${Math.round((Date.now() - started) / 1000)} s.`,
      };
    }
    await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
  }
}

/**
 * What the network did with payment `innerHash` (reconciliation, without the envelope):
 * applied (successfully: "transferred"; failed: "void"), or not applied and past its
 * `maxTime` by a closed ledger ("expired": it can never be), or still able to be applied
 * ("unused"); null when Horizon gave no clear answer.
 */
export async function xlmPaymentOutcome(innerHash: string, maxTime: number | null): Promise<{ kind: "transferred"; transaction: string } | { kind: "void" | "expired" | "unused" } | null> {
  const timeout = env().PAYMENT_TIMEOUT_MS;
  const found = await lookup(innerHash, timeout);
  if ("error" in found) return null;
  if (found.found) return found.successful ? { kind: "transferred", transaction: found.hash } : { kind: "void" };
  if (maxTime === null) return { kind: "unused" };
  const closed = await latestLedgerClose(timeout);
  if (closed === null) return null;
  return closed > maxTime ? { kind: "expired" } : { kind: "unused" };
}
