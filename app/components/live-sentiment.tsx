// Composite XLM sentiment: gauge, price and the per-component breakdown. `SentimentPanel`
// draws one reading; `LiveSentiment` (server component) reads the live snapshot and
// shows a message instead of the panel when the upstreams fail.
import { SentimentGauge, ScoreBar } from "@/app/components/sentiment-gauge";
import { ScrollRegion } from "@/app/components/scroll-region";
import { liveSnapshot, type SentimentNow } from "@/lib/web/live";

const NAMES: Record<string, string> = { fear_greed: "Fear & Greed", order_flow: "SDEX order flow", momentum: "24h momentum" };
const RAW_UNITS: Record<string, (v: number) => string> = {
  fear_greed: (v) => `index ${v}`,
  order_flow: (v) => `imbalance ${v.toFixed(3)}`,
  momentum: (v) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}% in 24h`,
};

export function SentimentPanel({ now: s }: { now: SentimentNow }) {
  const label = s.label.replace("_", " ");
  return (
    <div className="grid-2" data-testid="live-sentiment">
      <div>
        <SentimentGauge score={s.sentiment} label={label} />
        <dl className="facts">
          <dt>Composite</dt>
          <dd data-testid="sentiment-score" data-value={s.sentiment}>
            {s.sentiment >= 0 ? "+" : ""}
            {s.sentiment.toFixed(3)} ({label})
          </dd>
          <dt>XLM price</dt>
          <dd data-testid="sentiment-price" data-value={s.price_usd ?? ""}>
            {s.price_usd === null ? "n/a" : `$${s.price_usd}`}
          </dd>
          {s.spread_pct !== undefined ? (
            <>
              <dt>SDEX spread</dt>
              <dd>{s.spread_pct === null ? "n/a" : `${s.spread_pct}%`}</dd>
            </>
          ) : null}
          <dt>Computed</dt>
          <dd>
            <time dateTime={s.ts} data-testid="sentiment-time">
              {s.ts.replace("T", " ").slice(0, 19)} UTC
            </time>
          </dd>
        </dl>
      </div>
      <div>
        <ScrollRegion label="Components of the composite sentiment">
          <table>
            <caption className="visually-hidden">Components of the composite sentiment</caption>
            <thead>
              <tr>
                <th scope="col">Component</th>
                <th scope="col">Input</th>
                <th scope="col">Score</th>
                <th scope="col">Weight</th>
              </tr>
            </thead>
            <tbody>
              {s.components.map((c) => (
                <tr key={c.name}>
                  <th scope="row">{NAMES[c.name] ?? c.name}</th>
                  <td>{c.status === "ok" && c.raw !== null ? (RAW_UNITS[c.name]?.(c.raw) ?? String(c.raw)) : <span className="muted">unavailable</span>}</td>
                  <td style={{ minWidth: "4.5rem" }}>
                    <ScoreBar score={c.score} />
                    <span className="small">{c.score === null ? "" : c.score.toFixed(3)}</span>
                  </td>
                  <td>{(c.weight * 100).toFixed(0)}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {s.missing.length ? <p className="notice warn small">Computed without {s.missing.join(", ")}: the other weights were renormalised.</p> : null}
        <p className="small muted">Source: {s.source}. Positive = bullish.</p>
      </div>
    </div>
  );
}

export async function LiveSentiment() {
  const live = await liveSnapshot();
  if (!live.ok) {
    return (
      <div className="notice warn" role="status" data-testid="sentiment-unavailable">
        {live.message} The other products keep working; reload in a minute.
      </div>
    );
  }
  return <SentimentPanel now={live.data} />;
}
