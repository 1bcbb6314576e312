/**
 * Fixed-window rate limits. With REDIS_URL, @upstash/ratelimit runs on that Redis
 * (shared by every instance); without it, counters live in this process (the embedded
 * default runs a single instance). Both answer the same `LimitResult`.
 *
 * If Redis does not answer within 1 s the request is allowed (fail open) and the event
 * is logged: these limits protect free endpoints, and an outage of the limiter must not
 * take the service down.
 */
import { Ratelimit } from "@upstash/ratelimit";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { policies, type Policy } from "@/lib/limits/policies";
import { upstashAdapter } from "@/lib/limits/redis";

export interface LimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Window end, ms since epoch. */
  reset: number;
}

interface Limiter {
  limit(policy: Policy, key: string): Promise<LimitResult>;
}

class MemoryLimiter implements Limiter {
  private windows = new Map<string, { start: number; count: number }>();
  async limit(policy: Policy, key: string): Promise<LimitResult> {
    const windowMs = policy.windowSeconds * 1000;
    const now = Date.now();
    const start = Math.floor(now / windowMs) * windowMs;
    const id = `${policy.name}:${key}`;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(id, w);
      if (this.windows.size > 100_000) this.sweep(now);
    }
    w.count++;
    return { success: w.count <= policy.limit, limit: policy.limit, remaining: Math.max(0, policy.limit - w.count), reset: start + windowMs };
  }
  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.start + 86_400_000 < now) this.windows.delete(k);
  }
}

class UpstashLimiter implements Limiter {
  private limiters = new Map<string, Ratelimit>();
  constructor(private readonly redis: ReturnType<typeof upstashAdapter>) {}
  async limit(policy: Policy, key: string): Promise<LimitResult> {
    let rl = this.limiters.get(policy.name);
    if (!rl) {
      rl = new Ratelimit({
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        redis: this.redis as any,
        limiter: Ratelimit.fixedWindow(policy.limit, `${policy.windowSeconds} s`),
        prefix: `${env().REDIS_KEY_PREFIX}:rl:${policy.name}`,
        analytics: false,
        timeout: 1000,
      });
      this.limiters.set(policy.name, rl);
    }
    const r = await rl.limit(key);
    if (r.reason === "timeout") log.warn("ratelimit.redis_timeout", { policy: policy.name });
    return { success: r.success, limit: r.limit, remaining: Math.max(0, r.remaining), reset: r.reset };
  }
}

const KEY = Symbol.for("echo.limiter");
type Holder = { [KEY]?: Promise<Limiter> };

function limiter(): Promise<Limiter> {
  const g = globalThis as Holder;
  g[KEY] ??= (async () => {
    const url = env().REDIS_URL;
    if (!url) return new MemoryLimiter();
    const { Redis } = await import("ioredis");
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 1000, enableOfflineQueue: true, lazyConnect: false });
    redis.on("error", (err) => log.warn("redis.error", { message: err.message }));
    return new UpstashLimiter(upstashAdapter(redis));
  })();
  return g[KEY];
}

/** Counts one request for `key` under the named policy. */
export async function rateLimit(name: keyof ReturnType<typeof policies>, key: string): Promise<LimitResult> {
  const policy = policies()[name];
  return (await limiter()).limit(policy, key);
}

/** Standard RateLimit headers (IETF draft) plus Retry-After when refused. */
export function rateLimitHeaders(r: LimitResult, windowSeconds: number): Record<string, string> {
  const resetIn = Math.max(0, Math.ceil((r.reset - Date.now()) / 1000));
  const h: Record<string, string> = {
    "RateLimit-Limit": String(r.limit),
    "RateLimit-Remaining": String(r.remaining),
    "RateLimit-Reset": String(resetIn),
    "RateLimit-Policy": `${r.limit};w=${windowSeconds}`,
  };
  if (!r.success) h["Retry-After"] = String(Math.max(1, resetIn));
  return h;
}
