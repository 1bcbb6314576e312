"use client";
// What the wallet and paywall pages share once a payment is signed: keep it
// (lib/web/pending-payments.ts), present it until the service answers for good, say
// honestly while it is pending, resume it after a reload, and show what was bought: a
// bundle's token (shown once, with a copy button) or a call's data. Focus moves to the
// result, which is scrolled into view (on a phone it lands below the fold otherwise).
import { useCallback, useEffect, useRef, useState } from "react";
import { CopyButton } from "@/app/components/copy-button";
import { useFocusOnShow } from "@/app/components/use-focus-on-show";
import { formatCount } from "@/lib/catalog/format";
import { keepPending, pendingFor, resolvePayment, type PendingPayment, type PendingState } from "@/lib/web/pending-payments";
import { isBundle, isJson, refusalError, type BundleResult, type PurchaseError } from "@/lib/web/x402-browser";

export interface Paid {
  payment: PendingPayment;
  body: unknown;
  txHash: string | null;
  /** Resolved after the page had to wait or present it again (a pending settlement, a lost answer, a reload). */
  recovered: boolean;
}

const resultCheck = (kind: PendingPayment["kind"]) => (kind === "bundle" ? isBundle : isJson);

/**
 * Drives signed payments to their final answer. `accepts` picks the kept payments this
 * page resumes on load (its paths); `onPaid` and `onRefused` hear the outcome.
 */
export function usePaymentResolution(accepts: (path: string) => boolean, onPaid: (p: Paid) => void, onRefused: (e: PurchaseError, p: PendingPayment) => void) {
  const [pending, setPending] = useState<PendingState | null>(null);
  const [sending, setSending] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const handlers = useRef({ onPaid, onRefused });
  handlers.current = { onPaid, onRefused };

  const drive = useCallback(async (p: PendingPayment, resumed: boolean) => {
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setSending(true);
    let waited = resumed;
    try {
      const r = await resolvePayment(
        p,
        resultCheck(p.kind),
        (s) => {
          waited = true;
          setPending(s);
        },
        ctl.signal,
      );
      if (ctl.signal.aborted && r.kind === "unresolved") return;
      if (r.kind === "done") {
        setPending(null);
        handlers.current.onPaid({ payment: p, body: r.body, txHash: r.txHash, recovered: waited || r.replayed });
      } else if (r.kind === "refused") {
        setPending(null);
        handlers.current.onRefused(refusalError(r), p);
      } else {
        setPending(r.state);
      }
    } finally {
      if (abort.current === ctl) setSending(false);
    }
  }, []);

  // A payment signed before a reload (or a closed answer) is presented again on arrival.
  useEffect(() => {
    const kept = pendingFor(accepts);
    if (kept[0]) void drive(kept[0], true);
    return () => abort.current?.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return {
    pending,
    /** A payment is being presented (the first time or again). */
    sending,
    /** Keeps `p` and presents it until it resolves. */
    send: (p: PendingPayment) => {
      keepPending(p);
      return drive(p, false);
    },
    /** Presents the unresolved payment again now. */
    retryNow: () => {
      if (pending) void drive(pending.payment, true);
    },
  };
}

/** The unresolved payment, said honestly: sent, maybe settled, presented again until the service answers. */
export function PendingNotice({ state, onRetry, busy }: { state: PendingState; onRetry: () => void; busy: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (state.nextAt === null) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [state.nextAt]);
  const p = state.payment;
  const wait = state.nextAt === null ? null : Math.max(0, Math.ceil((state.nextAt - now) / 1000));
  return (
    <div className="notice warn stack" role="status" data-testid="payment-pending">
      <p>
        <strong>Payment pending.</strong> Your signed payment for {p.label} was sent and is not settled yet: the service may still be settling it on {p.networkName}, or its answer
        was lost. This page presents the same signed payment again until the service answers; it cannot be charged twice. Do not pay again.
      </p>
      <p className="small">
        {state.attempts === 1 ? "Presented once" : `Presented ${state.attempts} times`}.{" "}
        {wait !== null ? `Next try in ${wait} s.` : "Automatic retries stopped; the payment is kept in this tab: check again, or reload the page later."} Service&apos;s last word:{" "}
        {state.reason}
      </p>
      {state.paymentId ? (
        <p className="small">
          Payment id: <code className="secret">{state.paymentId}</code>
        </p>
      ) : null}
      <div>
        <button type="button" className="secondary" onClick={onRetry} disabled={busy && wait !== null}>
          Check now
        </button>
      </div>
    </div>
  );
}

/** A bundle token, shown once, with its credits and settlement. */
export function BundleToken({ bundle, txHash, title, recovered }: { bundle: BundleResult; txHash: string | null; title: string; recovered: boolean }) {
  const heading = useFocusOnShow<HTMLHeadingElement>(bundle.bundle_token);
  return (
    <section className="card stack" aria-labelledby="bought-heading" data-testid="bundle-bought">
      <h2 id="bought-heading" tabIndex={-1} ref={heading}>
        Your bundle token
      </h2>
      {recovered ? (
        <p className="notice success" data-testid="payment-recovered">
          The pending payment settled: here is the bundle it bought, charged once.
        </p>
      ) : null}
      <p className="notice warn">Shown only once: copy it now. The service keeps only a hash and cannot show it again.</p>
      <div className="field">
        <label htmlFor="bundle-token">Bundle token ({title})</label>
        <input id="bundle-token" readOnly value={bundle.bundle_token} data-testid="bundle-token" onFocus={(e) => e.currentTarget.select()} />
      </div>
      <CopyButton value={bundle.bundle_token} label="Copy token" className="button" />
      <dl className="facts">
        <dt>Credits</dt>
        <dd data-testid="bundle-credits">{formatCount(bundle.credits)}</dd>
        <dt>Bundle id</dt>
        <dd className="mono">{bundle.bundle_id}</dd>
        {txHash ? (
          <>
            <dt>Settlement</dt>
            <dd className="mono small secret" data-testid="bundle-tx">
              {txHash}
            </dd>
          </>
        ) : null}
      </dl>
      <p className="small">
        Use it as <code>X-Bundle-Token</code> over HTTP or as the <code>bundle_token</code> argument of an MCP tool. Follow its credits on the <a href="/usage">usage page</a>.
      </p>
    </section>
  );
}

/** A paid call's data and settlement. */
export function PaidData({ body, txHash, recovered }: { body: unknown; txHash: string | null; recovered: boolean }) {
  const heading = useFocusOnShow<HTMLHeadingElement>(body);
  return (
    <section className="card stack" aria-labelledby="paid-heading" data-testid="paid-result">
      <h2 id="paid-heading" tabIndex={-1} ref={heading}>
        Result
      </h2>
      {recovered ? (
        <p className="notice success" data-testid="payment-recovered">
          The pending payment settled: here is the result it paid for, charged once.
        </p>
      ) : null}
      {txHash ? (
        <p className="small">
          Settlement transaction:{" "}
          <code className="secret" data-testid="paywall-tx">
            {txHash}
          </code>
        </p>
      ) : null}
      <pre data-testid="paywall-result" className="json" tabIndex={0} aria-label="Result of the call">
        {JSON.stringify(body, null, 2)}
      </pre>
    </section>
  );
}
