"use client";
// The product list with tag filter and search, copyable examples, and "Try it" with the
// visitor's own free key or bundle token (charged like any API call).
import { useId, useMemo, useState, type FormEvent } from "react";
import { CopyButton } from "@/app/components/copy-button";
import { callJson, TryResultView, type TryResult } from "@/app/components/try-it";
import { ScrollRegion } from "@/app/components/scroll-region";
import type { ProductView } from "@/lib/web/catalog-view";
import { formatCount } from "@/lib/catalog/format";
import { isApiKeyShaped } from "@/lib/access/credentials";
import { StackTableHead } from "@/app/components/stack-table";

function matches(p: ProductView, tag: string, q: string): boolean {
  if (tag && !p.tags.includes(tag)) return false;
  if (!q) return true;
  const hay = `${p.title} ${p.path} ${p.description} ${p.tool?.name ?? ""} ${p.tags.join(" ")}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

export function CatalogBrowser({ products }: { products: ProductView[] }) {
  const [tag, setTag] = useState("");
  const [q, setQ] = useState("");
  const [credential, setCredential] = useState("");
  const tags = useMemo(() => [...new Set(products.flatMap((p) => p.tags))].sort(), [products]);
  const shown = products.filter((p) => matches(p, tag, q.trim()));
  return (
    <>
      <div className="filters" role="search" aria-label="Filter products">
        <div className="field">
          <label htmlFor="catalog-search">Search</label>
          <input id="catalog-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="e.g. gas, sentiment, get_whale_flow" />
        </div>
        <div className="field">
          <label htmlFor="catalog-tag">Tag</label>
          <select id="catalog-tag" value={tag} onChange={(e) => setTag(e.target.value)}>
            <option value="">All tags</option>
            {tags.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="catalog-credential">Your key or bundle token (for Try it)</label>
          <input
            id="catalog-credential"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={credential}
            onChange={(e) => setCredential(e.target.value.trim())}
            aria-describedby="catalog-credential-hint"
          />
          <p className="hint" id="catalog-credential-hint">
            Optional. Each try is a real call charged to it. It stays in this page.
          </p>
        </div>
      </div>
      <p role="status" className="muted" data-testid="catalog-count">
        Showing {shown.length} of {products.length} products{tag ? ` tagged “${tag}”` : ""}
        {q.trim() ? ` matching “${q.trim()}”` : ""}.
      </p>
      <div className="grid-2">
        {shown.map((p) => (
          <ProductCard key={p.id} p={p} credential={credential} />
        ))}
      </div>
    </>
  );
}

function ProductCard({ p, credential }: { p: ProductView; credential: string }) {
  const titleId = useId();
  return (
    <article className="card product" aria-labelledby={titleId} data-testid="product" data-path={p.path}>
      <header>
        <h3 id={titleId}>{p.title}</h3>
        <span className="path">GET {p.path}</span>
      </header>
      <p>{p.description}</p>
      <p className="row">
        {p.tags.map((t) => (
          <span className="tag" key={t}>
            {t}
          </span>
        ))}
        {p.freeTier ? <span className="tag badge-free">free key</span> : null}
      </p>
      <dl className="prices">
        <div>
          <dt>HTTP price</dt>
          <dd data-field="http-price">{p.httpPriceLabel}</dd>
        </div>
        <div>
          <dt>MCP tool price</dt>
          <dd data-field="tool-price">{p.tool ? p.tool.priceLabel : "no tool"}</dd>
        </div>
        <div>
          <dt>{p.kind === "bundle" ? "Credits bought" : "Bundle credits"}</dt>
          <dd data-field="credits">{p.kind === "bundle" ? `${p.creditsSold === null ? "?" : formatCount(p.creditsSold)} credits` : `${p.credits} per call`}</dd>
        </div>
      </dl>
      {p.tool ? (
        <p className="small">
          MCP tool: <code data-field="tool-name">{p.tool.name}</code>
        </p>
      ) : (
        <p className="small muted">HTTP only (no MCP tool).</p>
      )}
      {p.params.length ? (
        <ScrollRegion label={`Parameters of ${p.path}`}>
          {/* Explicit roles: on phones the rows are stacked with CSS (display: block), which
              would otherwise drop the table semantics in some browsers. */}
          <table className="stack-table" role="table">
            <caption className="visually-hidden">Parameters of {p.path}</caption>
            <StackTableHead columns={["Parameter", "Type", "Default", "Meaning"]} />
            <tbody role="rowgroup">
              {p.params.map((x) => (
                <tr key={x.name} role="row">
                  <th scope="row" role="rowheader">
                    <code>{x.name}</code>
                    {x.required ? " (required)" : ""}
                  </th>
                  <td role="cell" data-label="Type">
                    {x.type}
                  </td>
                  <td role="cell" data-label="Default" className="mono small">
                    {x.default ?? "—"}
                  </td>
                  <td role="cell" data-label="Meaning" className="small">
                    {x.description}
                    {x.constraints ? ` (${x.constraints})` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      ) : (
        <p className="small muted">No parameters.</p>
      )}
      <details>
        <summary>Examples</summary>
        <div className="stack">
          {p.examples.map((ex) => (
            <div key={ex.label} className="stack">
              <div className="row" style={{ justifyContent: "space-between" }}>
                <strong className="small">{ex.label}</strong>
                <CopyButton value={ex.code} label={`Copy`} />
              </div>
              <pre tabIndex={0} aria-label={ex.label}>
                {ex.code}
              </pre>
            </div>
          ))}
        </div>
      </details>
      {p.kind === "data" ? (
        <TryProduct p={p} credential={credential} />
      ) : (
        <p className="small">
          <a href="/wallet">Buy it with a browser wallet</a>
        </p>
      )}
    </article>
  );
}

function TryProduct({ p, credential }: { p: ProductView; credential: string }) {
  const formId = useId();
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TryResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function run(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const qs = new URLSearchParams(Object.entries(values).filter(([, v]) => v.trim() !== ""));
    const headers: Record<string, string> = credential ? (isApiKeyShaped(credential) ? { "X-Api-Key": credential } : { "X-Bundle-Token": credential }) : {};
    try {
      setResult(await callJson(`${p.path}${qs.size ? `?${qs}` : ""}`, headers));
    } catch {
      setError("Could not reach the service.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <details>
      <summary>Try it</summary>
      <form onSubmit={run} className="stack" aria-label={`Try ${p.path}`}>
        {p.params.map((x) => (
          <div className="field" key={x.name}>
            <label htmlFor={`${formId}-${x.name}`}>
              {x.name}
              {x.required ? " (required)" : ""}
            </label>
            <input
              id={`${formId}-${x.name}`}
              value={values[x.name] ?? ""}
              placeholder={x.example ?? x.default ?? ""}
              onChange={(e) => setValues({ ...values, [x.name]: e.target.value })}
              required={x.required}
            />
          </div>
        ))}
        <p className="small muted">
          {credential
            ? `Sent with your ${isApiKeyShaped(credential) ? "free key" : "bundle token"}${isApiKeyShaped(credential) && !p.freeTier ? " (this product is not covered by free keys)" : ""}.`
            : "Without a key or token this shows the 402 payment requirement."}
        </p>
        <button type="submit" className="secondary small" disabled={busy}>
          {busy ? "Calling…" : `Call ${p.path}`}
        </button>
      </form>
      <TryResultView result={result} error={error} />
    </details>
  );
}
