/**
 * Health: the database answers a query within a time limit, and the last outcome of
 * every upstream provider used since start. "degraded" when some upstream failed last
 * time (products depending on it may answer 503), "down" when the database is out.
 */
import { getDbHandle } from "@/lib/db/client";
import { upstreamStatus } from "@/lib/market/upstream";
import { env } from "@/lib/config/env";

export interface HealthReport {
  status: "ok" | "degraded" | "down";
  version: string;
  uptime_seconds: number;
  database: { ok: boolean; mode?: string; latency_ms?: number; error?: string };
  upstreams: Record<string, { ok: boolean; at: string; error?: string; requests: number; failures: number }>;
  upstream_mode: string;
  ts: string;
}

const started = Date.now();

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function healthReport(): Promise<HealthReport> {
  let database: HealthReport["database"];
  const t0 = Date.now();
  try {
    const h = await withTimeout(getDbHandle(), 30_000, "database open");
    await withTimeout(h.prisma.$queryRaw`SELECT 1`, 3000, "database query");
    database = { ok: true, mode: h.mode, latency_ms: Date.now() - t0 };
  } catch (err) {
    database = { ok: false, error: (err as Error).message.split("\n")[0] };
  }
  const upstreams = upstreamStatus();
  const anyDown = Object.values(upstreams).some((u) => !u.ok);
  return {
    status: !database.ok ? "down" : anyDown ? "degraded" : "ok",
    version: "0.1.0",
    uptime_seconds: Math.round((Date.now() - started) / 1000),
    database,
    upstreams,
    upstream_mode: env().UPSTREAM_MODE,
    ts: new Date().toISOString(),
  };
}
