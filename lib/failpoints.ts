/**
 * Failpoints: named places on the paid call's path where a test can make this process die
 * (SIGKILL, no cleanup, no answer) at the exact step it wants to prove recovery from,
 * the way TiKV's and etcd's failpoints work. Set with ECHO_FAILPOINTS, e.g.
 * `after_broadcast` (the first time a settlement transaction was accepted by the node)
 * or `after_record:3` (the third time a settlement was recorded). Unset (always, outside
 * tests/integration/crash-consistency.test.ts), every point is one property read.
 *
 * Points: after_lock (a payment locked and verified, nothing sent), after_broadcast (its
 * transaction accepted by the node, not included), after_inclusion (included, not
 * recorded), after_record (recorded with its answer, not sent), before_response (HTTP:
 * the response built, not written), before_service_fee (a settlement transaction mined
 * and failed for a reason of ours, its fee not yet recorded as the service's own and the
 * payment not yet released).
 */
import { processState } from "@/lib/process-state";

export type Failpoint = "after_lock" | "after_broadcast" | "after_inclusion" | "after_record" | "before_response" | "before_service_fee";

interface Armed {
  /** Point → hits left before it fires. */
  left: Map<string, number>;
}

const armed = () =>
  processState<Armed | null>("failpoints", () => {
    const spec = process.env.ECHO_FAILPOINTS?.trim();
    if (!spec) return null;
    const left = new Map<string, number>();
    for (const part of spec.split(",")) {
      const [name, n] = part.trim().split(":");
      if (name) left.set(name, Math.max(1, Number(n ?? 1) || 1));
    }
    return { left };
  });

/** Dies here (SIGKILL) when ECHO_FAILPOINTS armed `name` and this is its chosen hit. */
export function failpoint(name: Failpoint): void {
  const a = armed();
  if (!a) return;
  const n = a.left.get(name);
  if (n === undefined) return;
  if (n > 1) {
    a.left.set(name, n - 1);
    return;
  }
  process.stderr.write(`failpoint ${name}: SIGKILL\n`);
  process.kill(process.pid, "SIGKILL");
}
