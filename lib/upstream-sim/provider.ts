/**
 * What a simulated provider is (its name, URL prefix and request handler) and the faults
 * it can be given, apart from the server that mounts the providers: the providers import these types and the server
 * imports the providers.
 */
import type { World } from "@/lib/upstream-sim/world";

export interface SimRequest {
  method: string;
  /** Path after the provider prefix, e.g. `/api/v3/simple/price`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  now: number;
}

export interface SimResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SimProvider {
  /** Provider name (matches the adapter's Provider.name) and URL prefix. */
  name: string;
  /** Environment variable holding the adapter's base URL. */
  envVar: string;
  /** Returns null for an unknown route (answered 404). */
  handle(req: SimRequest, world: World): SimResponse | null | Promise<SimResponse | null>;
  /** The provider's own 429 body (a generic one when absent). */
  rateLimitedBody?: unknown;
}

/** Where a fault applies: paths starting with `pathPrefix`, requests with `method` (any when unset). */
interface FaultScope {
  pathPrefix?: string;
  method?: string;
}

export type Fault = FaultScope &
  (
    /** `body`/`headers` replay a provider's real refusal (e.g. a CDN's HTML block page). */
    | { mode: "error"; status?: number; body?: unknown; headers?: Record<string, string> }
    | { mode: "malformed" }
    | { mode: "not_json" }
    | { mode: "hang" }
    | { mode: "delay"; ms: number }
    /** The request is handled (e.g. a transaction is applied), then answered with an error. */
    | { mode: "error_after_apply"; status?: number }
    /** The request is handled, then the answer never comes. */
    | { mode: "hang_after_apply" }
  );
