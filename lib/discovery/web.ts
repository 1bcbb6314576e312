/**
 * /robots.txt and /sitemap.xml.
 *
 * robots.txt declares Cloudflare-style content signals (contentsignals.org): search
 * and AI input (grounding, answers) are welcome, training on the content is not; the
 * internal endpoints are disallowed.
 */
import { FREE_ENDPOINTS, PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import { DISCOVERY_DOCUMENTS, docUrl } from "@/lib/discovery/documents";
import { WEB_PAGES } from "@/lib/web/pages";

export const CONTENT_SIGNAL = "search=yes, ai-input=yes, ai-train=no";

/** /robots.txt */
export function robotsTxt(base: string): string {
  return [
    "# Content signals (https://contentsignals.org):",
    "# search: building a search index and providing search results.",
    "# ai-input: inputting content into AI models (retrieval, grounding, agent answers).",
    "# ai-train: training or fine-tuning AI models.",
    "# yes = allowed, no = not allowed.",
    "",
    "User-agent: *",
    `Content-Signal: ${CONTENT_SIGNAL}`,
    "Allow: /",
    ...FREE_ENDPOINTS.filter((e) => e.internal).map((e) => `Disallow: ${e.path}`),
    "",
    `Sitemap: ${docUrl(base, "/sitemap.xml")}`,
    "",
  ].join("\n");
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Every URL the sitemap lists: the web pages people open, the discovery documents and the free
 * endpoints a crawler may fetch, i.e. only what answers 200 to a plain GET (and what
 * /openapi.json describes: every path a document names is an operation there). Paid
 * endpoints (402 without a credential, 422 without their required parameters) are
 * found through /openapi.json, /v1/manifest and the x402 documents instead; /v1/usage
 * needs a credential, /v1/free-key mints a key and /v1/sample spends the client's
 * hourly allowance.
 */
export function sitemapUrls(base: string): string[] {
  return [
    ...WEB_PAGES.map((p) => `${base}${p.path}`),
    ...DISCOVERY_DOCUMENTS.filter((d) => d.sitemap).map((d) => `${base}${d.path}`),
    ...PUBLIC_FREE_ENDPOINTS.filter((e) => e.crawlable).map((e) => `${base}${e.path}`),
  ];
}

/** /sitemap.xml */
export function sitemapXml(base: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...sitemapUrls(base).map((u) => `  <url><loc>${xml(u)}</loc></url>`),
    "</urlset>",
    "",
  ].join("\n");
}
