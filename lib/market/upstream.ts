/**
 * One client base for every upstream provider: configurable base URL and headers,
 * a timeout on every request, responses parsed with zod (a changed upstream format is
 * a clear `UpstreamError`, never a NaN downstream) and secrets redacted from messages.
 * A provider may name its own refusals (geo blocks, bans) and may bound bursts with a
 * limiter: then a 429 pauses every caller for its `Retry-After` and the call is retried
 * once. Every request is counted and timed per provider (lib/metrics). (/health probes
 * the providers itself: lib/http/health.ts.)
 */
import type { z } from "zod";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { round } from "@/lib/market/signals/math";
import type { UpstreamLimiter } from "@/lib/market/limiter";
import { UpstreamError, type UpstreamFailure } from "@/lib/market/upstream-error";
import { countUpstream, countUpstreamFailure } from "@/lib/metrics";

export { UpstreamError, type UpstreamErrorDetail, type UpstreamFailure } from "@/lib/market/upstream-error";

export interface Provider {
  /** Short stable name, e.g. "coingecko". */
  name: string;
  baseUrl: () => string;
  headers?: () => Record<string, string>;
  /** Query parameters whose values are secrets (redacted in errors and logs). */
  secretParams?: string[];
  /**
   * Names a refusal this provider is known for (a geo block, an IP ban) from the status,
   * the Retry-After and the start of the body; undefined leaves the plain "HTTP nnn".
   */
  describeRefusal?: (status: number, body: string, retryAfterMs: number | undefined) => string | undefined;
  /** Bounds bursts to the provider; with it a 429 is retried once after its Retry-After. */
  limiter?: () => UpstreamLimiter;
}

/** Retry-After as delta-seconds or an HTTP date, in ms from now; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Start of an error body a refusal is recognised by (CDN block pages are small). */
const REFUSAL_BODY_CHARS = 2048;

export type Query = Record<string, string | number | boolean | undefined | null>;

export function buildUrl(provider: Provider, path: string, query: Query = {}): URL {
  const base = provider.baseUrl().replace(/\/+$/, "");
  const url = new URL(base + (path.startsWith("/") ? path : `/${path}`));
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  }
  return url;
}

/**
 * What errors and logs may show of a request: the path relative to the configured base
 * URL (the base itself may embed a key, as Alchemy/Infura RPC URLs do) and the query
 * with secret parameters masked.
 */
function redact(provider: Provider, url: URL): string {
  const copy = new URL(url);
  for (const p of provider.secretParams ?? []) if (copy.searchParams.has(p)) copy.searchParams.set(p, "***");
  const basePath = new URL(provider.baseUrl()).pathname.replace(/\/+$/, "");
  const rel = copy.pathname.startsWith(basePath) ? copy.pathname.slice(basePath.length) : copy.pathname;
  return `${provider.name}:${rel || "/"}${copy.search}`;
}

