/**
 * A settlement transaction prepared ahead of its send (KeySender.sendAhead), kept apart
 * from the sender so that the settlement code passing it through needs no import of the
 * sender itself.
 */
import { performance } from "node:perf_hooks";
import type { Hex } from "viem";
import type { Lease } from "@/lib/payments/x402/nonces";

/** A transaction of the facilitator key to send. */
export interface OutgoingTx {
  to: Hex;
  data: Hex;
  value?: bigint;
  gas: bigint;
}

/**
 * How long a transaction prepared ahead may wait for its send. Transactions of the key sent
 * with higher nonces meanwhile wait in the node's queue until this one arrives, so a call
 * whose handler runs longer hands the nonce back and its send takes a new one.
 */
export const SEND_AHEAD_MAX_MS = 500;

export interface Prepared {
  lease: Lease;
  tx: OutgoingTx;
  raw: Hex;
  hash: Hex;
}

const sameTx = (a: OutgoingTx, b: OutgoingTx) => a.to.toLowerCase() === b.to.toLowerCase() && a.data === b.data && a.gas === b.gas && (a.value ?? 0n) === (b.value ?? 0n);

/**
 * A transaction prepared ahead of its send (KeySender.sendAhead): nonce taken from the
 * shared counter and signed while the payment is verified, so the send after the handler
 * only posts it. The send claims it once; when no send does (the call failed, or settles
 * another way), free() hands the nonce back to the shared counter as unused, so the next
 * send reuses it (the chain's fresh word first).
 */
export class SendAhead {
  private done = false;
  /** Told the hash of each signed transaction the send is about to post (first try and any new nonce after a conflict). */
  onSigned: ((hash: Hex) => void) | null = null;

  constructor(
    private readonly prepared: Promise<Prepared | null>,
    private readonly end: (lease: Lease) => Promise<void>,
    private readonly maySend: (lease: Lease) => boolean,
  ) {}

  /**
   * The nonce (and, when `tx` is the transaction prepared, its signed bytes) for the send,
   * at most once; null when there is none or it waited too long (then it is handed back).
   */
  async claim(tx: OutgoingTx): Promise<{ lease: Lease; signed: { raw: Hex; hash: Hex } | null } | null> {
    if (this.done) return null;
    this.done = true;
    const p = await this.prepared;
    if (!p) return null;
    if (performance.now() - p.lease.takenAt > SEND_AHEAD_MAX_MS || !this.maySend(p.lease)) {
      await this.end(p.lease);
      return null;
    }
    return { lease: p.lease, signed: sameTx(p.tx, tx) ? { raw: p.raw, hash: p.hash } : null };
  }

  /** Hands the nonce back unless a send claimed it; never throws. */
  free(): void {
    if (this.done) return;
    this.done = true;
    void this.prepared.then((p) => (p ? this.end(p.lease) : undefined));
  }
}
