/**
 * /health: the database (a query within a time limit, checked on every call) and every
 * upstream provider (an active probe each, in parallel, with a short timeout).
 *
 * Status rule:
 * - "down" (HTTP 503) when the database does not answer: no paid call can be
 *   authorized or charged, so the instance cannot serve its purpose;
 * - "degraded" (HTTP 200) when the database answers but at least one configured
 *   upstream does not: the products depending on it answer 503 (or mark a component
 *   unavailable) while the others work; `degraded_upstreams` names them;
 * - "ok" (HTTP 200) otherwise. A provider that is not configured (Etherscan without a
 *   key) is listed as "not_configured" and does not degrade the status.
 *
 * Probe results are shared for PROBE_CACHE_MS, whatever CACHE_DISABLED says, and
 * concurrent callers share one round: /health cannot be used to multiply upstream
 * traffic (at most one request per provider per 30 s and instance).
 */
import { getDbHandle } from "@/lib/db/client";
import { env } from "@/lib/config/env";
import { PROBES, runProbe, type ProbeResult } from "@/lib/http/health-probes";
import { SERVICE } from "@/lib/discovery/service";
import { processState } from "@/lib/process-state";

/** How long one round of upstream probes is reused. */
export const PROBE_CACHE_MS = 30_000;
/** Timeout of each probe (capped by UPSTREAM_TIMEOUT_MS). */
const PROBE_TIMEOUT_MS = 2_500;
/** Opening the database (first use applies migrations) and the check query. */
const DB_OPEN_TIMEOUT_MS = 5_000;
const DB_QUERY_TIMEOUT_MS = 3_000;

export interface DatabaseStatus {
  ok: boolean;
  mode?: string;
  latency_ms?: number;
  error?: string;
}

export interface HealthReport {
  status: "ok" | "degraded" | "down";
  version: string;
  uptime_seconds: number;
  database: DatabaseStatus;
  upstreams: Record<string, ProbeResult>;
  degraded_upstreams: string[];
  /** When the probes reported here ran (they are reused for 30 s). */
  upstreams_checked_at: string;
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

/** The database answers a query (opening it and applying migrations on first use). */
export async function databaseStatus(openTimeoutMs = DB_OPEN_TIMEOUT_MS): Promise<DatabaseStatus> {
  const t0 = Date.now();
  try {
    const h = await withTimeout(getDbHandle(), openTimeoutMs, "database open");
    await withTimeout(h.prisma.$queryRaw`SELECT 1`, DB_QUERY_TIMEOUT_MS, "database query");
    return { ok: true, mode: h.mode, latency_ms: Date.now() - t0 };
  } catch (err) {
    // First line only: driver messages can be long; no URL or credential is in them.
    return { ok: false, error: (err as Error).message.split("\n")[0]!.slice(0, 300) };
  }
}

interface ProbeRound {
  at: number;
  results: Promise<Record<string, ProbeResult>>;
}

/** The latest round of upstream probes, starting a new one when the last is stale. */
function probeRound(): ProbeRound {
  const holder = processState<{ last?: ProbeRound }>("health.probes", () => ({}));
  const now = Date.now();
  const last = holder.last;
  if (last && now - last.at < PROBE_CACHE_MS) return last;
  const timeout = Math.min(PROBE_TIMEOUT_MS, env().UPSTREAM_TIMEOUT_MS);
  const round: ProbeRound = {
    at: now,
    results: Promise.all(PROBES.map(async (p) => [p.provider.name, await runProbe(p, timeout)] as const)).then((entries) => Object.fromEntries(entries)),
  };
  holder.last = round;
  return round;
}

export async function healthReport(): Promise<HealthReport> {
  const round = probeRound();
  const [database, upstreams] = await Promise.all([databaseStatus(), round.results]);
  const degraded = Object.entries(upstreams)
    .filter(([, r]) => r.status === "down")
    .map(([name]) => name);
  return {
    status: !database.ok ? "down" : degraded.length ? "degraded" : "ok",
    version: SERVICE.apiVersion,
    uptime_seconds: Math.round((Date.now() - started) / 1000),
    database,
    upstreams,
    degraded_upstreams: degraded,
    upstreams_checked_at: new Date(round.at).toISOString(),
    upstream_mode: env().UPSTREAM_MODE,
    ts: new Date().toISOString(),
  };
}
