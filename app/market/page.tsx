// GET /market — 48-hour chart of hourly XLM sentiment and price, with the data as a table,
// and "right now" read from the latest bar of that same series (one source for "now").
import { cache, Suspense } from "react";
import type { Metadata } from "next";
import { SentimentChart } from "@/app/components/sentiment-chart";
import { SentimentPanel } from "@/app/components/live-sentiment";
import { ScrollRegion } from "@/app/components/scroll-region";
import { productByPath } from "@/lib/catalog";
import { usdLabel } from "@/lib/payments/price";
import { liveHistory } from "@/lib/web/live";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Market" };

const HOURS = 48;

// One computation per page view: both panels await the same promise, so the chart and
// "right now" can never come from two cache generations.
const history = cache(() => liveHistory(HOURS));

function Unavailable({ message, testId }: { message: string; testId: string }) {
  return (
    <div className="notice warn" role="status" data-testid={testId}>
      {message} Reload in a minute.
    </div>
  );
}

async function HistoryPanel() {
  const h = await history();
  if (!h.ok) return <Unavailable message={h.message} testId="history-unavailable" />;
  const d = h.data;
  const last = d.points.at(-1);
  return (
    <figure style={{ margin: 0 }}>
      <SentimentChart points={d.points} />
      <figcaption className="small muted">
        {d.points.length} hourly bars up to <time dateTime={d.ts}>{d.ts.slice(0, 16).replace("T", " ")} UTC</time>
        {last ? `; latest sentiment ${last.sentiment === null ? "n/a" : last.sentiment.toFixed(3)}, XLM $${last.price}` : ""}. {d.note}
        {d.degraded ? ` Unavailable inputs: ${d.unavailable.join("; ")}.` : ""}
      </figcaption>
      <details>
        <summary>Data table</summary>
        <ScrollRegion label="Hourly sentiment and price data">
          <table data-testid="history-table">
            <caption className="visually-hidden">Hourly composite sentiment and XLM price</caption>
            <thead>
              <tr>
                <th scope="col">Hour (UTC)</th>
                <th scope="col">Sentiment</th>
                <th scope="col">XLM (USD)</th>
              </tr>
            </thead>
            <tbody>
              {d.points.map((p) => (
                <tr key={p.ts} data-ts={p.ts}>
                  <td>{p.ts.slice(0, 13).replace("T", " ")}:00</td>
                  <td data-value={p.sentiment ?? ""}>{p.sentiment === null ? "n/a" : p.sentiment.toFixed(3)}</td>
                  <td data-value={p.price}>{p.price}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </figure>
  );
}

async function RightNow() {
  const h = await history();
  if (!h.ok) return <Unavailable message={`${h.message} The other products keep working.`} testId="sentiment-unavailable" />;
  if (!h.data.now) return <Unavailable message="The latest hour has no composite sentiment (every input is unavailable)." testId="sentiment-unavailable" />;
  return (
    <>
      <p className="small muted">The latest bar of the chart above, with its components.</p>
      <SentimentPanel now={h.data.now} />
    </>
  );
}

export default function MarketPage() {
  const product = productByPath("/v1/sentiment-history");
  return (
    <>
      <h1>XLM market</h1>
      <p className="lead">
        Hourly composite sentiment and XLM price over the last {HOURS} hours, computed by the service from the data it already serves.
        {product ? (
          <>
            {" "}
            Agents get the same series from <code>{product.path}</code> ({usdLabel(product.httpPrice)} over HTTP
            {product.tool ? (
              <>
                , {usdLabel(product.tool.price)} as the MCP tool <code>{product.tool.name}</code>
              </>
            ) : null}
            ).
          </>
        ) : null}
      </p>
      <section className="card" aria-labelledby="chart">
        <h2 id="chart">Sentiment and price, {HOURS} h</h2>
        <Suspense fallback={<p className="muted">Computing the series…</p>}>
          <HistoryPanel />
        </Suspense>
      </section>
      <section className="section card" aria-labelledby="now">
        <h2 id="now">Right now</h2>
        <Suspense fallback={<p className="muted">Reading the live components…</p>}>
          <RightNow />
        </Suspense>
      </section>
    </>
  );
}
