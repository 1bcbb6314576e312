/**
 * In-process memory of credential facts that cannot change (a key's or bundle's id,
 * quota, size) and of the last balance seen. The database stays authoritative: the
 * consuming UPDATE re-checks the balance on the row; this cache only saves the lookup
 * query on every call and refuses early a credential already seen exhausted (balances
 * only go down, so a stale view can only be too generous, never too strict).
 */
import { processState } from "@/lib/process-state";
const MAX = 20_000;

export class LruMap<V> {
  private m = new Map<string, V>();
  get(k: string): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > MAX) this.m.delete(this.m.keys().next().value!);
  }
  delete(k: string): void {
    this.m.delete(k);
  }
}

/** One LRU per name, shared by both module graphs of the process. */
export function sharedLru<V>(name: string): LruMap<V> {
  return processState(`lru.${name}`, () => new LruMap<V>());
}
