/**
 * The free JSON endpoints the pages call, looked up in the free-endpoint registry
 * (lib/catalog/free.ts) so a renamed or removed endpoint fails loudly at start-up
 * instead of leaving a page calling a dead path. Safe to import from client components.
 */
import { FREE_ENDPOINTS, type FreeEndpoint } from "@/lib/catalog/free";

function registered(path: string): FreeEndpoint {
  const e = FREE_ENDPOINTS.find((x) => x.path === path);
  if (!e) throw new Error(`${path} is not in FREE_ENDPOINTS (lib/catalog/free.ts)`);
  return e;
}

export const SAMPLE = registered("/v1/sample");
export const MANIFEST = registered("/v1/manifest");
export const FREE_KEY = registered("/v1/free-key");
export const USAGE = registered("/v1/usage");

/** Free endpoints that have a page of their own instead of a "Try it" button. */
export const ENDPOINT_PAGES: Readonly<Record<string, string>> = {
  [FREE_KEY.path]: "/free-key",
  [USAGE.path]: "/usage",
};
