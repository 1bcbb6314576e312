/**
 * Transaction nonces of the facilitator key, allocated through the database every
 * instance shares (PostgreSQL, or the embedded PGlite of a single instance), so any
 * number of instances can send with one key without colliding:
 *
 * - a nonce is max(the shared counter, the chain's pending nonce), taken and advanced in
 *   one statement: concurrent takers, in this process or another, never get the same one;
 * - the chain's pending nonce covers transactions sent by anyone else with the key; when
 *   another sender got there first anyway the node answers `nonce too low` / `replacement
 *   transaction underpriced` and the caller takes a new nonce (see `isNonceConflict`);
 * - a nonce whose transaction never reached the node is recorded as a hole and handed out
 *   again first, so later transactions are not stuck behind a gap; one whose transaction
 *   may or may not have arrived is recorded too (reusing it is harmless: if the first one
 *   did arrive, the node refuses the second as a nonce conflict);
 * - a gap nobody recorded (a process that died between taking a nonce and sending) is
 *   assumed when the counter has been ahead of the chain for a few seconds while the
 *   node holds no pending transaction of the key: the counter then restarts at the chain.
 */
import { getDbHandle } from "@/lib/db/client";

/** How long the counter may run ahead of an idle chain before a gap is assumed. */
const GAP_AFTER_SECONDS = 3;

const TAKE = `WITH stale AS (
    DELETE FROM evm_nonce_holes WHERE address = $1 AND nonce < $2::bigint
  ), hole AS (
    DELETE FROM evm_nonce_holes
     WHERE address = $1 AND nonce = (SELECT min(nonce) FROM evm_nonce_holes WHERE address = $1 AND nonce >= $2::bigint)
    RETURNING nonce
  ), counter AS (
    INSERT INTO evm_sender_nonces AS s (address, next_nonce, ahead_since, updated_at)
    SELECT $1, $2::bigint + 1, NULL, now() WHERE NOT EXISTS (SELECT 1 FROM hole)
    ON CONFLICT (address) DO UPDATE SET
      next_nonce = CASE
        WHEN s.next_nonce > $2::bigint AND $3::boolean AND s.ahead_since < now() - make_interval(secs => ${GAP_AFTER_SECONDS}) THEN $2::bigint
        ELSE GREATEST(s.next_nonce, $2::bigint) END + 1,
      ahead_since = CASE
        WHEN s.next_nonce > $2::bigint AND $3::boolean AND s.ahead_since < now() - make_interval(secs => ${GAP_AFTER_SECONDS}) THEN NULL
        WHEN s.next_nonce > $2::bigint THEN COALESCE(s.ahead_since, now())
        ELSE NULL END,
      updated_at = now()
    RETURNING next_nonce - 1 AS nonce
  )
  SELECT nonce::text AS nonce FROM hole UNION ALL SELECT nonce::text AS nonce FROM counter`;

/** Gives a nonce back: the counter steps back when it was the last one taken, else it becomes a hole. */
const GIVE_BACK = `WITH back AS (
    UPDATE evm_sender_nonces SET next_nonce = $2::bigint, updated_at = now() WHERE address = $1 AND next_nonce = $2::bigint + 1 RETURNING 1
  )
  INSERT INTO evm_nonce_holes (address, nonce) SELECT $1, $2::bigint WHERE NOT EXISTS (SELECT 1 FROM back)
  ON CONFLICT DO NOTHING`;

/** What the chain's node says about the key's nonces. */
export interface ChainNonces {
  /** Next nonce counting the node's pending transactions. */
  pending: number;
  /** Next nonce counting mined transactions only (equal to `pending` when nothing of ours waits). */
  latest: number;
}

/** Nonces of one sending key, shared through the database. */
export class SharedNonces {
  private chain: { at: number; v: Promise<ChainNonces> } | null = null;

  constructor(
    private readonly address: string,
    private readonly readChain: () => Promise<ChainNonces>,
    /** How long a read of the chain's nonces is reused (the counter covers our own sends meanwhile). */
    private readonly chainTtlMs = 500,
  ) {}

  private chainNonces(fresh: boolean): Promise<ChainNonces> {
    if (fresh || !this.chain || Date.now() - this.chain.at > this.chainTtlMs) {
      const v = this.readChain();
      this.chain = { at: Date.now(), v };
      v.catch(() => (this.chain = null));
    }
    return this.chain.v;
  }

  /** The next nonce to send with; `fresh` re-reads the chain first (after a nonce conflict). */
  async take(fresh = false): Promise<number> {
    const c = await this.chainNonces(fresh);
    const h = await getDbHandle();
    const rows = await h.query<{ nonce: string }>(TAKE, [this.address, c.pending, c.pending === c.latest]);
    if (rows.length !== 1) throw new Error("no nonce allocated");
    return Number(rows[0]!.nonce);
  }

  /** The transaction sent with `nonce` did not (or may not) reach the node: hand the nonce out again. */
  async giveBack(nonce: number): Promise<void> {
    this.chain = null;
    const h = await getDbHandle();
    await h.query(GIVE_BACK, [this.address, nonce]);
  }
}

/** A node's refusal that means the nonce was already used or is taken by a pending transaction. */
export function isNonceConflict(message: string): boolean {
  return /nonce too low|nonce too high|nonce has already been used|replacement transaction underpriced|replacement.*underpriced|already known|known transaction|same nonce/i.test(message);
}

/**
 * A node's refusal that means a lower nonce of the key has not reached it yet: usually a
 * concurrent settlement that took the nonce just before and is a moment behind on the
 * wire (nodes that do not queue future nonces, e.g. Hardhat when automining, refuse
 * instead). The same nonce is right once that one arrives: wait and resend, never skip
 * ahead (every further nonce would be too high as well).
 */
export function isNonceGap(message: string): boolean {
  return /nonce too high/i.test(message);
}

/** Waits before resending a transaction refused as a nonce gap: 20 ms, doubling, at most 400 ms. */
export const gapWait = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(400, 20 * 2 ** attempt)));

/** How long a settlement waits for a gap below its nonce to close (longer than the counter's gap reset, GAP_AFTER_SECONDS). */
export const GAP_WAIT_MS = (GAP_AFTER_SECONDS + 1) * 1000;
