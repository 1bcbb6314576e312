/**
 * Waiting for a settlement transaction to be included, without a fixed polling floor.
 *
 * The chain's block rhythm is learned from what this process sees (the local time each
 * new block number is first seen, when the previous look was recent enough to make that
 * time accurate): a waiter sleeps until shortly before the next block is due and then
 * looks every 20 ms until it appears, so the answer comes within a few tens of
 * milliseconds of the block at any block time, with a handful of requests per block
 * instead of one every 200 ms throughout. Until the rhythm is known it looks every 25 ms.
 */

/** How often to look while a block is due (and while the rhythm is unknown). */
const FAST_MS = 20;
/** How long before a block's expected time looking starts. */
const LEAD_MS = 30;

/** The block rhythm of one chain as seen from this process. */
export class BlockClock {
  private head = -1;
  private seenAt = 0;
  private accurate = false;
  private lastLook = 0;
  interval: number | null = null;

  /** Records a look at the chain's head number at local time `at`. */
  observe(head: number, at: number): void {
    const fine = at - this.lastLook <= 2 * FAST_MS + 10;
    this.lastLook = at;
    if (head <= this.head) return;
    if (this.head >= 0 && this.accurate && fine) {
      const sample = (at - this.seenAt) / (head - this.head);
      this.interval = this.interval === null ? sample : 0.7 * this.interval + 0.3 * sample;
    } else if (this.head >= 0 && this.interval !== null && head - this.head >= 2) {
      // Blocks were missed while sleeping until the next one was due: the chain is faster
      // than the rhythm says (it changed, or the estimate came from a slow start). A waiter
      // would otherwise sleep a whole stale interval on every look and never take a fine
      // sample again; the coarse rate of what was missed is an upper bound to start from.
      this.interval = Math.min(this.interval, (at - this.seenAt) / (head - this.head));
    }
    this.head = head;
    this.seenAt = at;
    this.accurate = fine;
  }

  /** Milliseconds to wait before the next look at `now`. */
  nextLookIn(now: number): number {
    if (this.interval === null || this.head < 0) return FAST_MS + 5;
    const since = now - this.seenAt;
    // Past the expected time (a late block, or several missed): keep looking often.
    const due = this.interval - LEAD_MS - since;
    return due > FAST_MS ? due : FAST_MS;
  }
}

/** One look at the chain: the receipt if the transaction is included, and the head's number. */
export type Look<R> = () => Promise<{ receipt: R | null; head: number | null }>;

/**
 * Looks until the receipt appears or `timeoutMs` passes (then throws a TimeoutError, so
 * the outcome counts as unknown, never as "not paid").
 */
export async function awaitInclusion<R>(clock: BlockClock, look: Look<R>, timeoutMs: number): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wait = Math.min(clock.nextLookIn(Date.now()), deadline - Date.now());
    if (wait <= 0) throw Object.assign(new Error(`the transaction was not included within ${timeoutMs} ms`), { name: "TimeoutError" });
    await new Promise((r) => setTimeout(r, wait));
    const { receipt, head } = await look();
    if (head !== null) clock.observe(head, Date.now());
    if (receipt) return receipt;
  }
}
