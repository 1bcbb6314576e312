/**
 * The discovery documents the pages point agents to (the site navigation is in
 * lib/web/nav.ts). Product paths and prices always come from the catalog.
 */
import { DISCOVERY_DOCUMENTS } from "@/lib/discovery/documents";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";

/** Machine-readable documents agents start from (spec 4.3), as the discovery list features them. */
export const DISCOVERY_LINKS: ReadonlyArray<{ href: string; label: string }> = [
  ...DISCOVERY_DOCUMENTS.filter((d) => d.featured).map((d) => ({ href: d.path, label: d.featured! })),
  ...PUBLIC_FREE_ENDPOINTS.filter((e) => e.path === "/v1/manifest").map((e) => ({ href: e.path, label: e.title })),
];
