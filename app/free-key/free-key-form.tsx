"use client";
// Claim a free-tier key: optional e-mail, key shown once with a copy button, then its
// quota (used / left today) read back from the usage endpoint.
import { useState, type FormEvent } from "react";
import { CopyButton } from "@/app/components/copy-button";
import { useFocusOnShow } from "@/app/components/use-focus-on-show";
import { countOf, formatCount } from "@/lib/catalog/format";
import { emailLooksValid, fetchUsage, mintKey, type MintedKey } from "@/lib/web/usage-client";

interface Quota {
  quota: number;
  used: number;
  left: number;
  resetsAt: string;
}

export function FreeKeyForm({ freeKeyPath, usagePath }: { freeKeyPath: string; usagePath: string }) {
  const [email, setEmail] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState<MintedKey | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  // The new key replaces the form: focus follows it (and on a phone it is scrolled into view).
  const keyHeading = useFocusOnShow<HTMLHeadingElement>(key);

  async function claim(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (!emailLooksValid(email)) {
      setEmailError("Enter a valid e-mail address, or leave the field empty.");
      return;
    }
    setEmailError(null);
    setBusy(true);
    const r = await mintKey(freeKeyPath, email);
    setBusy(false);
    if (!r.ok) {
      // 422: the server's precise e-mail verdict belongs next to the field.
      if (r.status === 422) setEmailError(r.message);
      else setError(r.message);
      return;
    }
    setKey(r.data);
    setQuota({ quota: r.data.daily_quota, used: r.data.used_today, left: r.data.remaining_today, resetsAt: r.data.resets_at });
  }

  async function refresh() {
    if (!key) return;
    setRefreshing(true);
    const r = await fetchUsage(usagePath, key.api_key);
    setRefreshing(false);
    if (!r.ok) return setError(r.message);
    if (r.data.kind === "api_key") setQuota({ quota: r.data.daily_quota, used: r.data.used_today, left: r.data.remaining_today, resetsAt: r.data.resets_at });
  }

  if (key) {
    return (
      <section className="card stack" aria-labelledby="your-key">
        <h2 id="your-key" tabIndex={-1} ref={keyHeading}>
          Your free key
        </h2>
        <p className="notice warn">Shown only once: copy it now and store it somewhere safe. The service keeps only a hash.</p>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input id="api-key" readOnly value={key.api_key} data-testid="api-key" onFocus={(e) => e.currentTarget.select()} />
        </div>
        <CopyButton value={key.api_key} label="Copy key" className="button" />
        {quota ? (
          <div aria-live="polite">
            <dl className="facts" data-testid="quota">
              <dt>Daily quota</dt>
              <dd>{countOf(quota.quota, "call")}</dd>
              <dt>Used today</dt>
              <dd data-testid="quota-used">{formatCount(quota.used)}</dd>
              <dt>Left today</dt>
              <dd data-testid="quota-left">{formatCount(quota.left)}</dd>
              <dt>Resets</dt>
              <dd>
                <time dateTime={quota.resetsAt}>{quota.resetsAt.replace("T", " ").slice(0, 16)} UTC</time>
              </dd>
            </dl>
          </div>
        ) : null}
        <div className="row">
          <button type="button" className="secondary" onClick={refresh} disabled={refreshing}>
            {refreshing ? "Refreshing…" : "Refresh quota"}
          </button>
          <a href="/usage">Recent calls on the usage page</a>
        </div>
        {error ? (
          <p className="notice error" role="alert">
            {error}
          </p>
        ) : null}
        <p className="small">
          Send it as <code>X-Api-Key: {key.key_prefix}…</code> over HTTP or as the <code>api_key</code> argument of an MCP tool. It covers {key.covers.length} standard
          endpoints: {key.covers.join(", ")}.
        </p>
      </section>
    );
  }

  return (
    <form className="card stack" onSubmit={claim} noValidate aria-labelledby="claim">
      <h2 id="claim">Claim a key</h2>
      <div className="field">
        <label htmlFor="email">E-mail (optional)</label>
        <input
          id="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={emailError ? true : undefined}
          aria-describedby={emailError ? "email-error email-hint" : "email-hint"}
        />
        <p className="hint" id="email-hint">
          Recorded with the key so we can reach you about it; never shown again.
        </p>
        {emailError ? (
          <p className="notice error small" id="email-error" role="alert">
            {emailError}
          </p>
        ) : null}
      </div>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? "Claiming…" : "Claim free key"}
        </button>
      </div>
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
