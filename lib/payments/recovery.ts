/**
 * Payments nobody is finishing, resolved from the chain: rows in flight whose holder's
 * lease ran out (its process died, or lost the database at its last step) and rows whose
 * settlement outcome was left "unknown". Each method reads the chain's word from the row
 * alone (PaymentMethod.rowOutcome: EVM by payer and nonce, Solana by the transaction id
 * recorded before sending, XLM by the transaction hash):
 *
 * - transferred → "landed": the payer was charged and has no answer yet; the same payment
 *   presented again (any instance) is taken over and answered, charged once;
 * - void (used elsewhere, cancelled, failed on chain) → "failed"; a transaction the row
 *   names that was mined without a transfer is recorded as the service's own fee (reason
 *   `void_unpaid`: whether it failed for the payer's doing or ours died with its sender);
 * - never transferred and no longer usable → "expired": nothing was charged, for good; a
 *   transaction the row names that was mined all the same (without a transfer: its sender
 *   died before recording what it cost) is recorded as the service's own fee
 *   (lib/payments/fees.ts, reason `expired_unpaid`), once: nobody will learn it otherwise;
 * - never transferred and still usable, or no clear answer → left as it is, for the
 *   payer's next presentation or a later pass.
 *
 * Every instance runs a pass every few seconds while it serves payments; `npm run
 * reconcile` runs one now and prints what it did. Rows are claimed with a lease of this
 * process's recovery holder (`recovery:<holder>`, FOR UPDATE SKIP LOCKED), so passes on
 * several instances never work on one row at once. A presentation of the same payment
 * meanwhile takes the row over at once (x402_seen_outcome: the payer holds the signed
 * payment, the pass only reads the chain), and a verdict is written only while the row is
 * still this pass's, so the pass then leaves it alone.
 */
import { getDbHandle } from "@/lib/db/client";
import { log } from "@/lib/log";
import { peekProcessState, processState } from "@/lib/process-state";
import { leaseHolder, leaseSeconds } from "@/lib/payments/leases";
import { paymentMethods } from "@/lib/payments/methods/registry";
import { forgetUnminedServiceTransaction, recordServiceFee, unpricedServiceTransactions } from "@/lib/payments/fees";
import type { PaymentMethod, RowOutcome } from "@/lib/payments/methods/types";
import { FILLER_RECEIPT_MS } from "@/lib/payments/x402/sender";

/** How long an "unknown" row is left to its payer's next presentation before a pass asks the chain. */
const UNKNOWN_GRACE_SECONDS = 30;
/** How often each instance makes a pass while it serves payments. */
const PASS_MS = 10_000;

/** The holder a pass claims rows with: distinct from the process's calls (which may take them over). */
export const recoveryHolder = () => `recovery:${leaseHolder()}`;

export interface Resolution {
  paymentId: string;
  network: string;
  reference: string;
  /** The row's status before. */
  was: string;
  /** What it is now: landed, failed, expired, or unchanged (still usable, or no clear answer). */
  now: "landed" | "failed" | "expired" | "unchanged";
  detail: string;
}

type Row = { id: string; network: string; reference: string; payer: string | null; pay_to: string; asset: string; amount_atomic: string; tx_hash: string | null; status: string; expires_at: number | null };

function methodOf(network: string): PaymentMethod | null {
  return paymentMethods().find((m) => m.facts().network === network) ?? null;
}

/**
 * One pass: claims up to `limit` payments nobody is finishing and resolves each from the
 * chain. `all`: every such row, however recent its "unknown" outcome (the operator's
 * command); otherwise those left unknown for UNKNOWN_GRACE_SECONDS.
 */
