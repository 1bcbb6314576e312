/**
 * Navigation of the web pages and the discovery documents the pages point agents to.
 * Page routes live here because they are pages, not catalog products; product paths and
 * prices always come from the catalog.
 */
import { DISCOVERY_DOCUMENTS } from "@/lib/discovery/documents";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";

/** Site navigation, in header order. */
export const NAV_LINKS: ReadonlyArray<{ href: string; label: string }> = [
  { href: "/", label: "Home" },
  { href: "/catalog", label: "Catalog" },
  { href: "/market", label: "Market" },
  { href: "/free-key", label: "Free key" },
  { href: "/wallet", label: "Wallet & bundles" },
  { href: "/usage", label: "Usage" },
];

/** Machine-readable documents agents start from (spec 4.3), as the discovery list features them. */
export const DISCOVERY_LINKS: ReadonlyArray<{ href: string; label: string }> = [
  ...DISCOVERY_DOCUMENTS.filter((d) => d.featured).map((d) => ({ href: d.path, label: d.featured! })),
  ...PUBLIC_FREE_ENDPOINTS.filter((e) => e.path === "/v1/manifest").map((e) => ({ href: e.path, label: e.title })),
];
