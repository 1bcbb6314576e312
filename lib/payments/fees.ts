/**
 * The network fees the service pays to settle payments (EVM gas from the facilitator key,
 * the Solana fee payer's lamports), recorded per payment (`payments.fee_native`, in the
 * network's native base unit) when its settlement transaction was sent.
 *
 * A failed transaction still costs its fee. A payer whose payments failed on chain at
 * our expense is refused (402 payment_invalid, reason `fee_budget_spent`) once those fees
 * reach its budget (X402_PAYER_FEE_BUDGET_WEI, SOLANA_PAYER_FEE_BUDGET_LAMPORTS), until one
 * of its payments settles; failures older than FEE_BUDGET_WINDOW_HOURS no longer count, so
 * an address is not shut out for good. The sum is read from the shared database, so every
 * instance applies the same budget; it is read in parallel with the payment's verification
 * and costs the call no round trip (and a payer found clean is not read again for a few
 * seconds, see payerFailedFees).
 */
import { randomUUID } from "node:crypto";
import { getDbHandle } from "@/lib/db/client";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { countFee } from "@/lib/metrics";
import { feeUnit } from "@/lib/metrics/fee-unit";
import { processState } from "@/lib/process-state";

/** How long a failed payment's fee counts against its payer's budget. */
export const FEE_BUDGET_WINDOW_HOURS = 24;


/** The fee budget of one payer on `network` (native base units), or null when the service pays no fees there. */
export function payerFeeBudget(network: string): bigint | null {
  const cfg = env();
  if (network.startsWith("eip155:")) return cfg.X402_PAYER_FEE_BUDGET_WEI;
  if (network.startsWith("solana:")) return BigInt(cfg.SOLANA_PAYER_FEE_BUDGET_LAMPORTS);
  return null;
}

/**
 * Payers found with nothing spent, for a few seconds: a payer's calls in a row read the
 * store once, not once each. A failure this process records forgets its payer at once
 * (forgetPayerFees); another instance's is seen within PAYER_CLEAN_MS.
 */
const PAYER_CLEAN_MS = 3000;
const clean = () => processState("payments.payer-fees-clean", () => new Map<string, number>());
const cleanKey = (network: string, payer: string) => `${network}|${payer.toLowerCase()}`;

/** Forgets that `payer` had spent nothing (one of its settlements just failed at our expense). */
export function forgetPayerFees(network: string, payer: string): void {
  clean().delete(cleanKey(network, payer));
}

/**
 * The fees `payer`'s failed payments on `network` cost the service since its last settled
 * payment (within the window). EVM payers may be stored checksummed or in lower case.
 */
export async function payerFailedFees(network: string, payer: string): Promise<bigint> {
  const key = cleanKey(network, payer);
  const seen = clean();
  if ((seen.get(key) ?? 0) > Date.now()) return 0n;
  const spent = await readPayerFailedFees(network, payer);
  if (spent === 0n) {
    if (seen.size > 10_000) for (const [k, until] of seen) if (until <= Date.now()) seen.delete(k);
    seen.set(key, Date.now() + PAYER_CLEAN_MS);
  }
  return spent;
}

async function readPayerFailedFees(network: string, payer: string): Promise<bigint> {
  const h = await getDbHandle();
  const rows = await h.query<{ spent: string }>(
    `SELECT COALESCE(sum(f.fee_native), 0)::text AS spent FROM payments f
      WHERE f.network = $1 AND f.payer IN ($2, lower($2)) AND f.fee_native > 0 AND f.status IN ('failed', 'optimistic_failed')
        AND f.created_at > now() - make_interval(hours => $3)
        AND NOT EXISTS (SELECT 1 FROM payments s WHERE s.network = $1 AND s.payer IN ($2, lower($2)) AND s.status = 'settled' AND s.updated_at > f.created_at)`,
    [network, payer, FEE_BUDGET_WINDOW_HOURS],
    { name: "payer_failed_fees" },
  );
  return BigInt(rows[0]?.spent ?? "0");
}