export async function resolveAbandoned(opts: { limit?: number; all?: boolean } = {}): Promise<Resolution[]> {
  const h = await getDbHandle();
  const rows = await h.query<Row>(
    `UPDATE payments SET holder = $1, lease_until = now() + make_interval(secs => $2::double precision) WHERE id IN (
       SELECT id FROM payments
        WHERE (status IN ('pending', 'pending_optimistic', 'sent') AND COALESCE(lease_until, updated_at + interval '10 minutes') < now())
           OR (status = 'unknown' AND updated_at < now() - make_interval(secs => $3::double precision))
        ORDER BY updated_at LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING id, network, reference, payer, pay_to, asset, amount_atomic::text, tx_hash, status, extract(epoch FROM expires_at)::float8 AS expires_at`,
    [recoveryHolder(), leaseSeconds(), opts.all ? 0 : UNKNOWN_GRACE_SECONDS, opts.limit ?? 50],
  );
  const out: Resolution[] = [];
  for (const r of rows) out.push(await resolveRow(r));
  return out;
}

async function resolveRow(r: Row): Promise<Resolution> {
  const base = { paymentId: r.id, network: r.network, reference: r.reference, was: r.status };
  const m = methodOf(r.network);
  let outcome: RowOutcome | null = null;
  try {
    outcome = m?.rowOutcome ? await m.rowOutcome({ reference: r.reference, payer: r.payer, payTo: r.pay_to, asset: r.asset, amountAtomic: BigInt(r.amount_atomic), txHash: r.tx_hash, expiresAt: r.expires_at }) : null;
  } catch (err) {
    log.warn("payment.reconcile_unreadable", { paymentId: r.id, network: r.network, message: (err as Error).message });
  }
  const verdict = outcome?.kind === "transferred" ? "landed" : outcome?.kind === "void" ? "failed" : outcome?.kind === "expired" ? "expired" : null;
  const h = await getDbHandle();
  /** Leaves the row as it was, free again at once for its payer's next presentation or a later pass. */
  const unchanged = async (detail: string): Promise<Resolution> => {
    await h.query(`UPDATE payments SET lease_until = now() WHERE id = $1 AND holder = $2 AND status = $3`, [r.id, recoveryHolder(), r.status]);
    return { ...base, now: "unchanged", detail };
  };
  // Still usable, or the chain could not tell.
  if (!verdict) return unchanged(!m ? "no payment method for its network on this instance" : outcome ? `never transferred, still usable until it expires` : "the chain gave no clear answer");
  if ((verdict === "expired" || verdict === "failed") && r.tx_hash && m?.minedFee) {
    // The fee goes in before the verdict: a pass that dies between the two leaves the row to
    // the next pass, which records it again (once: by transaction); the other order could
    // leave the row final and its fee never recorded. A chain that cannot say whether the
    // transaction was mined leaves the row as it is, for a later pass. A void payment's
    // transaction (the authorization used elsewhere or cancelled) may have failed for the
    // payer's doing or for ours: the instance that knew died with it, so the fee is ours
    // (`void_unpaid`), never the payer's.
    let fee: bigint | null;
    try {
      fee = await m.minedFee(r.tx_hash);
    } catch (err) {
      log.warn("payment.reconcile_unreadable", { paymentId: r.id, network: r.network, message: (err as Error).message });
      return unchanged("the chain gave no clear answer about its transaction's fee");
    }
    if (fee !== null) await recordServiceFee({ network: r.network, reason: verdict === "expired" ? "expired_unpaid" : "void_unpaid", fee, transaction: r.tx_hash, paymentId: r.id });
  }
  const tx = outcome?.kind === "transferred" ? (outcome.transaction ?? r.tx_hash) : r.tx_hash;
  const error = verdict === "landed" ? null : verdict === "failed" ? "used elsewhere, cancelled or failed on chain (reconciled)" : "expired unused (reconciled)";
  const done = await h.query<{ id: string }>(
    `UPDATE payments SET status = $3, tx_hash = COALESCE($4, tx_hash), error = $5, optimistic = false, settlement_payload = NULL, lease_until = now(), updated_at = now()
      WHERE id = $1 AND holder = $2 AND status = $6 RETURNING id`,
    [r.id, recoveryHolder(), verdict, tx, error, r.status],
  );
  if (!done.length) return { ...base, now: "unchanged", detail: "taken over meanwhile by a presentation of the payment" };
  const detail = verdict === "landed" ? `transferred${tx ? ` (transaction ${tx})` : ""}, not answered yet: answered when presented again` : error!;
  log[verdict === "landed" ? "warn" : "info"]("payment.reconciled", { paymentId: r.id, network: r.network, was: r.status, now: verdict, transaction: tx });
  return { ...base, now: verdict, detail };
}