/** Summarises a zod error in one line (path: message; ...). */
export function zodSummary(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

export interface RequestOptions {
  method?: "GET" | "POST";
  body?: unknown;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/**
 * GET (or POST) JSON from a provider and parse it with `schema`. With a limiter the
 * request waits for a slot and any Retry-After pause; a 429 pauses every caller for its
 * Retry-After and is retried once (when the pause is within the limiter's bound).
 */
export async function fetchJson<S extends z.ZodType>(
  provider: Provider,
  path: string,
  query: Query,
  schema: S,
  opts: RequestOptions = {},
): Promise<z.infer<S>> {
  const limiter = provider.limiter?.();
  if (!limiter) return fetchOnce(provider, path, query, schema, opts);
  const attempt = () => limiter.run(() => fetchOnce(provider, path, query, schema, opts));
  try {
    return await attempt();
  } catch (err) {
    // A note means the limiter already refused without a request: nothing to retry.
    if (!(err instanceof UpstreamError) || err.kind !== "rate_limited" || err.status !== 429 || err.note) throw err;
    const wait = err.retryAfterMs ?? limiter.opts.defaultWaitMs;
    limiter.pause(wait);
    if (wait > limiter.opts.maxWaitMs) {
      const s = Math.ceil(wait / 1000);
      throw new UpstreamError(provider.name, "rate_limited", `${err.message.replace(`${provider.name}: `, "")}; retry after ${s} s, not retried`, 429, {
        note: `rate limited (HTTP 429), retry after ${s} s`,
        retryAfterMs: wait,
      });
    }
    try {
      return await attempt();
    } catch (again) {
      if (!(again instanceof UpstreamError) || again.kind !== "rate_limited" || again.note) throw again;
      limiter.pause(again.retryAfterMs ?? limiter.opts.defaultWaitMs);
      const note = `rate limited (HTTP 429), still after one retry ${round(wait / 1000, 1)} s later`;
      throw new UpstreamError(provider.name, "rate_limited", `${again.message.replace(`${provider.name}: `, "")}; ${note}`, 429, { note, retryAfterMs: again.retryAfterMs });
    }
  }
}

async function fetchOnce<S extends z.ZodType>(provider: Provider, path: string, query: Query, schema: S, opts: RequestOptions): Promise<z.infer<S>> {
  const url = buildUrl(provider, path, query);
  const where = redact(provider, url);
  const timeoutMs = opts.timeoutMs ?? env().UPSTREAM_TIMEOUT_MS;
  const started = Date.now();
  let res: Response;
  try {
    res = await fetch(url, {
      method: opts.method ?? "GET",
      headers: {
        Accept: "application/json",
        "User-Agent": "echo-x402-sentiment/0.1 (+market-intelligence)",
        ...(opts.body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...provider.headers?.(),
        ...opts.headers,
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
      cache: "no-store",
    });
  } catch (err) {
    const e = err as Error;
    const kind: UpstreamFailure = e.name === "TimeoutError" || e.name === "AbortError" ? "timeout" : "network";
    const msg = kind === "timeout" ? `timed out after ${timeoutMs} ms (${where})` : `request failed (${where}): ${e.message}`;
    return fail(provider, new UpstreamError(provider.name, kind, msg), started);
  }
  if (!res.ok) {
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    let note: string | undefined;
    if (provider.describeRefusal) {
      const body = await res.text().then((t) => t.slice(0, REFUSAL_BODY_CHARS), () => "");
      note = provider.describeRefusal(res.status, body, retryAfterMs);
    } else {
      await res.body?.cancel().catch(() => undefined);
    }
    const kind: UpstreamFailure = res.status === 429 ? "rate_limited" : "http";
    const message = note ? `${note} (${where})` : `HTTP ${res.status} (${where})`;
    return fail(provider, new UpstreamError(provider.name, kind, message, res.status, { note, retryAfterMs }), started);
  }
  let raw: unknown;
  try {
    raw = await res.json();
  } catch (err) {
    return fail(provider, new UpstreamError(provider.name, "parse", `response is not JSON (${where}): ${(err as Error).message}`), started);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return fail(provider, new UpstreamError(provider.name, "parse", `unexpected response format (${where}): ${zodSummary(parsed.error)}`), started);
  }
  log.debug("upstream.ok", { provider: provider.name, path: where, ms: Date.now() - started });
  countUpstream(provider.name, (Date.now() - started) / 1000);
  return parsed.data;
}

/** Logs and counts a failure (with `started`: of the request made at that time), then throws it. */
function fail(provider: Provider, err: UpstreamError, started?: number): never {
  if (started === undefined) countUpstreamFailure(provider.name, err.kind);
  else countUpstream(provider.name, (Date.now() - started) / 1000, err.kind);
  log.warn("upstream.failed", { provider: provider.name, kind: err.kind, message: err.message });
  throw err;
}

/** Marks a provider failure detected after parsing (e.g. an API-level error field). */
export function upstreamFailure(provider: Provider, message: string): never {
  return fail(provider, new UpstreamError(provider.name, "upstream_error", message));
}
