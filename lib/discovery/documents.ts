/**
 * The discovery documents of spec 4.2/4.3: path, media type and what each holds, in
 * one list. OpenAPI, the sitemap, llms.txt, the API catalog, the AI catalog, the PDF
 * and the `Link` header all read it, so a document is added or renamed in one place.
 *
 * Dependency-free on purpose: next.config.ts imports `linkHeader()` from here.
 */

export interface DiscoveryDocument {
  path: string;
  title: string;
  /** Media type of the response (without parameters). */
  mediaType: string;
  description: string;
  /** Link relation under which the `Link` header advertises it (registered relations only). */
  rel?: string;
  /** Listed in /sitemap.xml (templated and legacy paths are not). */
  sitemap: boolean;
  /** Short label when the web pages feature the document in their footer. */
  featured?: string;
  /**
   * False for a document that is served (and described by OpenAPI and the PDF, like
   * every operation) but that no other document points to: llms.txt, agents.txt, the
   * sitemap and auth.md leave it out.
   */
  advertised?: false;
}

/** Name of the one agent skill published under /.well-known/agent-skills/. */
export const SKILL_NAME = "echo-x402-sentiment";

export const OAUTH_RESOURCE_PREFIX = "/.well-known/oauth-protected-resource";

export const DISCOVERY_DOCUMENTS: readonly DiscoveryDocument[] = [
  { path: "/openapi.json", title: "OpenAPI description", mediaType: "application/json", description: "OpenAPI 3.1.0 description of every HTTP operation with parameters, response schemas, the 402/422/429/503 answers and the per-operation x402 payment offer (x-payment-info).", rel: "service-desc", sitemap: true, featured: "OpenAPI" },
  { path: "/spec.pdf", title: "API description (PDF)", mediaType: "application/pdf", description: "The API description as a PDF: one section per operation with method, path, prices, parameters and response summary.", sitemap: true, featured: "API spec (PDF)" },
  { path: "/llms.txt", title: "llms.txt", mediaType: "text/markdown", description: "Markdown service summary for language models: endpoints with prices, MCP tools, how to pay.", rel: "service-doc", sitemap: true, featured: "llms.txt" },
  { path: "/agents.txt", title: "agents.txt", mediaType: "text/plain", description: "Plain-text summary for autonomous agents: what is sold, how to pay, where the machine-readable documents are.", sitemap: true, featured: "agents.txt" },
  { path: "/auth.md", title: "Authentication guide", mediaType: "text/markdown", description: "How to get access without an account: x402 payment, prepaid bundle token, free-tier API key, with examples.", sitemap: true },
  { path: "/robots.txt", title: "robots.txt", mediaType: "text/plain", description: "Crawler policy with Cloudflare-style Content-Signal directives and the sitemap location.", sitemap: false },
  { path: "/sitemap.xml", title: "Sitemap", mediaType: "application/xml", description: "XML sitemap of the public documents and endpoints.", sitemap: false },
  { path: "/agent.json", title: "Agent card (legacy path)", mediaType: "application/json", description: "A2A agent card at the legacy root path (same card as /.well-known/agent-card.json).", sitemap: false },
  { path: "/.well-known/agent.json", title: "Agent card (legacy well-known path)", mediaType: "application/json", description: "A2A agent card at the pre-0.3 well-known path (same card as /.well-known/agent-card.json).", sitemap: false },
  { path: "/.well-known/agent-card.json", title: "Agent card", mediaType: "application/json", description: "A2A agent card (card version 0.2.0; protocol 1.0 with A2A-Version: 1.0, else the 0.3.0 card; preferred transport HTTP+JSON) with one skill per catalog product and MCP tool.", rel: "describedby", sitemap: true, featured: "Agent card" },
  { path: "/.well-known/mcp/server-card.json", title: "MCP server card", mediaType: "application/json", description: "MCP server card (schema 1.0): server info, streamable-http transport at /mcp, capabilities and the tool list with prices.", sitemap: true, featured: "MCP server card" },
  { path: "/.well-known/mcp.json", title: "MCP server manifest", mediaType: "application/json", description: "MCP server manifest: endpoint, transport, protocol version and every tool with its input schema, price and HTTP path.", sitemap: true },
  { path: "/.well-known/x402", title: "x402 discovery", mediaType: "application/json", description: "x402 discovery document: the payable resource URLs of this origin and how to pay for them.", rel: "payment", sitemap: true, featured: "x402 discovery" },
  { path: "/.well-known/x402-manifest.json", title: "x402 manifest", mediaType: "application/json", description: "x402 manifest: per paid resource its price, the exact payment requirements (network, asset, amount, pay-to) and the spec 2.3 payment offer.", sitemap: true },
  { path: "/.well-known/agent-skills/index.json", title: "Agent skills index", mediaType: "application/json", description: "Agent Skills discovery index (schema 0.2.0) listing the skill document with its sha256 digest.", sitemap: true },
  { path: `/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`, title: "Skill document", mediaType: "text/markdown", description: "Agent skill (SKILL.md with YAML front matter): when to use the service and how to call and pay for it.", sitemap: true },
  { path: "/.well-known/api-catalog", title: "API catalog", mediaType: "application/linkset+json", description: "RFC 9727 API catalog (linkset) pointing at the HTTP API and MCP server and their descriptions.", rel: "api-catalog", sitemap: true },
  { path: "/.well-known/ai-catalog.json", title: "AI catalog", mediaType: "application/json", description: "Agentic resource discovery manifest (AI catalog 1.0) listing the OpenAPI description, MCP server card, agent card, x402 manifest and skill.", sitemap: true },
  { path: OAUTH_RESOURCE_PREFIX, title: "Protected-resource metadata", mediaType: "application/json", description: "RFC 9728 protected-resource metadata; the access mechanism is x402 payment (or a bundle token / free-tier key), not OAuth tokens, so no authorization server is named.", sitemap: true },
  { path: `${OAUTH_RESOURCE_PREFIX}/{rest}`, title: "Protected-resource metadata of one resource", mediaType: "application/json", description: "RFC 9728 metadata of the protected resource {base_url}/{rest}: a paid path (e.g. v1/quote) or mcp; 404 for any other resource, 422 when rest is not a well-formed resource path.", sitemap: false },
  // Spec 4.3 keeps the path. No OAuth authorization server runs here, so its answer is not
  // RFC 8414 metadata (no issuer, no endpoints) and nothing advertises it.
  { path: "/.well-known/oauth-authorization-server", title: "No OAuth authorization server", mediaType: "application/json", description: "States that no OAuth authorization server runs here and that x402 payment (or a bundle token / free-tier key) is the authorization mechanism. Deliberately not RFC 8414 metadata: it has no issuer and no endpoints, so no OAuth client takes this origin for an authorization server.", sitemap: false, advertised: false },
];

/** The documents other documents point to (llms.txt, agents.txt, auth.md). */
export function advertisedDocuments(): readonly DiscoveryDocument[] {
  return DISCOVERY_DOCUMENTS.filter((d) => d.advertised !== false);
}

/**
 * `path` after checking that it is one of the documents above: code that names a
 * document by path fails loudly when the document is renamed or removed, instead of
 * publishing a link that answers 404.
 */
export function docPath(path: string): string {
  if (!DISCOVERY_DOCUMENTS.some((d) => d.path === path)) throw new Error(`${path} is not a discovery document (lib/discovery/documents.ts)`);
  return path;
}

/** Absolute URL of a discovery document at `base` (checked like docPath). */
export function docUrl(base: string, path: string): string {
  return `${base}${docPath(path)}`;
}

/**
 * The `Link` header value pointing agents to the discovery documents (RFC 8288). The
 * targets are relative so the header is valid on every host the service answers for.
 */
export function linkHeader(): string {
  return DISCOVERY_DOCUMENTS.filter((d) => d.rel)
    .map((d) => `<${d.path}>; rel="${d.rel}"; type="${d.mediaType}"`)
    .join(", ");
}
