/**
 * Catalog documents that point at everything else:
 * - /.well-known/api-catalog (RFC 9727): a linkset (RFC 9264, application/linkset+json)
 *   whose first context is the catalog itself with an `item` per API, then one context
 *   per API (the HTTP API and the MCP server) with its `service-desc`, `service-doc`,
 *   `status` and `service-meta` links;
 * - /.well-known/ai-catalog.json: the agentic-resource-discovery manifest (AI catalog
 *   1.0: `specVersion`, `host`, `entries[]` with domain-anchored `urn:air:` identifiers,
 *   media-type `type`, `url`, representative queries and capabilities).
 */
import { DISCOVERY_DOCUMENTS, SKILL_NAME, docUrl } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { SERVICE, hostOf, paidProducts } from "@/lib/discovery/service";
import { toolList } from "@/lib/discovery/tools";
import { skillDescription, skillPath } from "@/lib/discovery/skills";

export const API_CATALOG_PROFILE = "https://www.rfc-editor.org/info/rfc9727";

function docType(path: string): string {
  const d = DISCOVERY_DOCUMENTS.find((x) => x.path === path);
  if (!d) throw new Error(`${path} is not a discovery document`);
  return d.mediaType;
}

const link = (base: string, path: string) => ({ href: docUrl(base, path), type: docType(path) });
/** A free JSON endpoint (lib/catalog/free.ts) as a link. */
const freeLink = (base: string, path: string) => ({ href: `${base}${freeEndpoint(path).path}`, type: "application/json" });

/** /.well-known/api-catalog */
export function apiCatalog(base: string): Record<string, unknown> {
  // The HTTP API is identified by the service root (served: service info), /mcp by itself.
  const api = `${base}/`;
  const mcp = `${base}${SERVICE.mcpPath}`;
  return {
    linkset: [
      { anchor: docUrl(base, "/.well-known/api-catalog"), item: [{ href: api, title: `${SERVICE.title} HTTP API` }, { href: mcp, title: `${SERVICE.title} MCP server` }], profile: [{ href: API_CATALOG_PROFILE }] },
      {
        anchor: api,
        "service-desc": [link(base, "/openapi.json")],
        "service-doc": [link(base, "/llms.txt"), link(base, "/spec.pdf"), link(base, "/auth.md")],
        "service-meta": [link(base, "/.well-known/x402-manifest.json"), freeLink(base, "/v1/manifest")],
        status: [freeLink(base, "/health")],
      },
      {
        anchor: mcp,
        "service-desc": [link(base, "/.well-known/mcp/server-card.json"), link(base, "/.well-known/mcp.json")],
        "service-doc": [link(base, "/llms.txt")],
        status: [freeLink(base, "/health")],
      },
    ],
  };
}

/** /.well-known/ai-catalog.json */
export function aiCatalog(base: string): Record<string, unknown> {
  const host = hostOf(base);
  const urn = (ns: string, name: string) => `urn:air:${host}:${ns}:${name}`;
  const tools = toolList().map((t) => t.name);
  const tags = [...new Set(paidProducts().flatMap((p) => p.tags))];
  return {
    specVersion: "1.0",
    host: { displayName: SERVICE.title, identifier: `did:web:${host}`, url: base },
    entries: [
      {
        identifier: urn("api", SERVICE.name),
        displayName: `${SERVICE.title} HTTP API`,
        type: "application/vnd.oai.openapi+json",
        url: docUrl(base, "/openapi.json"),
        description: SERVICE.description,
        version: SERVICE.apiVersion,
        tags,
        capabilities: paidProducts().map((p) => p.path),
        representativeQueries: ["what is the current XLM market sentiment", "is there a CEX to SDEX arbitrage on XLM right now", "check whether this token contract is a honeypot"],
      },
      {
        identifier: urn("mcp", SERVICE.name),
        displayName: `${SERVICE.title} MCP server`,
        type: "application/mcp-server-card+json",
        url: docUrl(base, "/.well-known/mcp/server-card.json"),
        description: `MCP server at ${base}${SERVICE.mcpPath} (${SERVICE.mcpTransport}) with ${tools.length} tools, two of them free.`,
        version: SERVICE.mcpServerVersion,
        tags,
        capabilities: tools,
        representativeQueries: ["get a free XLM sentiment snapshot", "buy prepaid call credits for crypto data tools", "get the Base gas price and whether to submit now"],
      },
      {
        identifier: urn("agent", SERVICE.name),
        displayName: `${SERVICE.title} agent card`,
        type: "application/a2a-agent-card+json",
        url: docUrl(base, "/.well-known/agent-card.json"),
        description: "A2A agent card describing the same capabilities as skills.",
        version: SERVICE.agentCardVersion,
        representativeQueries: ["find an agent selling crypto market intelligence per call", "which agent gives XLM trading signals"],
      },
      {
        identifier: urn("x402", SERVICE.name),
        displayName: `${SERVICE.title} x402 manifest`,
        type: "application/json",
        url: docUrl(base, "/.well-known/x402-manifest.json"),
        description: "Paid resources with prices and x402 payment requirements.",
        version: SERVICE.apiVersion,
        representativeQueries: ["how much does an XLM quote cost in USDC", "which x402 resources does this host sell"],
      },
      {
        identifier: urn("skill", SKILL_NAME),
        displayName: SKILL_NAME,
        type: "application/ai-skill+md",
        url: `${base}${skillPath()}`,
        description: skillDescription(),
        representativeQueries: ["how do I pay for crypto market data with x402", "get XLM sentiment and order book for my trading agent"],
      },
    ],
  };
}
