/**
 * Transaction nonces of the facilitator key, allocated through the database every
 * instance shares (PostgreSQL, or the embedded PGlite of a single instance), so any
 * number of instances can send with one key without colliding.
 *
 * Every nonce handed out is a lease (a row of evm_nonce_leases) until the chain has mined
 * it, and a nonce is handed out twice only when no transaction can still arrive with it:
 *
 * - take(): max(the shared counter, the chain's pending nonce), advanced in one statement,
 *   so concurrent takers in any process get distinct nonces; or a nonce the chain shows
 *   missing whose lease is over (below);
 * - its holder sends with it only within `sendWindowMs` of taking it, each request bounded
 *   by `sendTimeoutMs`: a lease older than `expirySeconds` has no live sender;
 * - when the node did not accept the transaction, the holder says why (end()): "free" (the
 *   node refused it: unused), "released" (no answer: it may have arrived) or "used"
 *   (another transaction has the nonce);
 * - a nonce is reused only after reading the chain fresh (never a cached read): a free one
 *   at or above the node's pending nonce (the node refused it, so nothing there has it),
 *   or one that IS the node's pending nonce (the node has no transaction with it now) and
 *   whose holder released it, or whose lease expired (its holder died, or the node dropped
 *   the transaction);
 * - transactions waiting above a gap nobody reuses are unblocked by claimGap(): the
 *   caller (a settlement waiting for its receipt, or the sweep) sends a filler with the
 *   missing nonce.
 *
 * The counter never moves back: there is no guess that nonces "were lost" (under steady
 * load the counter is always ahead of the chain); what the chain has not got is repaired
 * nonce by nonce, only with the chain's fresh word that it is missing.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { getDbHandle } from "@/lib/db/client";
import { log } from "@/lib/log";
import type { LockNonceTake } from "@/lib/payments/ledger";
import type { TakeArgs, TakeRow, TakeStatement } from "@/lib/payments/x402/take-statement";

export type { TakeArgs, TakeRow, TakeStatement };

/** What the chain's node says about the key's nonces. */
export interface ChainNonces {
  /** Next nonce counting the node's pending transactions. */
  pending: number;
  /** Next nonce counting mined transactions only. */
  latest: number;
}

/** A nonce taken from the shared counter; only its holder (`token`) may end it. */
export interface Lease {
  nonce: number;
  token: string;
  /** performance.now() when it was taken: the holder's send window starts here. */
  takenAt: number;
}

/** How a lease whose transaction the node did not accept ends (see the module comment). */
export type LeaseEnd = "free" | "released" | "used";

export interface LeaseTiming {
  /** How long after taking a nonce its holder may start a send with it. */
  sendWindowMs: number;
  /** The longest a send request may take before the holder gives up on its answer. */
  sendTimeoutMs: number;
}

/** Margin on top of the send window and the send timeout before a lease counts as expired. */
const EXPIRY_MARGIN_MS = 3000;
/**
 * How long a nonce released without an answer waits before it is reused, on top of the
 * request's own timeout: a node that received the request but processes it late (an
 * overloaded one) has taken the transaction by then, and the fresh read shows it.
 */
export const RELEASE_GRACE_MS = 1000;

/**
 * Takes a nonce: evm_take_nonce (prisma/migrations/20261125000000_nonce_take_in_lock). $1
 * address, $2 the node's pending nonce, $3 its latest, $4 the chain read is fresh, $5 the
 * new holder's token, $6 lease expiry (s), $7 release grace (s), $8 may wait. One
 * statement: max(the shared counter, the node's pending nonce) advanced, or a reusable
 * nonce claimed. A row may be reused only with a fresh read: free at or above the node's
 * pending nonce, or the pending nonce itself when released over the grace ago or held or
 * used past the expiry. Without a fresh read, a reusable row only makes it answer
 * `need_fresh` (nothing taken). When the node's pending nonce was released moments ago
 * (within the grace) and the caller may wait, it answers `wait_ms` (nothing taken): taking
 * the next one would only queue it behind that gap.
 */
const TAKE = `SELECT nonce, need_fresh, wait_ms FROM evm_take_nonce($1, $2::bigint, $3::bigint, $4, $5, $6, $7, $8)`;


/**
 * Claims the node's pending nonce $2 (read fresh) for a filler when transactions of the key
 * wait above it (a lease above it held or used: sent or about to be) and its lease is over.
 * Nothing waiting above, the gap costs nothing: the next settlement's take reuses the
 * nonce (TAKE), where a filler would be a zero-value transaction paid for nothing (seen
 * when the sweep filled the nonce of a send that never reached the node while the same
 * payment, presented again, was about to reuse it: it then took the next nonce). $3 latest, $4 token, $5 expiry (s), $6 release
 * grace (s). A pending nonce below the counter without any row (a transaction the node
 * had and then dropped, or a gap from before leases existed) gets a row now, so it is
 * claimed once it stays missing for the expiry.
 */
