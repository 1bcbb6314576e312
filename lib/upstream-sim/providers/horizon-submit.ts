/**
 * Simulated Horizon transaction submission (`POST /transactions`, form field `tx`):
 * decodes the envelope for the public network, checks the source account's signature,
 * the sequence number (each account's sequence must grow, so a resubmitted transaction
 * fails with tx_bad_seq like on the real network) and the time bounds, then records the
 * payment operations so tests can read what was settled.
 */
import { FeeBumpTransaction, Keypair, Networks, TransactionBuilder, type Transaction } from "@stellar/stellar-sdk";
import type { World } from "@/lib/upstream-sim/world";
import type { SimRequest, SimResponse } from "@/lib/upstream-sim/server";

export interface SimStellarPayment {
  hash: string;
  from: string;
  to: string;
  amount: string;
  asset: string;
  memo: string | null;
}

interface Ledger {
  sequences: Map<string, bigint>;
  payments: SimStellarPayment[];
  ledger: number;
}

const ledgers = new WeakMap<World, Ledger>();

/** What the simulated network has applied (tests read it). */
export function stellarLedger(world: World): Ledger {
  let l = ledgers.get(world);
  if (!l) {
    l = { sequences: new Map(), payments: [], ledger: 56_000_000 };
    ledgers.set(world, l);
  }
  return l;
}

function failure(code: string, ops?: string[]): SimResponse {
  return {
    status: 400,
    body: {
      type: "https://stellar.org/horizon-errors/transaction_failed",
      title: "Transaction Failed",
      status: 400,
      detail: "The transaction failed when submitted to the stellar network.",
      extras: { result_codes: { transaction: code, ...(ops ? { operations: ops } : {}) } },
    },
  };
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
  const signed = tx.signatures.some((s) => s.hint().equals(source.signatureHint()) && source.verify(tx.hash(), s.signature()));
  if (!signed) return failure("tx_bad_auth");
  const now = Math.floor(req.now / 1000);
  const max = Number(tx.timeBounds?.maxTime ?? "0");
  if (max && max < now) return failure("tx_too_late");
  const l = stellarLedger(world);
  const seq = BigInt(tx.sequence);
  const last = l.sequences.get(tx.source) ?? 0n;
  if (seq <= last) return failure("tx_bad_seq");
  l.sequences.set(tx.source, seq);
  l.ledger += 1;
  const hash = outer.hash().toString("hex");
  for (const op of tx.operations) {
    if (op.type === "payment") {
      l.payments.push({
        hash,
        from: op.source ?? tx.source,
        to: op.destination,
        amount: op.amount,
        asset: op.asset.isNative() ? "native" : `${op.asset.getCode()}:${op.asset.getIssuer()}`,
        memo: tx.memo.type === "hash" ? (tx.memo.value as Buffer).toString("hex") : tx.memo.value ? String(tx.memo.value) : null,
      });
    }
  }
  return { body: { hash, ledger: l.ledger, successful: true, envelope_xdr: xdr, result_xdr: "AAAAAAAAAGQAAAAAAAAAAQAAAAAAAAABAAAAAAAAAAA=" } };
}
