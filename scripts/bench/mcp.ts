/**
 * MCP figures (issue: MCP server): `tools/call` of a cached paid tool with a free-tier
 * key (get_fear_greed_index → /v1/fng) against the same product over plain HTTP
 * (GET /v1/fng with X-Api-Key), same service, same concurrency, same load generator,
 * same run. Both paths pass the gate (key lookup, quota decrement, receipt) and hit the
 * product's response cache, so the ratio isolates the MCP transport's cost. The two
 * targets are measured in alternating windows (ROUNDS each) after a warm-up, so load
 * from other processes on the machine falls on both alike, each on its own keep-alive
 * connections held for the whole run (as an MCP client holds its connection).
 *
 * The service gets a very large FREE_KEY_DAILY_QUOTA so one key lasts the whole run.
 */
import { startSimulator } from "@/lib/upstream-sim/server";
import { startService } from "../../tests/helpers/service";
import { interleaved, report, type Target } from "./load";
import { BENCH_SECONDS } from "./core";

const CONNECTIONS = 32;
/** Alternating measurement windows per target (BENCH_SECONDS split between them). */
const ROUNDS = 4;
/** Unmeasured warm-up per target (JIT, route compilation, the connections themselves). */
const WARMUP_SECONDS = 4;
const TOOL = "get_fear_greed_index";
const PATH = "/v1/fng";

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

    const [base, target] = await interleaved(plain, mcp, CONNECTIONS, BENCH_SECONDS, ROUNDS, WARMUP_SECONDS);
    const after = await callOnce(mcp);
    if (after.isError) throw new Error(`tools/call ${TOOL} failed after the run: ${JSON.stringify(after).slice(0, 300)}`);

    report("mcp_connections", CONNECTIONS);
    report("mcp_bench_seconds_per_target", BENCH_SECONDS);
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