const CLAIM_GAP = `WITH mined AS (
    DELETE FROM evm_nonce_leases WHERE address = $1 AND nonce < $3::bigint
  ), noticed AS (
    INSERT INTO evm_nonce_leases (address, nonce, state, since)
    SELECT $1, $2::bigint, 'held', now() FROM evm_sender_nonces WHERE address = $1 AND next_nonce > $2::bigint
    ON CONFLICT (address, nonce) DO NOTHING
  )
  UPDATE evm_nonce_leases SET state = 'held', token = $4, since = now()
   WHERE address = $1 AND nonce = $2::bigint
     AND (state = 'free' OR (state = 'released' AND since < now() - make_interval(secs => $6::double precision))
          OR (state IN ('held', 'used') AND since < now() - make_interval(secs => $5::double precision)))
     AND EXISTS (SELECT 1 FROM evm_nonce_leases w WHERE w.address = $1 AND w.nonce > $2::bigint AND w.state IN ('held', 'used'))
  RETURNING nonce::text AS nonce`;

const END = `UPDATE evm_nonce_leases SET state = $4, token = NULL, since = now() WHERE address = $1 AND nonce = $2::bigint AND token = $3`;

/** Nonces of one sending key, shared through the database. */
export class SharedNonces {
  private chain: { at: number; v: Promise<ChainNonces> } | null = null;
  /** The last answer the chain gave, whatever its age (see take()'s `anyRead`). */
  private lastRead: ChainNonces | null = null;
  /** The highest nonce this process took, and how many guesses wait for their take (see guessNext()). */
  private lastTaken = -1;
  private guessing = 0;

  constructor(
    /** The key's id in the tables: `<chain id>:<address>`. */
    readonly key: string,
    private readonly readChain: () => Promise<ChainNonces>,
    readonly timing: LeaseTiming,
    /** How long a read of the chain's nonces is reused for taking from the counter (never for reuse). */
    private readonly chainTtlMs = 500,
  ) {}

  /** Seconds after which a lease has no live sender (its holder's window and last request are over). */
  get expirySeconds(): number {
    return (this.timing.sendWindowMs + this.timing.sendTimeoutMs + EXPIRY_MARGIN_MS) / 1000;
  }

  /** Whether the chain's nonces held are recent enough to take a nonce with (chainNonces(false) would not read). */
  chainFresh(): boolean {
    return !!this.chain && Date.now() - this.chain.at <= this.chainTtlMs;
  }

  /** Holds nonces read by the caller (a batch sent ahead of a settlement) as if chainNonces(false) had read them. */
  prime(v: Promise<ChainNonces>): void {
    const held = { at: Date.now(), v };
    this.chain = held;
    this.remember(v);
    v.catch(() => {
      if (this.chain === held) this.chain = null;
    });
  }

  private remember(v: Promise<ChainNonces>): void {
    v.then(
      (c) => (this.lastRead = c),
      () => undefined,
    );
  }

  /** The chain's nonces; `fresh` reads them now (and refreshes what others reuse). */
  chainNonces(fresh: boolean): Promise<ChainNonces> {
    if (fresh || !this.chain || Date.now() - this.chain.at > this.chainTtlMs) {
      const v = this.readChain();
      this.chain = { at: Date.now(), v };
      this.remember(v);
      v.catch(() => (this.chain = null));
    }
    return this.chain.v;
  }

  /**
   * The next nonce to send with; `fresh` reads the chain first (after a nonce conflict).
   * `anyRead`: take with the chain's last answer whatever its age when there is one (a
   * nonce taken ahead, during a payment's verification, must not wait for a read). That is
   * safe: the counter is ahead of the chain under load, and where it is not (another sender
   * used the key meanwhile) the node refuses the nonce as used and the send takes a new
   * one, read fresh; reuse always reads fresh (`need_fresh`). `first`: the statement that
   * runs the first try of the take (see TakeStatement).
   */
  async take(fresh = false, anyRead = false, first?: TakeStatement): Promise<Lease> {
    const token = randomUUID();
    for (let waits = 0; ; ) {
      const c = !fresh && anyRead && this.lastRead ? this.lastRead : await this.chainNonces(fresh);
      const args: TakeArgs = [this.key, c.pending, c.latest, fresh, token, this.expirySeconds, RELEASE_GRACE_MS / 1000, waits < 3];
      let rows: TakeRow[];
      if (first) {
        // `first` runs only once: a take that answered need_fresh or wait_ms took nothing and goes on with TAKE alone.
        rows = await first(args);
        first = undefined;
      } else {
        const h = await getDbHandle();
        rows = await h.query<TakeRow>(TAKE, [...args], { name: "evm_nonce_take" });
      }
      const row = rows[0];
      if (row?.need_fresh && !fresh) {
        fresh = true;
        continue;
      }
      if (!row?.nonce && row?.wait_ms != null) {
        // The node's next nonce was released a moment ago: it is reused once its grace is
        // over (if the chain still shows it missing) rather than queueing behind it.
        waits++;
        await new Promise((r) => setTimeout(r, Math.max(10, row.wait_ms!)));
        continue;
      }
      if (!row?.nonce) throw new Error("no nonce allocated");
      return this.leaseOf(Number(row.nonce), token);
    }
  }

