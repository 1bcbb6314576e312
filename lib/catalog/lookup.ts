/**
 * Strict lookups of catalog entries for code that needs one particular entry (the bundle
 * a description points to, the free-key endpoint a tool mirrors). They throw when the
 * entry is missing, so renaming or removing it breaks the build's tests loudly instead of
 * leaving a stale path or a silent fallback in a published document.
 */
import { PRODUCTS } from "@/lib/catalog";
import { FREE_ENDPOINTS, type FreeEndpoint } from "@/lib/catalog/free";
import type { AnyProduct } from "@/lib/catalog/types";

/** The catalog product with this id. */
export function productById(id: string): AnyProduct {
  const p = PRODUCTS.find((x) => x.id === id);
  if (!p) throw new Error(`no catalog product with id "${id}" (lib/catalog)`);
  return p;
}

/** The free endpoint at `path` (lib/catalog/free.ts). */
export function freeEndpoint(path: string): FreeEndpoint {
  const e = FREE_ENDPOINTS.find((x) => x.path === path);
  if (!e) throw new Error(`no free endpoint at ${path} (lib/catalog/free.ts)`);
  return e;
}

/** Paths of the products sold as bundles ("/v1/bundle", "/v1/bundle/enterprise"). */
export function bundlePaths(): string[] {
  return PRODUCTS.filter((p) => p.kind === "bundle").map((p) => p.path);
}
