/**
 * One client base for every upstream provider: configurable base URL and headers,
 * a timeout on every request, responses parsed with zod (a changed upstream format is
 * a clear `UpstreamError`, never a NaN downstream) and secrets redacted from messages.
 * (/health probes the providers itself: lib/http/health.ts.)
 */
import type { z } from "zod";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";

export type UpstreamFailure = "timeout" | "network" | "http" | "rate_limited" | "parse" | "upstream_error";

export class UpstreamError extends Error {
  readonly provider: string;
  readonly kind: UpstreamFailure;
  readonly status?: number;
  constructor(provider: string, kind: UpstreamFailure, message: string, status?: number) {
    super(`${provider}: ${message}`);
    this.name = "UpstreamError";
    this.provider = provider;
    this.kind = kind;
    this.status = status;
  }
}

export interface Provider {
  /** Short stable name, e.g. "coingecko". */
  name: string;
  baseUrl: () => string;
  headers?: () => Record<string, string>;
  /** Query parameters whose values are secrets (redacted in errors and logs). */
  secretParams?: string[];
}

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

/** GET (or POST) JSON from a provider and parse it with `schema`. */
export async function fetchJson<S extends z.ZodType>(
  provider: Provider,
  path: string,
  query: Query,
  schema: S,
  opts: RequestOptions = {},
): Promise<z.infer<S>> {
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
    return fail(provider, new UpstreamError(provider.name, kind, msg));
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    const kind: UpstreamFailure = res.status === 429 ? "rate_limited" : "http";
    return fail(provider, new UpstreamError(provider.name, kind, `HTTP ${res.status} (${where})`, res.status));
  }
  let raw: unknown;
  try {
    raw = await res.json();
  } catch (err) {
    return fail(provider, new UpstreamError(provider.name, "parse", `response is not JSON (${where}): ${(err as Error).message}`));
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return fail(provider, new UpstreamError(provider.name, "parse", `unexpected response format (${where}): ${zodSummary(parsed.error)}`));
  }
  log.debug("upstream.ok", { provider: provider.name, path: where, ms: Date.now() - started });
  return parsed.data;
}

function fail(provider: Provider, err: UpstreamError): never {
  log.warn("upstream.failed", { provider: provider.name, kind: err.kind, message: err.message });
  throw err;
}

/** Marks a provider failure detected after parsing (e.g. an API-level error field). */
export function upstreamFailure(provider: Provider, message: string): never {
  return fail(provider, new UpstreamError(provider.name, "upstream_error", message));
}
