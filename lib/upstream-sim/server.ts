/**
 * Offline upstream server: one loopback HTTP server that speaks every provider's wire
 * format under its own path prefix (`/coingecko/api/v3/...`, `/horizon/order_book`,
 * ...). Tests and `UPSTREAM_MODE=simulated` point the adapters' base URLs here, so the
 * real HTTP, parsing and caching code runs.
 *
 * It also counts requests per resource (for the fan-in benchmark and tests) and can
 * inject faults per provider: HTTP errors, malformed bodies, non-JSON, delays, hangs,
 * and lost answers (the request takes effect, then the answer is an error or never
 * comes: what a client sees when a gateway times out after the upstream acted).
 * A provider can also be given a request budget per window, as keyless tiers have:
 * past it the simulator answers 429 with `Retry-After` (the seconds left in the window)
 * in the provider's own error format. It tracks the peak of concurrent requests too.
 * Control is in-process (the returned object) or over HTTP under `/__sim/`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createWorld, type World } from "@/lib/upstream-sim/world";
import { SIM_PROVIDERS } from "@/lib/upstream-sim/providers";
import type { Fault, SimProvider, SimRequest, SimResponse } from "@/lib/upstream-sim/provider";

export type { Fault, SimProvider, SimRequest, SimResponse } from "@/lib/upstream-sim/provider";

/** A request budget: at most `limit` requests per fixed window of `windowMs`, then 429. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface Simulator {
  url: string;
  port: number;
  world: World;
  /** Environment variables pointing every adapter at this server. */
  env: Record<string, string>;
  setFault(provider: string, fault: Fault | null): void;
  clearFaults(): void;
  /** Budget per window for a provider (null removes it); cleared with the faults. */
  setRateLimit(provider: string, limit: RateLimit | null): void;
  /** Most requests a provider had in flight at once since the last reset. */
  peakConcurrency(provider: string): number;
  /** Requests seen, keyed `provider path?sorted-query` (JSON-RPC: `provider rpc:method`). */
  counts(): Record<string, number>;
  /** Total requests for a provider (or all providers). */
  total(provider?: string): number;
  resetCounts(): void;
  close(): Promise<void>;
}

export interface SimOptions {
  seed?: number;
  port?: number;
  host?: string;
  now?: number;
}

