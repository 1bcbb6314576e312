/**
 * Waiting for settlement transactions to be included, without a fixed polling floor.
 *
 * The chain's block rhythm is learned from what this process sees: the local time a new
 * block number is first seen, when the look before was recent enough to make that time
 * accurate (an "anchor"), and the interval between anchors (any two, not only consecutive
 * blocks: a wait usually sees a single block appear). The next block is expected one
 * interval after the last anchored one; looking starts shortly before that (earlier the
 * older the anchor, as the estimate's error adds up per block) and goes on every few
 * milliseconds until it appears. So inclusion is seen within about ten milliseconds of
 * the block at any block time, with a handful of requests per block. Until the rhythm is
 * known the chain is looked at every 25 ms.
 *
 * One watcher per sending key looks for every waiting transaction at once (one JSON-RPC
 * batch: the head's number and each receipt), so concurrent settlements do not multiply
 * the requests. Waits that nobody is held up by (an optimistic payment confirmed after its
 * response, the sweep) are "patient": alone, they are looked for shortly after each block
 * is due rather than every few milliseconds, which keeps that background work off the
 * CPU the answered calls use.
 */

/** How long to sleep between looks while a block is due (and while the rhythm is unknown, a little more). */
const FAST_MS = 8;
/** How long before a block's expected time looking starts (with a fresh anchor). */
const LEAD_MS = 25;
/** A look this soon after the previous one dates a new block accurately. */
const FINE_MS = 2 * FAST_MS + 15;
/** Uncertainty added to the lead per block since the anchor, as a share of the interval. */
const DRIFT_PER_BLOCK = 0.01;
/** Patient waits: how long after a block's expected time to look, and how often while it is late or the rhythm unknown. */
const PATIENT_AFTER_MS = 30;
const PATIENT_EVERY_MS = 100;

/** The block rhythm of one chain as seen from this process. */
export class BlockClock {
  private head = -1;
  private seenAt = 0;
  private lastLook = Number.NEGATIVE_INFINITY;
  /** The last block whose appearance was dated accurately. */
  private anchor: { head: number; at: number } | null = null;
  /** Added to the lead after a block came before its expected window (halved by each accurate sighting). */
  private extraLead = 0;
  interval: number | null = null;

  /** Records a look at the chain's head number at local time `at`. */
  observe(head: number, at: number): void {
    const fine = at - this.lastLook <= FINE_MS;
    this.lastLook = at;
    if (head <= this.head) return;
    const expected = this.expectedAt(head);
    if (fine) {
      this.extraLead /= 2;
      if (this.anchor && head > this.anchor.head) {
        const blocks = head - this.anchor.head;
        const sample = (at - this.anchor.at) / blocks;
        // A sample over several blocks is that much more precise.
        const weight = Math.min(0.8, 0.3 * blocks);
        this.interval = this.interval === null ? sample : (1 - weight) * this.interval + weight * sample;
      }
      this.anchor = { head, at };
    } else if (this.head >= 0 && this.interval !== null && head - this.head >= 2) {
      // Blocks were missed while sleeping until the next one was due: the chain is faster
      // than the rhythm says (it changed, or the estimate came from a slow start). A waiter
      // would otherwise sleep a whole stale interval on every look and never take a fine
      // sample again; the coarse rate of what was missed is an upper bound to start from.
      this.interval = Math.min(this.interval, (at - this.seenAt) / (head - this.head));
    } else if (expected !== null && expected.at > at) {
      // The block was already there at the first look, made before its expected time: the
      // rhythm runs late. Its rate up to now is an upper bound, and looking starts earlier
      // until a block is dated accurately again.
      const a = this.anchor!;
      this.interval = Math.min(this.interval!, (at - a.at) / (head - a.head));
      this.extraLead = Math.min(this.interval / 2, Math.max(10, 2 * this.extraLead));
    }
    this.head = head;
    this.seenAt = at;
  }

  /** When block `head` is expected (local ms) and how long before that to start looking, from the anchor; null without one. */
  private expectedAt(head: number): { at: number; lead: number } | null {
    const a = this.anchor;
    if (this.interval === null || !a || head <= a.head) return null;
    const blocks = head - a.head;
    const lead = LEAD_MS + Math.min(this.interval / 2, DRIFT_PER_BLOCK * blocks * this.interval + this.extraLead);
    return { at: a.at + blocks * this.interval, lead };
  }

  /** When the block after the current head is expected, or null while the rhythm is unknown. */
  private nextDue(): { at: number; lead: number } | null {
    if (this.interval === null || this.head < 0) return null;
    return this.expectedAt(this.head + 1) ?? { at: this.seenAt + this.interval, lead: LEAD_MS + this.interval / 2 };
  }

