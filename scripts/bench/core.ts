/**
 * Service-core figures (issue: service core):
 * - cached paid endpoint vs the trivial static route of the same server, 50 connections,
 *   measured in alternating windows;
 * - cold-cache fan-in: 200 concurrent requests → requests per upstream resource;
 * - cold-cache composite latency with injected upstream delays vs slowest and sum;
 * and, as section "lane" of scripts/bench.ts (run once in a full run, not by core):
 * - the fast lane (lib/server/fast-lane.ts, issue 29): a key call against a bare Node
 *   server answering the same bytes, its p99 over p50 at 50 connections, and the same
 *   call through Next's pipeline (a FAST_LANE=0 server) for scale.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { startSimulator } from "@/lib/upstream-sim/server";
import { freePort, startService, type Service } from "../../tests/helpers/service";
import { randomBytes } from "node:crypto";
import { hasPostgres, POSTGRES_URL } from "../../tests/helpers/services";
import { interleaved, report, type Target } from "./load";

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export async function coreBench(): Promise<void> {
  const sim = await startSimulator({ seed: 402 });
  try {
    await throughput(sim.env, "");
    if (await hasPostgres()) {
      await throughput({ ...sim.env, DATABASE_URL: `${POSTGRES_URL}?schema=bench_core_${randomBytes(4).toString("hex")}` }, "postgres_");
    }
    await fanIn(sim);
    await coldLatency(sim);
  } finally {
    await sim.close();
  }
}

/** A free-tier key on a service whose daily quota is raised for load tests. */
async function benchKey(svc: Service): Promise<Record<string, string>> {
  const key = (await (await fetch(`${svc.url}/v1/free-key`)).json()).api_key as string;
  return { "X-Api-Key": key };
}

const BENCH_ENV = { LOG_LEVEL: "warn", FREE_KEY_DAILY_QUOTA: "1000000000" };

/** Static route vs cached paid endpoint (free-key credential: one ledger write per call). */
async function throughput(simEnv: Record<string, string>, prefix: string): Promise<void> {
  const svc = await startService({ env: { ...simEnv, ...BENCH_ENV } });
  try {
    const paid = `${svc.url}/v1/fng`;
    const headers = await benchKey(svc);
    const warm = await fetch(paid, { headers });
    if (warm.status !== 200) throw new Error(`warm-up of /v1/fng answered ${warm.status}`);
    const staticUrl = `${svc.url}/health/live`;
    // Alternating windows, so drift of the machine's speed falls on both routes alike,
    // after 4 s per route of warm-up (JIT, route compilation, the connections).
    const staticRoute: Target = { url: staticUrl, method: "GET", headers: {} };
    const paidRoute: Target = { url: paid, method: "GET", headers };
    const [base, target] = await interleaved(staticRoute, paidRoute, 50, BENCH_SECONDS, 4, 4);
    report(`${prefix}static_route_rps`, base.rps);
    report(`${prefix}static_route_p50_ms`, base.p50);
    report(`${prefix}static_route_p99_ms`, base.p99);
    report(`${prefix}cached_paid_endpoint_rps`, target.rps);
    report(`${prefix}cached_paid_endpoint_p50_ms`, target.p50);
    report(`${prefix}cached_paid_endpoint_p99_ms`, target.p99);
    report(`${prefix}cached_paid_endpoint_errors`, target.errors);
    report(`${prefix}cached_vs_static_throughput_ratio`, target.rps / base.rps);
    report(`${prefix}cached_vs_static_p50_latency_ratio`, base.p50 / target.p50);
    report(`${prefix}cached_vs_static_p99_latency_ratio`, base.p99 / target.p99);
  } finally {
    await svc.stop();
  }
}

async function fanIn(sim: Awaited<ReturnType<typeof startSimulator>>): Promise<void> {
  const svc = await startService({ env: { ...sim.env, ...BENCH_ENV } });
  try {
    const headers = await benchKey(svc);
    sim.resetCounts();
    const statuses = await Promise.all(Array.from({ length: 200 }, () => fetch(`${svc.url}/v1/sentiment`, { headers }).then((r) => r.status)));
    const counts = Object.values(sim.counts());
    report("fanin_requests", statuses.length);
    report("fanin_ok_responses", statuses.filter((s) => s === 200).length);
    report("fanin_upstream_resources", counts.length);
    report("fanin_max_requests_per_resource", Math.max(...counts));
  } finally {
    await svc.stop();
  }
}

async function coldLatency(sim: Awaited<ReturnType<typeof startSimulator>>): Promise<void> {
  const delays = { alternative: 300, coingecko: 600, horizon: 900 };
  for (const [p, ms] of Object.entries(delays)) sim.setFault(p, { mode: "delay", ms });
  const svc = await startService({ env: { ...sim.env, ...BENCH_ENV } });
  try {
    // Prime everything the composite does not depend on (route code, DB, the gate)
    // without touching the sentiment upstreams.
    const headers = await benchKey(svc);
    await fetch(`${svc.url}/v1/sentiment-history?hours=abc`, { headers });
    const t0 = performance.now();
    const res = await fetch(`${svc.url}/v1/sentiment`, { headers });
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`/v1/sentiment answered ${res.status}`);
    const slowest = Math.max(...Object.values(delays));
    const sum = Object.values(delays).reduce((a, b) => a + b, 0);
    report("composite_cold_latency_ms", ms);
    report("composite_slowest_upstream_ms", slowest);
    report("composite_sum_of_upstreams_ms", sum);
    report("composite_latency_vs_slowest_ratio", ms / slowest);
    report("composite_latency_vs_sum_ratio", ms / sum);
  } finally {
    sim.clearFaults();
    await svc.stop();
  }
}

