/**
 * Site navigation, in header order: the pages of lib/web/pages.ts. Kept apart from the
 * discovery links (lib/web/links.ts) because the navigation is rendered by a client
 * component: neither module imports anything, so the browser bundle never pulls in the
 * catalog or the configuration schema.
 */
import { WEB_PAGES } from "@/lib/web/pages";

export const NAV_LINKS: ReadonlyArray<{ href: string; label: string }> = WEB_PAGES.map((p) => ({ href: p.path, label: p.label }));