  private leaseOf(nonce: number, token: string): Lease {
    if (nonce > this.lastTaken) this.lastTaken = nonce;
    return { nonce, token, takenAt: performance.now() };
  }

  /**
   * A guess of the nonce the take under way gives: the next after the highest this process
   * took, past those guessed for takes still under way (at least the chain's pending
   * nonce). Right while no other sender takes nonces of the key meanwhile; a transaction
   * signed with it before the take answers is used only if the take gives that very nonce
   * (KeySender.sendAhead). guessDone() once that take answered (or failed). Null before the
   * chain was read.
   */
  guessNext(): number | null {
    if (!this.lastRead) return null;
    return Math.max(this.lastTaken + 1 + this.guessing++, this.lastRead.pending);
  }

  guessDone(): void {
    if (this.guessing > 0) this.guessing--;
  }

  /**
   * A take for a nonce needed within moments (take(false, true)) run by an optimistic
   * payment's lock, in the same statement (lib/payments/ledger.ts, lockPayment: the
   * arguments it passes on to evm_take_nonce, a chain read of any age, never fresh, never
   * waiting, and what to do with the answer), with the lease it gives; null when no
   * chain read is held yet (the take must read first: take() then). A take that needs a
   * fresh read, or found the node's next nonce just released, took nothing: the lease then
   * comes from take() on its own. The lease is null when the statement took nothing.
   */
  takeInLock(): { take: LockNonceTake; lease: Promise<Lease | null> } | null {
    const c = this.lastRead;
    if (!c) return null;
    const token = randomUUID();
    let take!: LockNonceTake;
    const lease = new Promise<Lease | null>((resolve, reject) => {
      take = {
        args: [this.key, c.pending, c.latest, token, this.expirySeconds, RELEASE_GRACE_MS / 1000],
        took: (row) => {
          if (!row) resolve(null);
          else if (row.nonce) resolve(this.leaseOf(Number(row.nonce), token));
          else resolve(this.take(false, true));
        },
        failed: reject,
      };
    });
    return { take, lease };
  }

  /** Whether the holder may still start a send with its lease. */
  maySend(lease: Lease): boolean {
    return performance.now() - lease.takenAt <= this.timing.sendWindowMs;
  }

  /**
   * Ends a lease whose transaction the node did not accept (see LeaseEnd). A failure is
   * logged, not thrown: the lease then stays held and expires (expirySeconds), after which
   * the nonce is repaired like a dead holder's.
   */
  async end(lease: Lease, how: LeaseEnd): Promise<void> {
    if (how !== "used") this.chain = null;
    try {
      const h = await getDbHandle();
      await h.query(END, [this.key, lease.nonce, lease.token, how]);
    } catch (err) {
      log.error("settlement.nonce_end_failed", { sender: this.key, nonce: lease.nonce, end: how, message: (err as Error).message });
    }
  }

  /**
   * The node's pending nonce, read fresh, as a lease for a filler transaction when it is a
   * gap below the key's other transactions whose lease is over; null otherwise.
   */
  async claimGap(): Promise<Lease | null> {
    const c = await this.chainNonces(true);
    const token = randomUUID();
    const h = await getDbHandle();
    const rows = await h.query<{ nonce: string }>(CLAIM_GAP, [this.key, c.pending, c.latest, token, this.expirySeconds, RELEASE_GRACE_MS / 1000]);
    return rows[0] ? { nonce: Number(rows[0].nonce), token, takenAt: performance.now() } : null;
  }
}

/**
 * The node refused the transaction because another one has its nonce: mined (`nonce too
 * low`) or pending with a fee ours does not beat by enough (`underpriced`).
 */
export function isNonceUsed(message: string): boolean {
  return /nonce too low|nonce has already been used|replacement transaction underpriced|replacement.*underpriced|same nonce/i.test(message);
}

/** The node already has this very transaction (an earlier send of it arrived). */
export function isAlreadyKnown(message: string): boolean {
  return /already known|known transaction|already imported/i.test(message);
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
