// Root layout of the web pages: header with navigation, main landmark, footer with the
// discovery documents. System fonts only; nothing is loaded from another origin.
import type { ReactNode } from "react";
import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import "./globals.css";
import { SiteNav } from "@/app/components/site-nav";
import { DISCOVERY_LINKS } from "@/lib/web/links";

export const metadata: Metadata = {
  title: { default: "Echo x402 Sentiment — market intelligence for agents", template: "%s · Echo x402 Sentiment" },
  description: "Pay-per-call XLM and crypto market intelligence over HTTP and MCP, paid with x402, bundles or a free key.",
  icons: { icon: "/favicon.svg" },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request, the 404 page too: Next puts the CSP nonce of the
  // request (proxy.ts) on its scripts only while rendering, never into a prerendered page.
  await headers();
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="site-header">
          <div className="inner">
            <a className="brand" href="/">
              Echo <span>x402</span> Sentiment
            </a>
            <SiteNav />
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <footer className="site-footer">
          <div className="inner">
            <p>Market intelligence for autonomous agents, paid per call with x402, a prepaid bundle or a free key.</p>
            <nav aria-label="Discovery documents">
              <ul>
                {DISCOVERY_LINKS.map((l) => (
                  <li key={l.href}>
                    <a href={l.href}>{l.label}</a>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
        </footer>
      </body>
    </html>
  );
}
