/**
 * MCP figures (issue: MCP server): `tools/call` of a cached paid tool with a free-tier
 * key (get_fear_greed_index → /v1/fng) against the same product over plain HTTP
 * (GET /v1/fng with X-Api-Key), same service, same concurrency, same load generator,
 * same run. Both paths pass the gate (key lookup, quota decrement, receipt) and hit the
 * product's response cache, so the ratio isolates the MCP transport's cost. The two
 * targets are measured in alternating windows after a warm-up, so load from other
 * processes on the machine falls on both alike, each on its own keep-alive connections
 * held for the whole run (as an MCP client holds its connection). See ./versus.ts.
 */
import type { Target } from "./load";
import { versusHttp } from "./versus";

const TOOL = "get_fear_greed_index";

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
  await versusHttp({
    prefix: "mcp",
    target: "mcp_tools_call",
    path: "/v1/fng",
    build: (url, key) => ({
      url: `${url}/mcp`,
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: { api_key: key } } }),
    }),
    check: async (t, when) => {
      const r = await callOnce(t);
      if (r.isError) throw new Error(`tools/call ${TOOL} answered an error ${when}: ${JSON.stringify(r).slice(0, 300)}`);
    },
  });
}
