/**
 * A small closed-loop HTTP load generator: `connections` keep-alive sockets, each sending
 * the next request as soon as the previous answer arrived, for `seconds`. Reports
 * throughput and latency percentiles. The same generator measures the baseline and the
 * target in one run, so its own overhead cancels out in the ratios.
 */
import http from "node:http";

export interface LoadResult {
  /** Every latency (ms), sorted ascending. */
  latencies: number[];
  /** Wall-clock duration of the run. */
  seconds: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Build headers per request (e.g. a fresh payment each call). */
  headersFor?: (i: number) => Promise<Record<string, string>> | Record<string, string>;
  method?: string;
  /** Request body (sent with Content-Length), e.g. a JSON-RPC message. */
  body?: string;
  /** Keep-alive connections to reuse (and leave open); by default the run opens its own and closes them at the end. */
  agent?: http.Agent;
}

function once(agent: http.Agent, url: URL, headers: Record<string, string>, method: string, body?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function load(o: LoadOptions): Promise<LoadResult> {
  const url = new URL(o.url);
  const body = o.body === undefined ? undefined : Buffer.from(o.body);
  const agent = o.agent ?? new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let n = 0;
  const deadline = performance.now() + o.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.connections }, async () => {
      while (performance.now() < deadline) {
        const i = n++;
        const headers = { ...o.headers, ...(o.headersFor ? await o.headersFor(i) : {}), ...(body ? { "Content-Length": String(body.byteLength) } : {}) };
        const t0 = performance.now();
        try {
          const status = await once(agent, url, headers, o.method ?? "GET", body);
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
  if (!o.agent) agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    latencies,
    seconds: elapsed,
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
  };
}

/** Every figure reported since the last `takeReported()` (what scripts/bench.ts writes to docs/benchmarks.json). */
let reported: Record<string, number | string> = {};

/** Prints one `name: value` line and keeps the figure, as printed, for the results file. */
export function report(name: string, value: number | string, unit = ""): void {
  const v = typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 3 : 1)) : value;
  console.log(`${name}: ${v}${unit ? ` ${unit}` : ""}`);
  reported[name] = typeof value === "number" && Number.isFinite(value) ? Number(v) : unit ? `${v} ${unit}` : v;
}

/** The figures reported since the last call, and a fresh start. */
export function takeReported(): Record<string, number | string> {
  const r = reported;
  reported = {};
  return r;
}

export interface Target {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** Latencies and outcome counts of one measurement window. */
interface Window {
  latencies: number[];
  errors: number;
  seconds: number;
}

/** One measurement window of `t` with the shared load generator, on `agent`'s connections. */
async function measure(t: Target, agent: http.Agent, connections: number, seconds: number): Promise<Window> {
  const r = await load({ url: t.url, method: t.method, headers: t.headers, body: t.body, connections, seconds, agent });
  return { latencies: r.latencies, errors: r.errors, seconds: r.seconds };
}

function summarize(ws: Window[]): Omit<LoadResult, "statuses" | "latencies" | "seconds"> {
  const latencies = ws.flatMap((w) => w.latencies).sort((a, b) => a - b);
  const seconds = ws.reduce((a, w) => a + w.seconds, 0);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]! : NaN);
  return { requests: latencies.length, errors: ws.reduce((a, w) => a + w.errors, 0), rps: latencies.length / seconds, p50: pct(50), p99: pct(99) };
}

/**
 * Alternates short windows of the two targets, so background load on the machine
 * (other processes, GC, the embedded database's checkpoints) falls on both sides alike.
 * `warmupSeconds` (per target, also alternating) runs first and is not counted.
 *
 * Each target keeps its own `connections` keep-alive sockets for the whole run, opened
 * during the warm-up, as a steady client does. Opening them afresh in every window put
 * a burst of first requests on new connections at each switch; on this machine those
 * took 0.5-1.4 s on either side right after the other target's window, about 3% of all
 * requests, so p99 measured the window switches instead of the routes.
 */
export async function interleaved(a: Target, b: Target, connections: number, seconds: number, rounds: number, warmupSeconds = 0) {
  const agents = new Map<Target, http.Agent>([
    [a, new http.Agent({ keepAlive: true, maxSockets: connections })],
    [b, new http.Agent({ keepAlive: true, maxSockets: connections })],
  ]);
  try {
    for (let i = 0; i < 2 && warmupSeconds > 0; i++) {
      for (const t of [a, b]) await measure(t, agents.get(t)!, connections, warmupSeconds / 2);
    }
    const wa: Window[] = [];
    const wb: Window[] = [];
    for (let i = 0; i < rounds; i++) {
      const order: [Target, Window[]][] = i % 2 === 0 ? [[a, wa], [b, wb]] : [[b, wb], [a, wa]];
      for (const [t, ws] of order) ws.push(await measure(t, agents.get(t)!, connections, seconds / rounds));
    }
    return [summarize(wa), summarize(wb)] as const;
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
}
