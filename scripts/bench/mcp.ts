/**
 * MCP figures (issue: MCP server): `tools/call` of a cached paid tool with a free-tier
 * key (get_fear_greed_index → /v1/fng) against the same product over plain HTTP
 * (GET /v1/fng with X-Api-Key), same service, same concurrency, same load generator,
 * same run. Both paths pass the gate (key lookup, quota decrement, receipt) and hit the
 * product's response cache, so the ratio isolates the MCP transport's cost.
 *
 * The service gets a very large FREE_KEY_DAILY_QUOTA so one key lasts the whole run.
 */
import http from "node:http";
import { startSimulator } from "@/lib/upstream-sim/server";
import { startService } from "../../tests/helpers/service";
import { report, type LoadResult } from "./load";
import { BENCH_SECONDS } from "./core";

const CONNECTIONS = 32;
const TOOL = "get_fear_greed_index";
const PATH = "/v1/fng";

interface Target {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/**
 * The closed loop of scripts/bench/load.ts, with a request body (load() sends none).
 * Used for BOTH targets so the generator's own cost cancels out in the ratios.
 */
async function loadWithBody(t: Target, connections: number, seconds: number): Promise<LoadResult> {
  const url = new URL(t.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const body = t.body === undefined ? undefined : Buffer.from(t.body);
  const headers = body ? { ...t.headers, "Content-Length": String(body.byteLength) } : t.headers;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: t.method, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const status = await once();
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 400) errors++;
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]! : NaN);
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: pct(50), p99: pct(99), statuses };
}

/** The JSON-RPC result of one tools/call (the stateless transport answers as a one-event SSE stream). */
async function callOnce(t: Target): Promise<{ isError?: boolean; structuredContent?: unknown }> {
  const res = await fetch(t.url, { method: "POST", headers: t.headers, body: t.body });
  const text = await res.text();
  const data = text.split("\n").find((l) => l.startsWith("data: "))?.slice(6) ?? text;
  const msg = JSON.parse(data) as { result?: { isError?: boolean; structuredContent?: unknown }; error?: unknown };
  if (!msg.result) throw new Error(`tools/call failed: ${data.slice(0, 300)}`);
  return msg.result;
}

export async function mcpBench(): Promise<void> {
  const sim = await startSimulator({ seed: 402 });
  const svc = await startService({ env: { ...sim.env, UPSTREAM_MODE: "live", LOG_LEVEL: "warn", FREE_KEY_DAILY_QUOTA: "100000000" } });
  try {
    const minted = (await (await fetch(`${svc.url}/v1/free-key`)).json()) as { api_key?: string };
    if (!minted.api_key) throw new Error(`could not mint a free key: ${JSON.stringify(minted)}`);
    const key = minted.api_key;

    const plain: Target = { url: `${svc.url}${PATH}`, method: "GET", headers: { "X-Api-Key": key } };
    const mcp: Target = {
      url: `${svc.url}/mcp`,
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: { api_key: key } } }),
    };

    // Both must really serve the product (not a requirement or an error) before timing.
    const warm = await fetch(plain.url, { headers: plain.headers });
    if (warm.status !== 200) throw new Error(`GET ${PATH} with a key answered ${warm.status}`);
    const first = await callOnce(mcp);
    if (first.isError) throw new Error(`tools/call ${TOOL} answered an error: ${JSON.stringify(first).slice(0, 300)}`);

    await loadWithBody(plain, CONNECTIONS, 2);
    await loadWithBody(mcp, CONNECTIONS, 2);
    const base = await loadWithBody(plain, CONNECTIONS, BENCH_SECONDS);
    const target = await loadWithBody(mcp, CONNECTIONS, BENCH_SECONDS);
    const after = await callOnce(mcp);
    if (after.isError) throw new Error(`tools/call ${TOOL} failed after the run: ${JSON.stringify(after).slice(0, 300)}`);

    report("mcp_connections", CONNECTIONS);
    report("http_same_product_rps", base.rps);
    report("http_same_product_p50_ms", base.p50);
    report("http_same_product_p99_ms", base.p99);
    report("http_same_product_errors", base.errors);
    report("mcp_tools_call_rps", target.rps);
    report("mcp_tools_call_p50_ms", target.p50);
    report("mcp_tools_call_p99_ms", target.p99);
    report("mcp_tools_call_errors", target.errors);
    report("mcp_vs_http_throughput_ratio", target.rps / base.rps);
    // Like the core figures: baseline over target, so higher is better and 1 means equal.
    report("mcp_vs_http_p99_ratio", base.p99 / target.p99);
  } finally {
    await svc.stop();
    await sim.close();
  }
}
