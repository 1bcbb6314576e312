/**
 * Payments in flight are held by a lease (payments.holder, payments.lease_until): the lock
 * takes it for PAYMENT_LEASE_SECONDS, and while the call runs this process renews every
 * lease it holds, a third of the lease before it runs out, in one statement. A holder
 * that dies (SIGKILL, a crash, a machine gone) renews nothing, so within one lease the
 * next presentation of the same payment, on any instance, takes the row over and finishes
 * it from the store and the chain (lib/payments/ledger.ts, lockPayment). A holder that
 * could not write its last step (the database was down) stops renewing too: its row is
 * free again after one lease, never stuck.
 *
 * The holder id is per process (random at start), so a restarted process never mistakes
 * its predecessor's rows for its own.
 */
import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import { getDbHandle } from "@/lib/db/client";
import { log } from "@/lib/log";
import { peekProcessState, processState } from "@/lib/process-state";

interface LeaseState {
  holder: string;
  /** Payment ids this process holds now. */
  held: Set<string>;
  timer: ReturnType<typeof setInterval> | null;
  renewing: boolean;
}

const state = () => processState<LeaseState>("payments.leases", () => ({ holder: randomUUID(), held: new Set(), timer: null, renewing: false }));

/** This process's holder id (written with every lock it takes). */
export function leaseHolder(): string {
  return state().holder;
}

/** Seconds a lease lasts. */
export function leaseSeconds(): number {
  return env().PAYMENT_LEASE_SECONDS;
}

/** Starts renewing `paymentId`'s lease until `release` is called for it. */
export function holdLease(paymentId: string): void {
  const s = state();
  s.held.add(paymentId);
  if (s.timer) return;
  s.timer = setInterval(() => void renew(), Math.max(500, (leaseSeconds() * 1000) / 3));
  s.timer.unref();
}

/** Stops renewing `paymentId` (its call wrote its last step, or gave up writing it). */
export function releaseLease(paymentId: string): void {
  const s = state();
  s.held.delete(paymentId);
  if (s.held.size === 0 && s.timer) {
    clearInterval(s.timer);
    s.timer = null;
  }
}

/** The payments this process holds now (tests, the ledger report). */
export function heldPayments(): string[] {
  return [...state().held];
}

async function renew(): Promise<void> {
  const s = state();
  if (s.renewing || s.held.size === 0 || peekProcessState("db") === undefined) return;
  s.renewing = true;
  try {
    const h = await getDbHandle();
    await h.query(
      `UPDATE payments SET lease_until = now() + make_interval(secs => $3::double precision)
        WHERE id = ANY($1::text[]) AND holder = $2 AND status IN ('pending', 'pending_optimistic', 'sent')`,
      [[...s.held], s.holder, leaseSeconds()],
      { name: "payment_lease_renew" },
    );
  } catch (err) {
    // A lease not renewed runs out: another presentation may take the payment over, and
    // this process's later record of it is then refused by the row's holder check.
    log.warn("payment.lease_renew_failed", { held: s.held.size, message: (err as Error).message });
  } finally {
    s.renewing = false;
  }
}
