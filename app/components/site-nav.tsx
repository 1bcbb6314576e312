"use client";
// Main navigation; marks the current page for assistive technology (aria-current).
import { usePathname } from "next/navigation";
import { NAV_LINKS } from "@/lib/web/nav";

export function SiteNav() {
  const path = usePathname();
  return (
    <nav className="site-nav" aria-label="Main">
      <ul>
        {NAV_LINKS.map((l) => (
          <li key={l.href}>
            <a href={l.href} aria-current={path === l.href ? "page" : undefined}>
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