/** The fast-lane figures alone (`npm run bench -- lane`). */
export async function fastLaneBench(): Promise<void> {
  const sim = await startSimulator({ seed: 402 });
  try {
    await fastLane(sim.env);
  } finally {
    await sim.close();
  }
}

const LANE_CONNECTIONS = 50;
/** The key call of the table: a free-key GET /v1/quote (one ledger write, cached product). */
const LANE_PATH = "/v1/quote";

/** One GET's status line, headers (as sent) and body bytes. */
function capture(url: string, headers: Record<string, string>): Promise<{ status: number; headers: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.rawHeaders, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/**
 * A bare Node `http` server in its own process (as the service is) answering every request
 * with `answer`'s status, headers and body: what Node itself costs for the same bytes.
 */
async function bareServer(answer: { status: number; headers: string[]; body: Buffer }): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const skip = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);
  const headers: string[] = [];
  for (let i = 0; i < answer.headers.length; i += 2) if (!skip.has(answer.headers[i]!.toLowerCase())) headers.push(answer.headers[i]!, answer.headers[i + 1]!);
  const script = `
    const http = require("node:http");
    const { status, headers, body } = JSON.parse(process.env.BARE_ANSWER);
    const bytes = Buffer.from(body, "base64");
    const s = http.createServer((req, res) => { res.writeHead(status, [...headers, "Content-Length", String(bytes.length)]); res.end(bytes); });
    s.keepAliveTimeout = 65000;
    s.listen(${port}, "127.0.0.1", () => console.log("ready"));`;
  const child = spawn(process.execPath, ["-e", script], {
    env: { ...process.env, BARE_ANSWER: JSON.stringify({ status: answer.status, headers, body: answer.body.toString("base64") }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** Key call on the fast lane vs a bare Node server answering the same bytes, and vs Next's pipeline. */
async function fastLane(simEnv: Record<string, string>): Promise<void> {
  const svc = await startService({ env: { ...simEnv, ...BENCH_ENV } });
  let bare: Awaited<ReturnType<typeof bareServer>> | undefined;
  let next: Service | undefined;
  try {
    const headers = await benchKey(svc);
    const url = `${svc.url}${LANE_PATH}`;
    // Next answers a route's first request; the lane every one after it.
    const first = await fetch(url, { headers });
    if (first.status !== 200) throw new Error(`warm-up of ${LANE_PATH} answered ${first.status}`);
    await first.arrayBuffer();
    const answer = await capture(url, headers);
    if (answer.status !== 200) throw new Error(`${LANE_PATH} with a key answered ${answer.status}`);
    bare = await bareServer(answer);
    const laneT: Target = { url, method: "GET", headers };
    const bareT: Target = { url: `${bare.url}${LANE_PATH}`, method: "GET", headers };
    const [b, l] = await interleaved(bareT, laneT, LANE_CONNECTIONS, BENCH_SECONDS, 4, 4);
    report("lane_connections", LANE_CONNECTIONS);
    report("lane_body_bytes", answer.body.length);
    report("bare_node_same_bytes_rps", b.rps);
    report("bare_node_same_bytes_p50_ms", b.p50);
    report("bare_node_same_bytes_p99_ms", b.p99);
    report("lane_key_call_rps", l.rps);
    report("lane_key_call_p50_ms", l.p50);
    report("lane_key_call_p99_ms", l.p99);
    report("lane_key_call_errors", l.errors);
    // Targets (issue 29): ≥ 0.15 and ≤ 2.
    report("lane_key_call_vs_bare_node_throughput_ratio", l.rps / b.rps);
    report("lane_key_call_p99_over_p50", l.p99 / l.p50);

    // The same call through Next's pipeline (everything as before the lane), for scale.
    next = await startService({ env: { ...simEnv, ...BENCH_ENV, FAST_LANE: "0" } });
    const nextHeaders = await benchKey(next);
    const nextT: Target = { url: `${next.url}${LANE_PATH}`, method: "GET", headers: nextHeaders };
    const warm = await fetch(nextT.url, { headers: nextHeaders });
    if (warm.status !== 200) throw new Error(`${LANE_PATH} through Next answered ${warm.status}`);
    const [n, l2] = await interleaved(nextT, laneT, LANE_CONNECTIONS, BENCH_SECONDS, 4, 4);
    report("next_pipeline_key_call_rps", n.rps);
    report("next_pipeline_key_call_p50_ms", n.p50);
    report("next_pipeline_key_call_p99_ms", n.p99);
    report("lane_key_call_vs_next_pipeline_throughput_ratio", l2.rps / n.rps);
  } finally {
    bare?.stop();
    await next?.stop();
    await svc.stop();
  }
}
