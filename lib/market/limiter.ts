/**
 * Burst bound for one upstream provider, shared by every call to it: at most
 * `concurrency()` requests in flight, and a pause every caller honours after the
 * provider answered 429 with `Retry-After` (nobody contacts it again before then).
 * A pause longer than `maxWaitMs` is not waited out: callers fail at once, without a
 * request, so a long ban never holds a paid call open.
 *
 * Clocks use `performance.now()`: tests freeze `Date`, and a pause must still end.
 */
import { UpstreamError } from "@/lib/market/upstream-error";
import { processState } from "@/lib/process-state";

export interface LimiterOptions {
  /** Provider name (for errors). */
  provider: string;
  /** Requests allowed in flight at once (read on every acquire, so config changes apply). */
  concurrency: () => number;
  /** Longest pause a caller waits out; a longer Retry-After fails calls at once. */
  maxWaitMs: number;
  /** Pause used when a 429 carries no Retry-After. */
  defaultWaitMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class UpstreamLimiter {
  readonly opts: LimiterOptions;
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private pausedUntil = 0;

  constructor(opts: LimiterOptions) {
    this.opts = opts;
  }

  /** Runs `fn` within the concurrency bound, after any pause in force. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      await this.waitOutPause();
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Stops every caller from contacting the provider for `ms` (a Retry-After). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, performance.now() + ms);
  }

  private async acquire(): Promise<void> {
    if (this.active < Math.max(1, this.opts.concurrency())) {
      this.active++;
      return;
    }
    // release() hands its slot straight to the next waiter, so `active` stays counted.
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }

  private async waitOutPause(): Promise<void> {
    for (;;) {
      const wait = this.pausedUntil - performance.now();
      if (wait <= 0) return;
      if (wait > this.opts.maxWaitMs) {
        const s = Math.ceil(wait / 1000);
        throw new UpstreamError(this.opts.provider, "rate_limited", `rate limited: asked to retry after ${s} s, longer than the ${this.opts.maxWaitMs / 1000} s this service waits (not contacted)`, 429, {
          note: `rate limited (HTTP 429), retry after ${s} s`,
          retryAfterMs: wait,
        });
      }
      await sleep(wait);
    }
  }
}

const limiters = () => processState("upstream-limiters", () => new Map<string, UpstreamLimiter>());

/**
 * The one limiter of a provider in this process, held as process-wide state (as the
 * cache is) so route bundles that each load the adapter module still share one bound.
 */
export function sharedLimiter(opts: LimiterOptions): UpstreamLimiter {
  const all = limiters();
  let l = all.get(opts.provider);
  if (!l) {
    l = new UpstreamLimiter(opts);
    all.set(opts.provider, l);
  }
  return l;
}

/** Forgets every limiter's pause and queue (tests: one test's 429 must not pause the next). */
export function resetLimiters(): void {
  limiters().clear();
}
