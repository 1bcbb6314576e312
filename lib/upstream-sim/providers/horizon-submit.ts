/**
 * Simulated Horizon transaction submission (`POST /transactions`, form field `tx`):
 * decodes the envelope for the public network, checks the source account's signature,
 * the sequence number (each account's sequence must grow, so a resubmitted transaction
 * fails with tx_bad_seq like on the real network) and the time bounds, then records the
 * payment operations so tests can read what was settled.
 *
 * `GET /transactions/{hash}` answers for an applied transaction like Horizon: a fee bump
 * is found by its own hash and by its inner transaction's hash (`hash` is the one asked
 * for; `fee_bump_transaction` and `inner_transaction` carry both), anything else is 404.
 * With the simulator's `error_after_apply` / `hang_after_apply` faults on the POST, a
 * client can find out this way that a submission whose answer it lost was applied.
 */
import { FeeBumpTransaction, Keypair, Networks, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk";
import type { World } from "@/lib/upstream-sim/world";
import { hex, signedBy } from "@/lib/payments/xlm/bytes";
import type { SimRequest, SimResponse } from "@/lib/upstream-sim/provider";
import { closeTime, horizonTime, problem, sequenceAt } from "@/lib/upstream-sim/providers/horizon-chain";

export interface SimStellarPayment {
  hash: string;
  from: string;
  to: string;
  amount: string;
  asset: string;
  memo: string | null;
}

interface AppliedTx {
  hash: string;
  innerHash: string | null;
  ledger: number;
  createdAt: number;
  source: string;
  feeSource: string | null;
  envelopeXdr: string;
  memo: string | null;
}

interface Ledger {
  sequences: Map<string, bigint>;
  payments: SimStellarPayment[];
  /** Applied transactions by outer hash and (for fee bumps) inner hash. */
  transactions: Map<string, AppliedTx>;
}

const ledgers = new WeakMap<World, Ledger>();

/** What the simulated network has applied (tests read it). */
export function stellarLedger(world: World): Ledger {
  let l = ledgers.get(world);
  if (!l) {
    l = { sequences: new Map(), payments: [], transactions: new Map() };
    ledgers.set(world, l);
  }
  return l;
}

function failure(code: string, ops?: string[]): SimResponse {
  return problem(400, "transaction_failed", "Transaction Failed", "The transaction failed when submitted to the stellar network.", {
    result_codes: { transaction: code, ...(ops ? { operations: ops } : {}) },
  });
}

export function submitRoute(req: SimRequest, world: World): SimResponse {
  const form = new URLSearchParams(typeof req.body === "string" ? req.body : "");
  const xdr = form.get("tx");
  if (!xdr) return { status: 400, body: { title: "Transaction Malformed", status: 400, detail: "tx is required" } };
  let outer: Transaction | FeeBumpTransaction;
  try {
    outer = TransactionBuilder.fromXDR(xdr, Networks.PUBLIC);
  } catch {
    return { status: 400, body: { title: "Transaction Malformed", status: 400, detail: "Horizon could not decode the transaction envelope" } };
  }
  const tx = outer instanceof FeeBumpTransaction ? outer.innerTransaction : outer;
  const source = Keypair.fromPublicKey(tx.source);
  const signed = tx.signatures.some((s) => signedBy(s, source, tx.hash()));
  if (!signed) return failure("tx_bad_auth");
  const now = Math.floor(req.now / 1000);
  const max = Number(tx.timeBounds?.maxTime ?? "0");
  if (max && max < now) return failure("tx_too_late");
  const l = stellarLedger(world);
  const seq = BigInt(tx.sequence);
  const last = l.sequences.get(tx.source) ?? 0n;
  if (seq <= last) return failure("tx_bad_seq");
  l.sequences.set(tx.source, seq);
  // Applied in the ledger that closes next.
  const ledger = sequenceAt(world, req.now) + 1;
  const hash = hex(outer.hash());
  const memo = tx.memo.type === "hash" ? hex(tx.memo.value as Uint8Array) : tx.memo.value ? String(tx.memo.value) : null;
  for (const op of tx.operations) {
    if (op.type === "payment") {
      l.payments.push({
        hash,
        from: op.source ?? tx.source,
        to: op.destination,
        amount: op.amount,
        asset: op.asset.isNative() ? "native" : `${op.asset.getCode()}:${op.asset.getIssuer()}`,
        memo,
      });
    }
  }
  const applied: AppliedTx = {
    hash,
    innerHash: outer instanceof FeeBumpTransaction ? hex(tx.hash()) : null,
    ledger,
    createdAt: closeTime(world, ledger),
    source: tx.source,
    feeSource: outer instanceof FeeBumpTransaction ? outer.feeSource : null,
    envelopeXdr: xdr,
    memo,
  };
  l.transactions.set(hash, applied);
  if (applied.innerHash) l.transactions.set(applied.innerHash, applied);
  return { body: { ...transactionRecord(applied, hash), result_xdr: RESULT_XDR } };
}

const RESULT_XDR = "AAAAAAAAAGQAAAAAAAAAAQAAAAAAAAABAAAAAAAAAAA=";

/** Horizon's transaction resource, as seen when asked for `asked` (outer or inner hash). */
function transactionRecord(t: AppliedTx, asked: string): Record<string, unknown> {
  return {
    id: asked,
    hash: asked,
    successful: true,
    ledger: t.ledger,
    created_at: horizonTime(t.createdAt),
    source_account: t.source,
    fee_account: t.feeSource ?? t.source,
    operation_count: 1,
    envelope_xdr: t.envelopeXdr,
    result_xdr: RESULT_XDR,
    memo_type: t.memo ? "hash" : "none",
    ...(t.memo ? { memo: Buffer.from(t.memo, "hex").toString("base64") } : {}),
    ...(t.innerHash ? { fee_bump_transaction: { hash: t.hash }, inner_transaction: { hash: t.innerHash } } : {}),
  };
}

/** `GET /transactions/{hash}`: an applied transaction, or Horizon's 404 problem. */
export function transactionRoute(hash: string, world: World): SimResponse {
  const t = /^[0-9a-f]{64}$/.test(hash) ? stellarLedger(world).transactions.get(hash) : undefined;
  if (!t) {
    return problem(
      404,
      "not_found",
      "Resource Missing",
      "The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.",
    );
  }
  return { body: transactionRecord(t, hash) };
}
