/**
 * The web pages people open, in one table: the navigation, the sitemap and the methods
 * every page answers (GET and HEAD; OPTIONS says so with `Allow`, anything else is 405)
 * read it, and so does the header policy (lib/http/security-headers.ts), which tells a
 * page from an API answer by it. Dependency-free: the proxy (proxy.ts) and client
 * components import it.
 */
export interface WebPage {
  path: string;
  /** Label in the site navigation. */
  label: string;
}

export const WEB_PAGES: readonly WebPage[] = [
  { path: "/", label: "Home" },
  { path: "/catalog", label: "Catalog" },
  { path: "/market", label: "Market" },
  { path: "/free-key", label: "Free key" },
  { path: "/wallet", label: "Wallet & bundles" },
  { path: "/usage", label: "Usage" },
];

/** The paywall of each paid path: /pay/v1/<product> (lib/web/paywall.ts). */
export const PAYWALL_PREFIX = "/pay";

/** The methods a page serves (HEAD comes with GET). */
export const PAGE_METHODS = ["GET", "HEAD", "OPTIONS"] as const;

/** `Allow` of every page. */
export const PAGE_ALLOW = PAGE_METHODS.join(", ");

/** Whether `pathname` is one of the pages (or a paywall page). */
export function isPagePath(pathname: string): boolean {
  return WEB_PAGES.some((p) => p.path === pathname) || pathname.startsWith(`${PAYWALL_PREFIX}/`);
}
