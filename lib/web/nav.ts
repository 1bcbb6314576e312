/**
 * Site navigation, in header order. Kept apart from the discovery links (lib/web/links.ts)
 * because the navigation is rendered by a client component: this module imports nothing,
 * so the browser bundle never pulls in the catalog or the configuration schema.
 */
export const NAV_LINKS: ReadonlyArray<{ href: string; label: string }> = [
  { href: "/", label: "Home" },
  { href: "/catalog", label: "Catalog" },
  { href: "/market", label: "Market" },
  { href: "/free-key", label: "Free key" },
  { href: "/wallet", label: "Wallet & bundles" },
  { href: "/usage", label: "Usage" },
];
