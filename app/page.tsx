// GET / (browsers) — home page. Agents asking for JSON are rewritten to /api/service-info.
import { Suspense } from "react";
import { LiveSentiment } from "@/app/components/live-sentiment";
import { PRODUCTS } from "@/lib/catalog";
import { env } from "@/lib/config/env";
import { usdLabel } from "@/lib/payments/price";
import { countOf, formatCount } from "@/lib/catalog/format";
import { bundleCredits, bundleProducts, priceRange, toolCounts } from "@/lib/web/catalog-view";
import { pageBaseUrl } from "@/lib/web/base-url";
import { DISCOVERY_LINKS } from "@/lib/web/links";
import { FREE_KEY, SAMPLE } from "@/lib/web/endpoints";
import { FREE_TOOLS } from "@/lib/catalog/free";
import { paymentFacts } from "@/lib/discovery/service";
import { methodLabel } from "@/lib/web/chain-name";

export const dynamic = "force-dynamic";

export default async function Home() {
  const base = await pageBaseUrl();
  const cfg = env();
  const pay = paymentFacts();
  const evm = pay.methods.some((m) => m.id === "evm-exact");
  const range = priceRange();
  const tools = toolCounts();
  const bundles = bundleProducts();
  const standard = bundles[0];
  return (
    <>
      <section aria-labelledby="hero">
        <h1 id="hero">Crypto market intelligence for autonomous agents</h1>
        <p className="lead">
          XLM composite sentiment, quotes and order books, arbitrage scans, multi-asset screens, market breadth, gas, prediction markets, wallet intelligence and
          token safety: {PRODUCTS.length} products over HTTP and <span data-testid="tool-count">{tools.total}</span> MCP tools ({tools.free} of them free),{" "}
          <span data-testid="pay-summary">
            {pay.perCall
              ? `paid per call (${range.min} to ${range.max}) with ${pay.methods.map((m) => methodLabel(m)).join(" or ")}, with a prepaid bundle, or with a free key.`
              : `priced ${range.min} to ${range.max} per call and paid with a prepaid bundle or a free key (this instance takes no per-call payment).`}
          </span>
        </p>
        <div className="row">
          <a className="button" href="/catalog">
            Browse the catalog
          </a>
          <a className="button secondary" href="/free-key">
            Get a free key
          </a>
          <a className="button secondary" href="/wallet">
            Buy a bundle
          </a>
        </div>
      </section>

      <section className="section card" aria-labelledby="live">
        <h2 id="live">Live XLM sentiment</h2>
        <p className="muted small">
          Composite of the Fear &amp; Greed index, the SDEX order-flow imbalance and 24h momentum, in [−1, 1]. Agents get the reduced version free at{" "}
          <a href={SAMPLE.path}>
            <code>{SAMPLE.path}</code>
          </a>{" "}
          and the full one from the free MCP tool <code>{FREE_TOOLS.sentiment}</code>. <a href="/market">See the 48-hour chart</a>.
        </p>
        <Suspense fallback={<p className="muted">Reading the live components…</p>}>
          <LiveSentiment />
        </Suspense>
      </section>

      <section className="section" aria-labelledby="pay">
        <h2 id="pay">How agents pay</h2>
        <div className="grid">
          <article className="card">
            <h3>Per call with x402</h3>
            {pay.x402.length > 0 ? (
              <ol className="steps">
                <li>
                  Call a paid endpoint; it answers <strong>402</strong> with the requirement in the <code>PAYMENT-REQUIRED</code> header (and a v1 JSON body).
                </li>
                <li>Sign a payment for the exact amount: {pay.x402.map((m) => methodLabel(m)).join(" or ")}.</li>
                <li>
                  Repeat the call with <code>PAYMENT-SIGNATURE</code> (v2) or <code>X-PAYMENT</code> (v1). It settles only when the data was delivered.
                </li>
              </ol>
            ) : (
              <p>Per-call x402 payment is not configured on this instance.</p>
            )}
            {pay.others.map((m) => (
              <p key={m.id}>Also accepted per call: {methodLabel(m)}.</p>
            ))}
          </article>
          <article className="card">
            <h3>Prepaid bundle</h3>
            <p>
              {standard ? (
                <>
                  {usdLabel(standard.httpPrice)} buys {formatCount(bundleCredits(standard) ?? 0)} credits over HTTP.{" "}
                </>
              ) : null}
              Send the token as <code>X-Bundle-Token</code> or as the <code>bundle_token</code> tool argument; each call spends its credit cost.
            </p>
            {evm || pay.methods.some((m) => m.id === "svm-exact") ? <a href="/wallet">Buy one with a browser wallet</a> : <p className="muted small">This instance does not sell bundles to browser wallets; see <a href="/wallet">wallet &amp; bundles</a>.</p>}
          </article>
          <article className="card">
            <h3>Free key</h3>
            <p>
              {countOf(cfg.FREE_KEY_DAILY_QUOTA, "call")} a day on standard endpoints. Mint one at <code>{FREE_KEY.path}</code> or with the <code>{FREE_TOOLS.freeKey}</code> tool, send
              it as <code>X-Api-Key</code>.
            </p>
            <a href="/free-key">Claim a free key</a>
          </article>
          <article className="card">
            <h3>MCP</h3>
            <p>
              Streamable HTTP at <code className="mono">{base}/mcp</code>. Paid tools return the payment requirement as their result; pay and call again with{" "}
              <code>payment</code>, or pass <code>bundle_token</code> / <code>api_key</code>.
            </p>
          </article>
        </div>
      </section>

      <section className="section" aria-labelledby="discovery">
        <h2 id="discovery">Discovery documents</h2>
        <ul>
          {DISCOVERY_LINKS.map((l) => (
            <li key={l.href}>
              <a href={l.href}>{l.label}</a> <code className="muted">{l.href}</code>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
