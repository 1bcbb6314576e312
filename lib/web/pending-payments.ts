/**
 * Signed payments kept by the page until they are resolved. A payment that left the page
 * may have been settled even when no answer came back, so it is never forgotten on a
 * failure: it stays in sessionStorage (this tab only, survives a reload; the header value
 * the service was sent, never a key) and is presented again, with backoff, on
 * `503 settlement_pending`, a lost connection or an unreadable answer, and after a reload.
 * The service answers the same payment with the answer it got the first time (for a
 * bundle, its token, sealed under the payment's payment-identifier id), so presenting it
 * again never charges twice. It leaves the store when the service has given its final
 * answer: the result, or a refusal in its own words.
 */
import { presentPayment, type Presented, type SignedPayment } from "@/lib/web/x402-browser";

const KEY = "echo.pending-payments.v1";

export interface PendingPayment extends SignedPayment {
  /** The paid path presented (with its query). */
  path: string;
  /** What is bought: a bundle (the answer holds its token) or a call's data. */
  kind: "bundle" | "data";
  /** What the person bought, in words ("Standard prepaid bundle"). */
  label: string;
  /** Network name for people ("Base", "Solana"). */
  networkName: string;
  /** When it was signed (ms since the epoch). */
  signedAt: number;
}

function read(): PendingPayment[] {
  try {
    const raw = sessionStorage.getItem(KEY);
    const list = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(list) ? (list as PendingPayment[]).filter((p) => typeof p?.header === "string" && typeof p?.path === "string") : [];
  } catch {
    return [];
  }
}

function write(list: PendingPayment[]): void {
  try {
    if (list.length) sessionStorage.setItem(KEY, JSON.stringify(list));
    else sessionStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode, quota): the payment is still resolved in this page.
  }
}

/** Keeps a signed payment before it is sent. */
export function keepPending(p: PendingPayment): void {
  write([...read().filter((x) => x.id !== p.id), p]);
}

/** The payments still unresolved for the paths `wanted` accepts. */
export function pendingFor(wanted: (path: string) => boolean): PendingPayment[] {
  return read().filter((p) => wanted(p.path));
}

/** Forgets a payment once the service gave its final answer. */
export function forgetPending(id: string): void {
  write(read().filter((x) => x.id !== id));
}

/** What the page shows while a payment is unresolved. */
export interface PendingState {
  payment: PendingPayment;
  /** Presentations so far. */
  attempts: number;
  /** Why it is not resolved yet: the service's pending message, or what was lost. */
  reason: string;
  /** The service's id of the payment, once it named it. */
  paymentId: string | null;
  /** When it is presented again (ms since the epoch), or null when automatic retries stopped. */
  nextAt: number | null;
}

export type Resolution = Extract<Presented, { kind: "done" | "refused" }> | { kind: "unresolved"; state: PendingState };

/** Delay before presenting again: the service's Retry-After, else doubling from 1 s, at most 30 s. */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | null): number {
  const backoff = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return retryAfterSeconds !== null ? Math.min(30_000, Math.max(retryAfterSeconds * 1000, 1000)) : backoff;
}

/** How long the page keeps presenting a payment by itself before it leaves that to a button. */
export const AUTO_RETRY_MS = 5 * 60_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * Presents `p` until the service gives its final answer (the result, or a refusal), for
 * at most AUTO_RETRY_MS; `onPending` is told each unresolved step. The payment leaves the
 * store with the final answer; an unresolved one stays for a later try or a reload.
 */
export async function resolvePayment(p: PendingPayment, isResult: (body: unknown) => boolean, onPending: (s: PendingState) => void, signal?: AbortSignal): Promise<Resolution> {
  const started = Date.now();
  let paymentId: string | null = null;
  for (let attempt = 1; ; attempt++) {
    const r = await presentPayment(p.path, p.header, isResult);
    if (r.kind === "done" || r.kind === "refused") {
      forgetPending(p.id);
      return r;
    }
    if (r.kind === "pending") paymentId = r.paymentId ?? paymentId;
    const reason = r.kind === "pending" ? r.message : `No answer could be read: ${r.why}.`;
    const delay = retryDelayMs(attempt, r.kind === "pending" ? r.retryAfter : null);
    const stop = signal?.aborted || Date.now() + delay - started > AUTO_RETRY_MS;
    const state: PendingState = { payment: p, attempts: attempt, reason, paymentId, nextAt: stop ? null : Date.now() + delay };
    onPending(state);
    if (stop) return { kind: "unresolved", state };
    await sleep(delay, signal);
    if (signal?.aborted) return { kind: "unresolved", state: { ...state, nextAt: null } };
  }
}
