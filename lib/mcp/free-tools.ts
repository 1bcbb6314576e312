/**
 * What the two free MCP tools are (spec 4.5: the sentiment snapshot, and the tool form of
 * /v1/free-key): name, title, description and the HTTP path of the same thing. The MCP
 * server (./tools.ts) builds its free tools from these, and the web pages list them from
 * here, without importing the tools' call path (pages stay off the payment modules, see
 * lib/payments/methods/facts.ts).
 */
import { PRODUCTS } from "@/lib/catalog";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { FREE_TOOLS } from "@/lib/catalog/free";

export interface FreeToolDecl {
  name: string;
  title: string;
  description: string;
  /** HTTP path serving the same thing, if any. */
  endpoint: string | null;
}

export function sentimentToolDecl(): FreeToolDecl {
  return {
    name: FREE_TOOLS.sentiment,
    title: "XLM sentiment snapshot (free)",
    description: `Free, no arguments. ${productById("sentiment").description} Returned as a JSON string (also as structuredContent): sentiment, sentiment_source, components, price_usd, mid, spread_pct, ts.`,
    endpoint: null,
  };
}

export function freeKeyToolDecl(): FreeToolDecl {
  const http = freeEndpoint("/v1/free-key");
  return {
    name: FREE_TOOLS.freeKey,
    title: "Free-tier API key (free)",
    description: `Free. ${http.description} Pass it as the "api_key" argument of standard tools. Optional "email" is recorded with the key. Same as GET ${http.path}; minting is rate-limited per client address.`,
    endpoint: http.path,
  };
}

/** The free tools in listing order (the server lists them before the paid ones). */
export function freeToolDecls(): FreeToolDecl[] {
  return [sentimentToolDecl(), freeKeyToolDecl()];
}

/** The catalog products served as paid tools, in listing order. */
export function paidToolProducts(): typeof PRODUCTS {
  return PRODUCTS.filter((p) => p.tool !== null);
}