/** The refusal of a payer whose failed payments spent its fee budget. */
export function feeBudgetSpent(network: string, spent: bigint, budget: bigint): ApiError {
  const { unit } = feeUnit(network);
  return new ApiError(
    "payment_invalid",
    `This payer's earlier payments failed on chain after the service sent them, costing the service ${spent} ${unit} in network fees (budget ${budget} ${unit}). Its payments on ${network} are refused until one of them settles or ${FEE_BUDGET_WINDOW_HOURS} h have passed; pay from an account whose funds cover the payment, or another way. Nothing was sent and nothing was charged.`,
    { extra: { reason: "fee_budget_spent", fault: "payer" } },
  );
}

/** Why the service's key paid a fee that is no payment's: see recordServiceFee. */
export type ServiceFeeReason = "nonce_gap_filler" | string;

/**
 * Records a network fee the service's own key paid for a transaction that is no payment's
 * fee (`service_fees`): a nonce-gap filler, or a transaction mined during a settlement that
 * then failed for a reason on our side (its payment is released, so its row keeps no fee).
 * Counted in /metrics as a failed settlement's fee and in the ledger report with them
 * (`failed`, and apart as `ours`), never against a payer's budget. A transaction is
 * recorded and counted once, whichever instance learns its fee (a transaction recorded
 * before is neither written nor counted again); a write that fails is logged (and counted
 * in /metrics all the same, unless `noted`: the transaction was noted before it went out,
 * and the recovery pass that prices the note counts it) and never fails the call that paid it.
 */
export async function recordServiceFee(f: { network: string; reason: ServiceFeeReason; fee: bigint; transaction?: string | null; paymentId?: string | null; noted?: boolean }): Promise<void> {
  const fields = { network: f.network, reason: f.reason, fee: f.fee.toString(), transaction: f.transaction ?? null, paymentId: f.paymentId ?? null };
  let recorded = true;
  try {
    const h = await getDbHandle();
    // A transaction noted before it went out (noteServiceTransaction) gets its fee here.
    const rows = await h.query<{ id: string }>(
      `INSERT INTO service_fees (id, network, reason, "transaction", fee_native, payment_id) VALUES ($1, $2, $3, $4, $5::bigint, $6)
       ON CONFLICT ("transaction") DO UPDATE SET fee_native = EXCLUDED.fee_native WHERE service_fees.fee_native IS NULL RETURNING id`,
      [randomUUID(), f.network, f.reason.slice(0, 100), f.transaction ?? null, f.fee.toString(), f.paymentId ?? null],
    );
    // Priced before (another instance, or an earlier attempt of this payment): counted then.
    recorded = rows.length > 0;
  } catch (err) {
    log.error("payment.service_fee_unrecorded", { ...fields, message: (err as Error).message });
    // A transaction noted before it went out keeps its note: the recovery pass prices and
    // counts it later, so it is not counted here too.
    if (f.noted) recorded = false;
  }
  if (!recorded) return;
  countFee(f.network, "failed", f.fee);
  log.warn("payment.service_fee", fields);
}

/**
 * Notes a transaction of the service's own before it goes out (a nonce-gap filler), its
 * fee unknown: recordServiceFee prices it once its receipt is read, and if its sender dies
 * first the recovery pass does, from the chain (lib/payments/recovery.ts). Throws when the
 * note cannot be written: the transaction is then not sent.
 */
export async function noteServiceTransaction(f: { network: string; reason: ServiceFeeReason; transaction: string }): Promise<void> {
  const h = await getDbHandle();
  await h.query(
    `INSERT INTO service_fees (id, network, reason, "transaction", fee_native) VALUES ($1, $2, $3, $4, NULL) ON CONFLICT ("transaction") DO NOTHING`,
    [randomUUID(), f.network, f.reason.slice(0, 100), f.transaction],
  );
}

