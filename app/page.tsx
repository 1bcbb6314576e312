// GET / (browsers) — home page. Agents asking for JSON are rewritten to /api/service-info.
export default function Home() {
  return (
    <main>
      <h1>Echo x402 Sentiment</h1>
      <p>Pay-per-call crypto market intelligence for autonomous agents. See <a href="/v1/manifest">/v1/manifest</a>.</p>
    </main>
  );
}
