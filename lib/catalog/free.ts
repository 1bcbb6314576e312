/**
 * Free (keyless) HTTP endpoints besides the discovery documents, in one place so the
 * manifest, service info, OpenAPI, llms.txt and the pages list the same set.
 * Descriptions that state a limit read it from the configuration the gate enforces
 * (getters, evaluated when read), so no surface shows a figure the instance does not apply.
 */
import { countOf } from "@/lib/catalog/format";
import { env } from "@/lib/config/env";

export interface FreeEndpoint {
  path: string;
  title: string;
  description: string;
  /** Internal endpoints answer 404 without an admin credential and stay out of public listings. */
  internal?: boolean;
  /** Query parameters (all optional strings). */
  query?: Record<string, string>;
  /**
   * A plain GET answers 200 with no credential, no side effect and no per-client limit,
   * so /sitemap.xml lists it (a crawler must not mint keys or use up a client's sample).
   */
  crawlable?: boolean;
}

export const FREE_ENDPOINTS: readonly FreeEndpoint[] = [
  {
    path: "/v1/sample",
    title: "Sentiment sample",
    get description() {
      return `Reduced XLM sentiment snapshot; ${countOf(env().SAMPLE_LIMIT_PER_HOUR, "call")} per hour per client IP (fixed window), then 429 with Retry-After.`;
    },
  },
  { path: "/v1/manifest", title: "Manifest", description: "Catalog of all paid endpoints with live price, network and tags; always 200.", crawlable: true },
  {
    path: "/v1/free-key",
    title: "Free-tier API key",
    get description() {
      return `Mints a free-tier API key (${countOf(env().FREE_KEY_DAILY_QUOTA, "call")} per UTC day on standard endpoints), shown once.`;
    },
    query: { email: "Optional contact e-mail recorded with the key." },
  },
  { path: "/v1/usage", title: "Usage of a key or bundle", description: "Credits or quota left and the recent charged calls of the bundle token or API key sent in the request headers." },
  { path: "/health", title: "Health", description: "Database and upstream status: every upstream provider actively probed (results reused 30 s); 200 ok or degraded (naming the failing providers), 503 down when the database does not answer." },
  { path: "/health/live", title: "Liveness probe", description: "Answers 200 while the process serves requests; touches neither the database nor upstreams." },
  { path: "/health/ready", title: "Readiness probe", description: "200 when the database answers (opened and migrated on first use), 503 otherwise; contacts no upstream." },
  { path: "/v1/bundles/debug", title: "Bundle ledger debug", description: "Internal: ledger counts and health; admin credential only.", internal: true },
];

export const PUBLIC_FREE_ENDPOINTS = FREE_ENDPOINTS.filter((e) => !e.internal);

/**
 * The two free MCP tools of spec 4.5: the composite sentiment snapshot (no HTTP path) and
 * the tool form of /v1/free-key. Their names are spec facts; every surface reads them here.
 */
export const FREE_TOOLS = {
  sentiment: "get_xlm_sentiment",
  freeKey: "get_free_api_key",
} as const;