/** Transactions on `networks` noted by noteServiceTransaction at least `minAgeSeconds` ago and still unpriced (oldest first). */
export async function unpricedServiceTransactions(networks: string[], minAgeSeconds: number, limit = 100): Promise<Array<{ network: string; reason: string; transaction: string; ageSeconds: number }>> {
  const h = await getDbHandle();
  const rows = await h.query<{ network: string; reason: string; transaction: string; age: number }>(
    `SELECT network, reason, "transaction", extract(epoch FROM now() - created_at)::float8 AS age FROM service_fees
      WHERE fee_native IS NULL AND "transaction" IS NOT NULL AND network = ANY($1::text[]) AND created_at < now() - make_interval(secs => $2::double precision)
      ORDER BY created_at LIMIT $3`,
    [networks, minAgeSeconds, limit],
  );
  return rows.map((r) => ({ network: r.network, reason: r.reason, transaction: r.transaction, ageSeconds: Number(r.age) }));
}

/** Forgets a noted transaction that was never mined (it cost nothing); false when it was priced meanwhile. */
export async function forgetUnminedServiceTransaction(transaction: string): Promise<boolean> {
  const h = await getDbHandle();
  const rows = await h.query<{ id: string }>(`DELETE FROM service_fees WHERE "transaction" = $1 AND fee_native IS NULL RETURNING id`, [transaction]);
  return rows.length > 0;
}

/** Whether transaction `tx`'s fee is recorded as the service's own (service_fees). */
export async function isServiceFee(tx: string): Promise<boolean> {
  const h = await getDbHandle();
  const rows = await h.query<{ n: number }>(`SELECT 1 AS n FROM service_fees WHERE "transaction" = $1`, [tx]);
  return rows.length > 0;
}

export interface FeeTotals {
  network: string;
  method: string;
  unit: string;
  /** Fees of settlements that settled (delivered and paid). */
  settled: string;
  /** Fees of transactions that failed or earned nothing: failed settlements' (the payer's doing) and ours below. */
  failed: string;
  /** Settlement transactions that failed on chain with a known fee, and our own transactions below. */
  failed_transactions: number;
  /** Of those, the ones of our own making that belong to no payment (service_fees: nonce-gap fillers, settlements failed for a reason of ours). */
  ours: { fee: string; transactions: number };
}

/** Fees the service paid per network, for settled and for failed settlements (ledger report, /metrics). */
export async function feeTotals(): Promise<FeeTotals[]> {
  const h = await getDbHandle();
  const [rows, own] = await Promise.all([
    h.query<{ network: string; settled: string; failed: string; failed_n: string | number }>(
      `SELECT network,
              COALESCE(sum(fee_native) FILTER (WHERE status NOT IN ('failed', 'optimistic_failed')), 0)::text AS settled,
              COALESCE(sum(fee_native) FILTER (WHERE status IN ('failed', 'optimistic_failed')), 0)::text AS failed,
              count(*) FILTER (WHERE status IN ('failed', 'optimistic_failed')) AS failed_n
         FROM payments WHERE fee_native IS NOT NULL GROUP BY network ORDER BY network`,
      [],
    ),
    h.query<{ network: string; fee: string; n: string | number }>(`SELECT network, sum(fee_native)::text AS fee, count(*) AS n FROM service_fees WHERE fee_native IS NOT NULL GROUP BY network`, []),
  ]);
  const networks = [...new Set([...rows.map((r) => r.network), ...own.map((o) => o.network)])].sort();
  return networks.map((network) => {
    const r = rows.find((x) => x.network === network);
    const o = own.find((x) => x.network === network);
    const oursFee = BigInt(o?.fee ?? "0");
    const oursN = Number(o?.n ?? 0);
    return {
      network,
      ...feeUnit(network),
      settled: r?.settled ?? "0",
      failed: (BigInt(r?.failed ?? "0") + oursFee).toString(),
      failed_transactions: Number(r?.failed_n ?? 0) + oursN,
      ours: { fee: oursFee.toString(), transactions: oursN },
    };
  });
}
