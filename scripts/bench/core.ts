/**
 * Service-core figures (issue: service core):
 * - cached paid endpoint vs the trivial static route of the same server, 50 connections,
 *   measured in alternating windows;
 * - cold-cache fan-in: 200 concurrent requests → requests per upstream resource;
 * - cold-cache composite latency with injected upstream delays vs slowest and sum.
 */
import { startSimulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../../tests/helpers/service";
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
