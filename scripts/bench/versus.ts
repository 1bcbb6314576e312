/**
 * "Same product over another transport vs plain HTTP" sections (MCP, A2A): one service
 * on the simulator with a free key that lasts the whole run (very large
 * FREE_KEY_DAILY_QUOTA), both targets checked to really serve the product before and
 * after timing, measured in alternating windows on their own keep-alive connections.
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

export interface Versus {
  /** Figure names: `${prefix}_connections`, `${target}_rps`…, `${prefix}_vs_http_*_ratio`. */
  prefix: string;
  target: string;
  /** The HTTP path whose GET with X-Api-Key is the baseline. */
  path: string;
  /** The request under test, given the service URL and the key. */
  build(url: string, key: string): Target;
  /** Throws unless one call of the target served the product. */
  check(t: Target, when: string): Promise<void>;
  /** The service's environment beyond the simulator's (e.g. DATABASE_URL). */
  env?: Record<string, string>;
  /** Figure names of the HTTP baseline (default `http_same_product`: `${baseline}_rps`…). */
  baseline?: string;
}

export async function versusHttp(v: Versus): Promise<void> {
  const sim = await startSimulator({ seed: 402 });
  const svc = await startService({ env: { ...sim.env, ...v.env, UPSTREAM_MODE: "live", LOG_LEVEL: "warn", FREE_KEY_DAILY_QUOTA: "100000000" } });
  const baseline = v.baseline ?? "http_same_product";
  try {
    const minted = (await (await fetch(`${svc.url}/v1/free-key`)).json()) as { api_key?: string };
    if (!minted.api_key) throw new Error(`could not mint a free key: ${JSON.stringify(minted)}`);
    const key = minted.api_key;
    const plain: Target = { url: `${svc.url}${v.path}`, method: "GET", headers: { "X-Api-Key": key } };
    const target = v.build(svc.url, key);

    const warm = await fetch(plain.url, { headers: plain.headers });
    if (warm.status !== 200) throw new Error(`GET ${v.path} with a key answered ${warm.status}`);
    await v.check(target, "before the run");
    const [base, t] = await interleaved(plain, target, CONNECTIONS, BENCH_SECONDS, ROUNDS, WARMUP_SECONDS);
    await v.check(target, "after the run");

    report(`${v.prefix}_connections`, CONNECTIONS);
    report(`${v.prefix}_bench_seconds_per_target`, BENCH_SECONDS);
    report(`${baseline}_rps`, base.rps);
    report(`${baseline}_p50_ms`, base.p50);
    report(`${baseline}_p99_ms`, base.p99);
    report(`${baseline}_errors`, base.errors);
    report(`${v.target}_rps`, t.rps);
    report(`${v.target}_p50_ms`, t.p50);
    report(`${v.target}_p99_ms`, t.p99);
    report(`${v.target}_errors`, t.errors);
    report(`${v.prefix}_vs_http_throughput_ratio`, t.rps / base.rps);
    // Like the core figures: baseline over target, so higher is better and 1 means equal.
    report(`${v.prefix}_vs_http_p99_ratio`, base.p99 / t.p99);
  } finally {
    await svc.stop();
    await sim.close();
  }
}
