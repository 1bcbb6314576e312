"use client";
// Paste a bundle token or free key to see what it has left and its recent charged calls.
// The value is sent only as a request header to this service and kept in page memory.
// The field is uncontrolled and read on submit: a value pasted while the page was still
// loading (before React took over) is kept instead of being reset by hydration, and the
// button waits for the script, because a plain form submission would only reload the page.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { fetchUsage, type UsageReport } from "@/lib/web/usage-client";
import { countOf, formatCount } from "@/lib/catalog/format";
import { ScrollRegion } from "@/app/components/scroll-region";
import { StackTableHead } from "@/app/components/stack-table";

type Names = Record<string, { title: string; path: string }>;

export function UsageForm({ usagePath, names }: { usagePath: string; names: Names }) {
  const field = useRef<HTMLInputElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<UsageReport | null>(null);

  async function look(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const credential = field.current?.value ?? "";
    if (!credential.trim()) {
      setError("Paste a bundle token or a free key first.");
      return;
    }
    setBusy(true);
    const r = await fetchUsage(usagePath, credential);
    setBusy(false);
    if (!r.ok) {
      setReport(null);
      setError(r.status === 404 ? "Unknown key or bundle token: check that you pasted all of it." : r.message);
      return;
    }
    setReport(r.data);
  }

  return (
    <>
      <form className="card stack" onSubmit={look} aria-labelledby="lookup">
        <h2 id="lookup">Look up a key or bundle</h2>
        <div className="field">
          <label htmlFor="credential">Bundle token or API key</label>
          <input
            id="credential"
            type={show ? "text" : "password"}
            autoComplete="off"
            spellCheck={false}
            ref={field}
            aria-describedby="credential-hint"
          />
          <p className="hint" id="credential-hint">
            Only this credential&apos;s own figures are shown. It is sent in a header, never in the address bar.
          </p>
        </div>
        <div className="row">
          <label className="row" style={{ fontWeight: 400 }}>
            <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} style={{ width: "auto", minHeight: 0 }} />
            Show the value
          </label>
        </div>
        <div>
          <button type="submit" disabled={!ready || busy}>
            {busy ? "Looking up…" : "Show usage"}
          </button>
        </div>
        {error ? (
          <p className="notice error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
      {report ? <Report report={report} names={names} /> : null}
    </>
  );
}

function Report({ report, names }: { report: UsageReport; names: Names }) {
  return (
    <section className="section card stack" aria-labelledby="usage-result" data-testid="usage-report" aria-live="polite">
      {report.kind === "bundle" ? (
        <>
          <h2 id="usage-result">Bundle {report.bundle_id}</h2>
          <dl className="facts">
            <dt>Tier</dt>
            <dd>{report.tier}</dd>
            <dt>Credits left</dt>
            <dd data-testid="credits-remaining">
              {formatCount(report.credits_remaining)} of {formatCount(report.credits_total)}
            </dd>
            <dt>Credits spent</dt>
            <dd data-testid="credits-spent">{formatCount(report.credits_total - report.credits_remaining)}</dd>
          </dl>
        </>
      ) : (
        <>
          <h2 id="usage-result">Free key</h2>
          <dl className="facts">
            <dt>Used today</dt>
            <dd data-testid="quota-used">
              {formatCount(report.used_today)} of {formatCount(report.daily_quota)}
            </dd>
            <dt>Left today</dt>
            <dd data-testid="quota-left">{formatCount(report.remaining_today)}</dd>
            <dt>Resets</dt>
            <dd>
              <time dateTime={report.resets_at}>{report.resets_at.replace("T", " ").slice(0, 16)} UTC</time>
            </dd>
          </dl>
        </>
      )}
      <h3>Recent charged calls</h3>
      {report.recent.length === 0 ? (
        <p className="muted">No charged calls yet.</p>
      ) : (
        <ScrollRegion label="Recent charged calls">
          {/* Explicit roles: stacked on phones with CSS (see .stack-table). */}
          <table data-testid="recent-calls" className="stack-table" role="table">
            <caption className="visually-hidden">Recent charged calls, newest first</caption>
            <StackTableHead columns={["Time (UTC)", "Product", "Surface", "Charged", "Receipt"]} />
            <tbody role="rowgroup">
              {report.recent.map((r) => (
                <tr key={r.receipt_id} role="row" data-receipt={r.receipt_id}>
                  <td role="cell" data-label="Time (UTC)">
                    <time dateTime={r.at}>{r.at.replace("T", " ").slice(0, 19)}</time>
                  </td>
                  <td role="cell" data-label="Product">
                    {names[r.product]?.title ?? r.product} <code className="small">{names[r.product]?.path ?? ""}</code>
                  </td>
                  <td role="cell" data-label="Surface">
                    {r.surface.toUpperCase()}
                  </td>
                  <td role="cell" data-label="Charged">
                    {r.credits !== null ? countOf(r.credits, "credit") : r.amount_usd !== null ? `$${r.amount_usd}` : "—"}
                  </td>
                  <td role="cell" data-label="Receipt" className="mono small">
                    {r.receipt_id}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