/**
 * How long a noted transaction of the service's own (a nonce-gap filler) is left to its
 * sender, which waits FILLER_RECEIPT_MS for its receipt, before a pass prices it from the
 * chain: a minute more.
 */
const UNPRICED_GRACE_SECONDS = FILLER_RECEIPT_MS / 1000 + 60;
/** After this long unmined, a noted transaction never will be (its nonce went to another): it cost nothing, and is forgotten. */
const UNMINED_FORGET_SECONDS = 60 * 60;

export interface Pricing {
  network: string;
  transaction: string;
  reason: string;
  now: "priced" | "forgotten" | "unchanged";
  detail: string;
}

/**
 * Prices, from the chain, the service's own transactions noted before they went out whose
 * sender died before it read their receipt (noteServiceTransaction), on the networks whose
 * method can read both a transaction's fee and whether the node knows it: mined → its fee
 * is recorded and counted (once: recordServiceFee prices a row only while it has no fee);
 * unknown to the node UNMINED_FORGET_SECONDS after the note → forgotten (never mined, it
 * cost nothing); otherwise (pending, or mined while this instance cannot read its key's
 * fees: a remote facilitator) left for a later pass. `all`: however recent (the
 * operator's command).
 */
export async function priceServiceTransactions(opts: { all?: boolean; limit?: number } = {}): Promise<Pricing[]> {
  const readers = new Map(paymentMethods().flatMap((m) => (m.minedFee && m.transactionSeen ? [[m.facts().network, m] as const] : [])));
  const out: Pricing[] = [];
  if (!readers.size) return out;
  for (const t of await unpricedServiceTransactions([...readers.keys()], opts.all ? 0 : UNPRICED_GRACE_SECONDS, opts.limit ?? 100)) {
    const base = { network: t.network, transaction: t.transaction, reason: t.reason };
    const m = readers.get(t.network)!;
    let fee: bigint | null;
    let seen = true;
    try {
      fee = await m.minedFee!(t.transaction);
      if (fee === null && t.ageSeconds >= UNMINED_FORGET_SECONDS) seen = await m.transactionSeen!(t.transaction);
    } catch (err) {
      log.warn("payment.service_fee_unreadable", { ...base, message: (err as Error).message });
      out.push({ ...base, now: "unchanged", detail: "the chain gave no clear answer" });
      continue;
    }
    if (fee !== null) {
      await recordServiceFee({ network: t.network, reason: t.reason, fee, transaction: t.transaction });
      out.push({ ...base, now: "priced", detail: `mined, fee ${fee}` });
    } else if (!seen) {
      const gone = await forgetUnminedServiceTransaction(t.transaction);
      out.push({ ...base, now: gone ? "forgotten" : "unchanged", detail: gone ? `unknown to the node ${Math.round(t.ageSeconds / 60)} min after it was sent: never mined, it cost nothing` : "priced meanwhile" });
    } else {
      out.push({ ...base, now: "unchanged", detail: "not priced: pending, or not readable here" });
    }
  }
  return out;
}

/** Starts this instance's passes (once per process; only while its database is open). */
export function startRecovery(): void {
  processState("payments.recovery", () => {
    let running = false;
    const timer = setInterval(() => {
      if (running || peekProcessState("db") === undefined) return;
      running = true;
      resolveAbandoned()
        .then(() => priceServiceTransactions())
        .catch((err: unknown) => log.warn("payment.reconcile_failed", { message: (err as Error).message }))
        .finally(() => {
          running = false;
        });
    }, PASS_MS);
    timer.unref();
    return timer;
  });
}
