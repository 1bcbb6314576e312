/**
 * TTL cache with single-flight: while a value is being fetched, every other caller
 * for the same key waits on the same promise, so N concurrent requests cause one
 * upstream request. Failures are not cached. Size is bounded (oldest entries go).
 *
 * A value's age counts from when its fetch STARTED, so a TTL is a bound on how old the
 * data served can be, however long the fetch took. A caller with a tighter freshness
 * budget than the key's TTL passes `maxAgeMs` and skips older values.
 */
import { env } from "@/lib/config/env";
import { processState } from "@/lib/process-state";

interface Entry {
  value: unknown;
  /** When the fetch that produced the value started (ms). */
  fetchedAt: number;
  expires: number;
}

export interface CacheOptions {
  /** Ignore a cached value older than this (ms); the fresh value replaces it. */
  maxAgeMs?: number;
}

interface Store {
  values: Map<string, Entry>;
  inflight: Map<string, Promise<unknown>>;
}
const MAX_ENTRIES = 5000;

function store(): Store {
  return processState<Store>("cache", () => ({ values: new Map(), inflight: new Map() }));
}

/**
 * Returns the cached value for `key`, or runs `fn` once for all concurrent callers. A
 * fetch already in flight is always joined: its data is being read now, so it is as
 * fresh as a new one would be.
 */
export async function cached<T>(key: string, ttlMs: number, fn: () => Promise<T>, opts: CacheOptions = {}): Promise<T> {
  const s = store();
  const now = Date.now();
  const hit = s.values.get(key);
  if (hit && hit.expires > now && (opts.maxAgeMs === undefined || now - hit.fetchedAt <= opts.maxAgeMs)) return hit.value as T;
  const pending = s.inflight.get(key);
  if (pending) return pending as Promise<T>;
  const p = (async () => {
    try {
      const fetchedAt = Date.now();
      const value = await fn();
      if (ttlMs > 0 && !env().CACHE_DISABLED) {
        if (s.values.size >= MAX_ENTRIES) {
          const oldest = s.values.keys().next().value;
          if (oldest !== undefined) s.values.delete(oldest);
        }
        s.values.delete(key);
        s.values.set(key, { value, fetchedAt, expires: fetchedAt + ttlMs });
      }
      return value;
    } finally {
      s.inflight.delete(key);
    }
  })();
  s.inflight.set(key, p);
  return p;
}

/** Drops every cached value (tests). */
export function clearCache(): void {
  store().values.clear();
}
