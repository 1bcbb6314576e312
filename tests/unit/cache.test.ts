/**
 * The TTL cache bounds the age of what it serves: a value's age counts from when its
 * fetch started, and a caller with a tighter budget (`maxAgeMs`) skips older values.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cached, clearCache } from "@/lib/market/cache";

const T0 = Date.UTC(2026, 0, 1);

beforeEach(() => {
  clearCache();
  vi.useFakeTimers({ toFake: ["Date"], now: T0 });
});
afterEach(() => vi.useRealTimers());

/** A fetch that records when it ran and takes `ms` of (fake) time. */
function source(ms = 0) {
  const calls: number[] = [];
  const fn = async () => {
    const started = Date.now();
    calls.push(started);
    vi.setSystemTime(started + ms);
    return started;
  };
  return { calls, fn };
}

describe("cached", () => {
  it("serves a value until its TTL, counted from the start of the fetch", async () => {
    const s = source(3_000); // the fetch takes 3 s
    expect(await cached("k", 10_000, s.fn)).toBe(T0);
    vi.setSystemTime(T0 + 9_999);
    expect(await cached("k", 10_000, s.fn)).toBe(T0);
    vi.setSystemTime(T0 + 10_000); // 10 s after the read began, though only 7 s after it ended
    expect(await cached("k", 10_000, s.fn)).toBe(T0 + 10_000);
    expect(s.calls).toHaveLength(2);
  });

  it("skips a cached value older than maxAgeMs and keeps the fresh one for others", async () => {
    const s = source();
    await cached("k", 60_000, s.fn);
    vi.setSystemTime(T0 + 4_000);
    expect(await cached("k", 60_000, s.fn)).toBe(T0); // the key's own TTL allows it
    expect(await cached("k", 60_000, s.fn, { maxAgeMs: 5_000 })).toBe(T0);
    expect(await cached("k", 60_000, s.fn, { maxAgeMs: 0 })).toBe(T0 + 4_000);
    expect(await cached("k", 60_000, s.fn)).toBe(T0 + 4_000);
    expect(s.calls).toEqual([T0, T0 + 4_000]);
  });

  it("joins a fetch in flight whatever maxAgeMs says (single-flight)", async () => {
    let release!: (v: number) => void;
    let runs = 0;
    const slow = () => {
      runs++;
      return new Promise<number>((r) => (release = r));
    };
    const a = cached("k", 60_000, slow);
    const b = cached("k", 60_000, slow, { maxAgeMs: 0 });
    release(42);
    expect(await Promise.all([a, b])).toEqual([42, 42]);
    expect(runs).toBe(1);
  });
});
