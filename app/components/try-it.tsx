"use client";
// "Try it": calls a JSON endpoint of this service from the browser and shows the status
// and the (truncated) body. Credentials, when given, travel only in request headers.
import { useState } from "react";

const MAX_SHOWN = 6000;

export interface TryResult {
  status: number;
  body: string;
  /** Why the service refused, in its own words (the body's error message), if it did. */
  reason: string | null;
}

/** The error message of one of the service's error bodies (`{error: "...", code}` or `{error: {code, message}}`, spec 2.6 `detail[]`). */
function reasonOf(json: unknown): string | null {
  const b = json as { error?: string | { message?: string }; detail?: Array<{ msg?: string }> } | null;
  if (!b || typeof b !== "object") return null;
  if (typeof b.error === "string") return b.error;
  if (b.error && typeof b.error.message === "string") return b.error.message;
  if (Array.isArray(b.detail) && typeof b.detail[0]?.msg === "string") return b.detail[0].msg;
  return null;
}

export async function callJson(url: string, headers: Record<string, string> = {}): Promise<TryResult> {
  const res = await fetch(url, { headers: { Accept: "application/json", ...headers }, cache: "no-store" });
  const text = await res.text();
  let body = text;
  let reason: string | null = null;
  try {
    const json = JSON.parse(text) as unknown;
    body = JSON.stringify(json, null, 2);
    if (!res.ok) reason = reasonOf(json);
  } catch {
    // not JSON: show as is
  }
  return { status: res.status, reason, body: body.length > MAX_SHOWN ? `${body.slice(0, MAX_SHOWN)}\n… (${body.length - MAX_SHOWN} more characters)` : body };
}

export function TryResultView({ result, error }: { result: TryResult | null; error: string | null }) {
  if (error) return <p className="notice error" role="alert">{error}</p>;
  if (!result) return null;
  return (
    <div className="stack" data-testid="try-result">
      <p className={`notice ${result.status < 300 ? "success" : "warn"} small`} role="status" data-testid="try-banner">
        HTTP {result.status}
        {/* The service's own reason, so the banner and the response never disagree. */}
        {result.reason ? ` — ${result.reason}` : ""}
      </p>
      <pre tabIndex={0} aria-label="Response body">
        {result.body}
      </pre>
    </div>
  );
}

/** Button that GETs `path` (a free endpoint) and shows the answer. */
export function TryEndpoint({ path, label = "Try it" }: { path: string; label?: string }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TryResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      setResult(await callJson(path));
    } catch {
      setError("Could not reach the service.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="stack">
      <button type="button" className="secondary small" onClick={run} disabled={busy} aria-label={`${label}: GET ${path}`}>
        {busy ? "Calling…" : label}
      </button>
      <TryResultView result={result} error={error} />
    </div>
  );
}
