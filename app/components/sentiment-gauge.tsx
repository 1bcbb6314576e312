// Half-circle gauge of a score in [-1, 1] (left = bearish, right = bullish), drawn as
// inline SVG so it renders on the server without any script.
const BANDS: Array<{ from: number; to: number; color: string }> = [
  { from: -1, to: -0.5, color: "#b3261e" },
  { from: -0.5, to: -0.15, color: "#e07b67" },
  { from: -0.15, to: 0.15, color: "#a7adb7" },
  { from: 0.15, to: 0.5, color: "#5fb37a" },
  { from: 0.5, to: 1, color: "#1d7a3e" },
];

const CX = 110;
const CY = 110;
const R = 90;

/** Point on the arc for a score: -1 → left end, +1 → right end. */
function point(score: number, r = R): [number, number] {
  const angle = Math.PI * (1 - (score + 1) / 2);
  return [CX + r * Math.cos(angle), CY - r * Math.sin(angle)];
}

function arc(from: number, to: number): string {
  const [x1, y1] = point(from);
  const [x2, y2] = point(to);
  return `M ${x1.toFixed(2)} ${y1.toFixed(2)} A ${R} ${R} 0 0 1 ${x2.toFixed(2)} ${y2.toFixed(2)}`;
}

export function SentimentGauge({ score, label }: { score: number; label: string }) {
  const s = Math.max(-1, Math.min(1, score));
  const [nx, ny] = point(s, R - 18);
  return (
    <svg className="gauge" viewBox="0 0 220 130" role="img" aria-label={`Composite sentiment ${score.toFixed(2)} (${label}) on a scale from -1 (bearish) to +1 (bullish)`}>
      {BANDS.map((b) => (
        <path key={b.from} d={arc(b.from, b.to)} stroke={b.color} strokeWidth="18" fill="none" />
      ))}
      <line x1={CX} y1={CY} x2={nx.toFixed(2)} y2={ny.toFixed(2)} stroke="#16181d" strokeWidth="4" strokeLinecap="round" />
      <circle cx={CX} cy={CY} r="7" fill="#16181d" />
      <text x="14" y="127" fontSize="11" fill="#4a5160">
        −1 bearish
      </text>
      <text x="206" y="127" fontSize="11" fill="#4a5160" textAnchor="end">
        bullish +1
      </text>
    </svg>
  );
}

/** Small horizontal bar showing where a component score sits in [-1, 1]. */
export function ScoreBar({ score }: { score: number | null }) {
  if (score === null) return <span className="muted small">n/a</span>;
  const pct = ((Math.max(-1, Math.min(1, score)) + 1) / 2) * 100;
  return (
    <div className="score-bar" aria-hidden="true">
      {/* Inset by half the marker's width so a score of ±1 stays inside the bar. */}
      <span style={{ left: `calc(0.15rem + (100% - 0.3rem) * ${pct / 100})` }} />
    </div>
  );
}