  /** Milliseconds to wait before the next look at `now`. */
  nextLookIn(now: number): number {
    const due = this.nextDue();
    if (!due) return FAST_MS + 17;
    // Past the expected time (a late block, or several missed): keep looking often.
    const wait = due.at - due.lead - now;
    return wait > FAST_MS ? wait : FAST_MS;
  }

  /** Milliseconds to wait before the next look for a wait nobody is held up by. */
  patientLookIn(now: number): number {
    const due = this.nextDue();
    const wait = due ? due.at + PATIENT_AFTER_MS - now : 0;
    return wait > 0 ? wait : PATIENT_EVERY_MS;
  }
}

/** One look for several transactions: each one's receipt (null while not included, an Error when the node refused the request) and the head's number. */
export type LookMany<R> = (hashes: string[]) => Promise<{ receipts: Array<R | null | Error>; head: number | null }>;

interface Waiter<R> {
  hash: string;
  started: number;
  deadline: number;
  urgent: boolean;
  resolve(r: R): void;
  reject(err: unknown): void;
}

/** Most receipts asked for in one request. */
const MAX_BATCH = 100;

/** Looks for every transaction waited for, on the block clock (see the module comment). */
export class InclusionWatcher<R> {
  private readonly waiters = new Set<Waiter<R>>();
  private running = false;
  private wake: { at: number; timer: ReturnType<typeof setTimeout>; resolve(): void } | null = null;

  constructor(
    readonly clock: BlockClock,
    private readonly look: LookMany<R>,
    /** Called after each look for every transaction still waiting (e.g. to send it again if the node dropped it). */
    private readonly stillWaiting?: (hash: string, startedAt: number) => void,
  ) {}

  /**
   * The receipt of `hash` once included; a TimeoutError after `timeoutMs` (the outcome is
   * then unknown, never "not paid"), or the error of a look the node did not answer.
   * `urgent`: a caller is waiting for the answer (else the wait is patient).
   */
  wait(hash: string, timeoutMs: number, urgent = true): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const now = Date.now();
      this.waiters.add({ hash: hash.toLowerCase(), started: now, deadline: now + timeoutMs, urgent, resolve, reject });
      if (this.running) this.reschedule();
      else void this.run();
    });
  }

  private nextLookAt(now: number): number {
    let urgent = false;
    let deadline = Number.POSITIVE_INFINITY;
    for (const w of this.waiters) {
      urgent ||= w.urgent;
      deadline = Math.min(deadline, w.deadline);
    }
    return Math.min(now + (urgent ? this.clock.nextLookIn(now) : this.clock.patientLookIn(now)), deadline);
  }

  /** A waiter came in while the loop sleeps: wake it earlier if that one needs it. */
  private reschedule(): void {
    const w = this.wake;
    if (!w) return;
    const at = this.nextLookAt(Date.now());
    if (at >= w.at - 1) return;
    clearTimeout(w.timer);
    this.sleepUntil(at, w.resolve);
  }

  private sleepUntil(at: number, resolve: () => void): void {
    const done = () => {
      this.wake = null;
      resolve();
    };
    this.wake = { at, resolve, timer: setTimeout(done, Math.max(0, at - Date.now())) };
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size) {
        const at = this.nextLookAt(Date.now());
        if (at > Date.now()) await new Promise<void>((r) => this.sleepUntil(at, r));
        const now = Date.now();
        for (const w of this.waiters) {
          if (now < w.deadline) continue;
          this.waiters.delete(w);
          w.reject(Object.assign(new Error(`the transaction was not included within ${w.deadline - w.started} ms`), { name: "TimeoutError" }));
        }
        if (!this.waiters.size) break;
        await this.lookOnce();
      }
    } finally {
      this.running = false;
    }
  }

  private async lookOnce(): Promise<void> {
    const looking = [...this.waiters];
    const hashes = [...new Set(looking.map((w) => w.hash))].slice(0, MAX_BATCH);
    let answer: Awaited<ReturnType<LookMany<R>>>;
    try {
      answer = await this.look(hashes);
    } catch (err) {
      // The node did not answer: each of these waits ends as it would have on its own look.
      for (const w of looking) {
        this.waiters.delete(w);
        w.reject(err);
      }
      return;
    }
    if (answer.head !== null) this.clock.observe(answer.head, Date.now());
    const byHash = new Map(hashes.map((h, i) => [h, answer.receipts[i] ?? null]));
    for (const w of looking) {
      const r = byHash.get(w.hash);
      if (r === undefined || r === null) continue;
      this.waiters.delete(w);
      if (r instanceof Error) w.reject(r);
      else w.resolve(r);
    }
    if (!this.stillWaiting) return;
    const since = new Map<string, number>();
    for (const w of this.waiters) since.set(w.hash, Math.min(since.get(w.hash) ?? w.started, w.started));
    for (const [h, started] of since) this.stillWaiting(h, started);
  }
}
