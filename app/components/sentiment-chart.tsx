"use client";
// Line chart of hourly composite sentiment (left axis, -1..1) and XLM price (right
// axis). Recharts measures its container, so it draws after mount; the data table
// below it is the accessible (and script-free) version of the same series.
import { useEffect, useState } from "react";
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { HistoryPoint } from "@/lib/web/live";

function hourLabel(ts: string): string {
  // UTC so the server-rendered table and the client chart agree.
  const d = new Date(ts);
  return `${String(d.getUTCDate()).padStart(2, "0")} ${String(d.getUTCHours()).padStart(2, "0")}:00`;
}

export function SentimentChart({ points }: { points: HistoryPoint[] }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const data = points.map((p) => ({ t: hourLabel(p.ts), sentiment: p.sentiment, price: p.price }));
  const prices = points.map((p) => p.price);
  const lo = Math.min(...prices);
  const hi = Math.max(...prices);
  const pad = (hi - lo) * 0.1 || hi * 0.01;
  const last = points.at(-1);
  return (
    // The latest bar's values as attributes: what the right-hand end of the chart shows.
    <div className="chart-box" data-testid="sentiment-chart" data-latest-ts={last?.ts} data-latest-sentiment={last?.sentiment ?? ""} data-latest-price={last?.price}>
      {mounted ? (
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={data} margin={{ top: 10, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#e3e6eb" strokeDasharray="3 3" />
            <XAxis dataKey="t" tick={{ fontSize: 11, fill: "#4a5160" }} interval="preserveStartEnd" minTickGap={24} />
            <YAxis yAxisId="s" domain={[-1, 1]} ticks={[-1, -0.5, 0, 0.5, 1]} tick={{ fontSize: 11, fill: "#4a5160" }} width={36} />
            <YAxis
              yAxisId="p"
              orientation="right"
              domain={[lo - pad, hi + pad]}
              tickFormatter={(v: number) => `$${v.toFixed(4)}`}
              tick={{ fontSize: 11, fill: "#4a5160" }}
              width={64}
            />
            <ReferenceLine yAxisId="s" y={0} stroke="#8a93a3" />
            <Tooltip
              formatter={(value, name) =>
                name === "XLM price (USD)" ? [`$${Number(value).toFixed(5)}`, name] : [value === null ? "n/a" : Number(value).toFixed(3), name]
              }
            />
            <Legend />
            <Line yAxisId="s" type="monotone" dataKey="sentiment" name="Composite sentiment" stroke="#0b57b0" strokeWidth={2} dot={false} connectNulls isAnimationActive={false} />
            <Line yAxisId="p" type="monotone" dataKey="price" name="XLM price (USD)" stroke="#b45309" strokeWidth={2} dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      ) : (
        <p className="muted">Loading chart…</p>
      )}
    </div>
  );
}