function resourceKey(provider: string, path: string, query: URLSearchParams, body: unknown): string {
  if (body && typeof body === "object" && "method" in body) {
    const b = body as { method: unknown; params?: unknown };
    return `${provider} rpc:${String(b.method)}:${JSON.stringify(b.params ?? [])}`;
  }
  const q = [...query.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join("&");
  return `${provider} ${path}${q ? `?${q}` : ""}`;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 1_000_000) throw new Error("body too large");
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": typeof body === "string" ? "text/plain" : "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Starts the simulator on a loopback port (0 = any free port). */
export async function startSimulator(opts: SimOptions = {}): Promise<Simulator> {
  const world = createWorld(opts.seed ?? 402, opts.now);
  const providers = new Map(SIM_PROVIDERS.map((p) => [p.name, p]));
  const faults = new Map<string, Fault>();
  const counts = new Map<string, number>();
  const totals = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const budgets = new Map<string, RateLimit & { windowStart: number; used: number }>();
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const setRateLimit = (provider: string, limit: RateLimit | null) =>
    limit ? budgets.set(provider, { ...limit, windowStart: Number.NEGATIVE_INFINITY, used: 0 }) : budgets.delete(provider);
  /** Seconds until the budget frees up, or null when this request is within it. Real clock: tests freeze Date. */
  const overBudget = (provider: string): number | null => {
    const b = budgets.get(provider);
    if (!b) return null;
    const now = performance.now();
    if (now - b.windowStart >= b.windowMs) {
      b.windowStart = now;
      b.used = 0;
    }
    if (b.used < b.limit) {
      b.used++;
      return null;
    }
    return Math.max(1, Math.ceil((b.windowStart + b.windowMs - now) / 1000));
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://sim");
      const [, prefix = "", ...rest] = url.pathname.split("/");
      if (prefix === "__sim") return control(req, res, rest.join("/"));
      const provider = providers.get(prefix);
      if (!provider) return send(res, 404, { error: `unknown provider ${prefix}` });
      const path = "/" + rest.join("/");
      let body: unknown;
      try {
        body = await readBody(req);
      } catch {
        return send(res, 413, { error: "body too large" });
      }
      const key = resourceKey(provider.name, path, url.searchParams, body);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      totals.set(provider.name, (totals.get(provider.name) ?? 0) + 1);
      const flying = (inFlight.get(provider.name) ?? 0) + 1;
      inFlight.set(provider.name, flying);
      peaks.set(provider.name, Math.max(peaks.get(provider.name) ?? 0, flying));
      res.on("close", () => inFlight.set(provider.name, (inFlight.get(provider.name) ?? 1) - 1));
      const retryAfter = overBudget(provider.name);
      if (retryAfter !== null) {
        return send(res, 429, provider.rateLimitedBody ?? { error: "rate limited" }, { "Retry-After": String(retryAfter) });
      }

      const fault = faults.get(provider.name);
      const applies =
        fault && (!fault.pathPrefix || path.startsWith(fault.pathPrefix)) && (!fault.method || fault.method.toUpperCase() === (req.method ?? "GET"));
      const hang = () => {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
      };
      if (fault && applies) {
        if (fault.mode === "error") return send(res, fault.status ?? 500, fault.body ?? { error: "simulated upstream failure" }, fault.headers);
        if (fault.mode === "not_json") return send(res, 200, "<html>simulated outage page</html>");
        if (fault.mode === "malformed") return send(res, 200, { unexpected: "simulated malformed response", data: [null] });
        if (fault.mode === "hang") return hang();
        if (fault.mode === "delay") await new Promise((r) => setTimeout(r, fault.ms));
      }
      try {
        const out = await provider.handle({ method: req.method ?? "GET", path, query: url.searchParams, body, now: Date.now() }, world);
        if (!out) return send(res, 404, { error: `no simulated route ${path}` });
        if (fault && applies && fault.mode === "error_after_apply") return send(res, fault.status ?? 504, { error: "simulated gateway timeout after the request took effect" });
        if (fault && applies && fault.mode === "hang_after_apply") return hang();
        send(res, out.status ?? 200, out.body, out.headers);
      } catch (err) {
        send(res, 500, { error: `simulator error: ${(err as Error).message}` });
      }
    })();
  });

  async function control(req: IncomingMessage, res: ServerResponse, action: string): Promise<void> {
    const body = (await readBody(req).catch(() => undefined)) as { provider?: string; fault?: Fault | null; limit?: RateLimit | null } | undefined;
    if (action === "stats" && req.method === "GET") {
      return send(res, 200, { totals: Object.fromEntries(totals), counts: Object.fromEntries(counts) });
    }
    if (action === "reset" && req.method === "POST") {
      counts.clear();
      totals.clear();
      faults.clear();
      budgets.clear();
      peaks.clear();
      return send(res, 200, { ok: true });
    }
    if (action === "faults" && req.method === "POST" && body?.provider) {
      if (body.fault) faults.set(body.provider, body.fault);
      else faults.delete(body.provider);
      return send(res, 200, { ok: true });
    }
    if (action === "rate-limit" && req.method === "POST" && body?.provider) {
      setRateLimit(body.provider, body.limit ?? null);
      return send(res, 200, { ok: true });
    }
    send(res, 404, { error: "unknown control action" });
  }

  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  const envVars: Record<string, string> = {};
  for (const p of SIM_PROVIDERS) envVars[p.envVar] = `${url}/${p.name}`;

  return {
    url,
    port,
    world,
    env: envVars,
    setFault: (provider, fault) => (fault ? faults.set(provider, fault) : faults.delete(provider)),
    clearFaults: () => {
      faults.clear();
      budgets.clear();
    },
    setRateLimit,
    peakConcurrency: (provider) => peaks.get(provider) ?? 0,
    counts: () => Object.fromEntries(counts),
    total: (provider) =>
      provider ? (totals.get(provider) ?? 0) : [...totals.values()].reduce((a, b) => a + b, 0),
    resetCounts: () => {
      counts.clear();
      totals.clear();
      peaks.clear();
    },
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
