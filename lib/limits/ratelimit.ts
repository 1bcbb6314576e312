/**
 * Fixed-window rate limits. With REDIS_URL, @upstash/ratelimit runs on that Redis
 * (shared by every instance); with UPSTASH_REDIS_REST_URL/TOKEN instead, on Upstash's
 * REST Redis through @upstash/redis (HTTP per command, no connection to keep: the
 * serverless shape); without either, counters live in this process (the embedded
 * default runs a single instance). All answer the same `LimitResult`.
 *
 * When Redis fails (not connected, an error, or no answer within 1 s) the request is
 * counted by this process's in-process limiter instead, for every policy: the fallback
 * costs nothing, so failing open would buy no availability while it would make free-key
 * minting unlimited (the key table farmed) for as long as Redis is down. During an
 * outage each instance counts on its own, so one client gets at most the limit per
 * instance; the outage and the recovery are logged once each.
 */
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis as IORedis } from "ioredis";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { policies, type Policy } from "@/lib/limits/policies";
import { upstashAdapter, type UpstashRedisLike } from "@/lib/limits/redis";
import { processState } from "@/lib/process-state";
import { countRateLimited } from "@/lib/metrics";

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

// ioredis states in which a command cannot succeed soon: skip Redis instead of
// waiting for the 1 s timeout on every request of an outage.
const REDIS_DOWN = new Set(["reconnecting", "close", "end"]);

/** A Redis @upstash/ratelimit can run on, and whether it is known to be down right now. */
interface Store {
  redis: UpstashRedisLike;
  /** Why no command can succeed soon, or null (REST has no connection state: always null). */
  down(): string | null;
}

class UpstashLimiter implements Limiter {
  private limiters = new Map<string, Ratelimit>();
  private degraded = false;
  constructor(
    private readonly store: Store,
    private readonly fallback: Limiter,
  ) {}

  async limit(policy: Policy, key: string): Promise<LimitResult> {
    const down = this.store.down();
    if (down) return this.fallBack(policy, key, down);
    let r: Awaited<ReturnType<Ratelimit["limit"]>>;
    try {
      r = await this.limiterFor(policy).limit(key);
    } catch (err) {
      return this.fallBack(policy, key, (err as Error).message);
    }
    // Upstash answers a timeout with success: true (fail open); count locally instead.
    if (r.reason === "timeout") return this.fallBack(policy, key, "no answer within 1 s");
    if (this.degraded) {
      this.degraded = false;
      log.notice("ratelimit.store_recovered", { policy: policy.name });
    }
    return { success: r.success, limit: r.limit, remaining: Math.max(0, r.remaining), reset: r.reset };
  }

  private fallBack(policy: Policy, key: string, reason: string): Promise<LimitResult> {
    if (!this.degraded) {
      this.degraded = true;
      log.error("ratelimit.store_unavailable", { policy: policy.name, reason, fallback: "in-process counters" });
    }
    return this.fallback.limit(policy, key);
  }

  private limiterFor(policy: Policy): Ratelimit {
    let rl = this.limiters.get(policy.name);
    if (!rl) {
      rl = new Ratelimit({
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        redis: this.store.redis as any,
        limiter: Ratelimit.fixedWindow(policy.limit, `${policy.windowSeconds} s`),
        prefix: `${env().REDIS_KEY_PREFIX}:rl:${policy.name}`,
        analytics: false,
        timeout: 1000,
      });
      this.limiters.set(policy.name, rl);
    }
    return rl;
  }
}

function limiter(): Promise<Limiter> {
  return processState("limiter", async () => {
    const cfg = env();
    const url = cfg.REDIS_URL;
    if (!url && cfg.UPSTASH_REDIS_REST_URL) {
      const { Redis } = await import("@upstash/redis");
      // No retries: the 1 s limiter timeout and the in-process fallback handle outages.
      const rest = new Redis({ url: cfg.UPSTASH_REDIS_REST_URL, token: cfg.UPSTASH_REDIS_REST_TOKEN ?? "", retry: false, enableTelemetry: false });
      return new UpstashLimiter({ redis: rest as unknown as UpstashRedisLike, down: () => null }, new MemoryLimiter());
    }
    if (!url) return new MemoryLimiter();
    const { Redis } = await import("ioredis");
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 1000, enableOfflineQueue: true, lazyConnect: false });
    // ioredis reports every failed reconnection (every 2 s during an outage): log the
    // first of each outage only.
    let reported = false;
    redis.on("error", (err) => {
      if (!reported) log.warn("redis.error", { message: err.message });
      reported = true;
    });
    redis.on("ready", () => (reported = false));
    const down = () => (REDIS_DOWN.has(redis.status) ? `redis ${redis.status}` : null);
    return new UpstashLimiter({ redis: upstashAdapter(redis as IORedis), down }, new MemoryLimiter());
  });
}

/** Counts one request for `key` under the named policy (a refusal also in the metrics). */
export async function rateLimit(name: keyof ReturnType<typeof policies>, key: string): Promise<LimitResult> {
  const policy = policies()[name];
  const result = await (await limiter()).limit(policy, key);
  if (!result.success) countRateLimited(policy.name);
  return result;
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
