// GET /market — 48-hour chart of hourly XLM sentiment and price, with the data as a table.
import { Suspense } from "react";
import type { Metadata } from "next";
import { SentimentChart } from "@/app/components/sentiment-chart";
import { LiveSentiment } from "@/app/components/live-sentiment";
import { productByPath } from "@/lib/catalog";
import { usdLabel } from "@/lib/payments/price";
import { liveHistory } from "@/lib/web/live";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Market" };

const HOURS = 48;

async function HistoryPanel() {
  const h = await liveHistory(HOURS);
  if (!h.ok) {
    return (
      <div className="notice warn" role="status" data-testid="history-unavailable">
        {h.message} Reload in a minute.
      </div>
    );
  }
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
        <div className="table-wrap">
          <table>
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
                <tr key={p.ts}>
                  <td>{p.ts.slice(0, 13).replace("T", " ")}:00</td>
                  <td>{p.sentiment === null ? "n/a" : p.sentiment.toFixed(3)}</td>
                  <td>{p.price}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export default function MarketPage() {
  const history = productByPath("/v1/sentiment-history");
  return (
    <>
      <h1>XLM market</h1>
      <p className="lead">
        Hourly composite sentiment and XLM price over the last {HOURS} hours, computed by the service from the data it already serves.
        {history ? (
          <>
            {" "}
            Agents get the same series from <code>{history.path}</code> ({usdLabel(history.httpPrice)} over HTTP
            {history.tool ? (
              <>
                , {usdLabel(history.tool.price)} as the MCP tool <code>{history.tool.name}</code>
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
          <LiveSentiment />
        </Suspense>
      </section>
    </>
  );
}
