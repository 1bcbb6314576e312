/**
 * TTL cache with single-flight: while a value is being fetched, every other caller
 * for the same key waits on the same promise, so N concurrent requests cause one
 * upstream request. Failures are not cached. Size is bounded (oldest entries go).
 */
import { env } from "@/lib/config/env";

interface Entry {
  value: unknown;
  expires: number;
}

const KEY = Symbol.for("echo.cache");
interface Store {
  values: Map<string, Entry>;
  inflight: Map<string, Promise<unknown>>;
}
const MAX_ENTRIES = 5000;

function store(): Store {
  const g = globalThis as { [KEY]?: Store };
  g[KEY] ??= { values: new Map(), inflight: new Map() };
  return g[KEY];
}

/** Returns the cached value for `key`, or runs `fn` once for all concurrent callers. */
export async function cached<T>(key: string, ttlMs: number, fn: () => Promise<T>): Promise<T> {
  const s = store();
  const now = Date.now();
  const hit = s.values.get(key);
  if (hit && hit.expires > now) return hit.value as T;
  const pending = s.inflight.get(key);
  if (pending) return pending as Promise<T>;
  const p = (async () => {
    try {
      const value = await fn();
      if (ttlMs > 0 && !env().CACHE_DISABLED) {
        if (s.values.size >= MAX_ENTRIES) {
          const oldest = s.values.keys().next().value;
          if (oldest !== undefined) s.values.delete(oldest);
        }
        s.values.delete(key);
        s.values.set(key, { value, expires: Date.now() + ttlMs });
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
