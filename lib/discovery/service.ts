/**
 * Service identity and the version numbers of spec 9, written once for every discovery
 * document, plus small catalog readers the documents share.
 */
import { PRODUCTS } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc, ParamSet } from "@/lib/catalog/params";
import { usd6, usdLabel } from "@/lib/payments/price";
import { env } from "@/lib/config/env";
import { svmNetwork, svmRequirements } from "@/lib/payments/svm";
import { MCP_PATH, MCP_SERVER_INFO, MCP_SPEC_PROTOCOL_VERSION, MCP_TRANSPORT } from "@/lib/mcp/info";

export const SERVICE = {
  name: MCP_SERVER_INFO.name,
  title: "Echo x402 Sentiment",
  summary: "Pay-per-call crypto market intelligence for autonomous agents, focused on XLM.",
  description:
    "Pay-per-call crypto market intelligence for autonomous agents (XLM focus): composite sentiment, quotes with the SDEX order book, arbitrage, multi-asset screens, breadth, gas, prediction markets, wallet intelligence, token safety and whale flow. HTTP GET endpoints under /v1 and MCP tools at /mcp, paid per call with x402 (USDC on Base), with a prepaid bundle token or with a free-tier API key.",
  /** OpenAPI document format and HTTP API version (spec 9). */
  openapiVersion: "3.1.0",
  apiVersion: "0.1.0",
  /** MCP server (spec 9), as the MCP server itself reports it. */
  mcpServerVersion: MCP_SERVER_INFO.version,
  mcpProtocolVersion: MCP_SPEC_PROTOCOL_VERSION,
  mcpTransport: MCP_TRANSPORT,
  mcpPath: MCP_PATH,
  serverCardVersion: "1.0",
  /** A2A agent card (spec 9). */
  agentCardVersion: "0.2.0",
  a2aProtocolVersion: "0.3.0",
  preferredTransport: "HTTP+JSON",
} as const;

/** Every paid HTTP operation, in catalog order. */
export function paidProducts(): readonly AnyProduct[] {
  return PRODUCTS;
}

/** `[name, doc]` pairs of a product's parameters. */
export function paramDocs(params: ParamSet): Array<[string, ParamDoc]> {
  return Object.entries(params).map(([name, p]) => [name, p.doc]);
}

/** "$0.005 per call" style label of the HTTP price, plus the tool price where it differs. */
export function priceLine(p: AnyProduct): string {
  const http = `${usdLabel(p.httpPrice)} per HTTP call`;
  if (!p.tool) return `${http} (no MCP tool)`;
  return `${http}; MCP tool ${p.tool.name}: ${usdLabel(p.tool.price)}`;
}

/** Credentials a paid product accepts, as words (the access gate decides the same way). */
export function acceptedCredentials(p: AnyProduct): string[] {
  const out = ["x402 payment"];
  if (p.kind === "data") out.push("bundle token");
  if (p.kind === "data" && p.freeTier) out.push("free-tier API key");
  return out;
}

/** Host name of a base URL (the publisher segment of AI-catalog identifiers). */
export function hostOf(base: string): string {
  return new URL(base).hostname;
}

export { usd6, usdLabel };

/** Network facts every payment-related document repeats from the configuration. */
export function paymentFacts() {
  const cfg = env();
  return {
    network: cfg.X402_NETWORK,
    asset: { symbol: "USDC", address: cfg.USDC_ADDRESS, decimals: 6 },
    pay_to: cfg.PAY_TO_ADDRESS ?? null,
    solana: svmRequirements("0.01").length > 0 ? { network: svmNetwork(), pay_to: cfg.SOLANA_PAY_TO_ADDRESS, asset: cfg.SOLANA_USDC_MINT } : null,
    xlm: cfg.STELLAR_PAY_TO_ADDRESS ? { pay_to: cfg.STELLAR_PAY_TO_ADDRESS, memo: "required (given in each payment requirement)" } : null,
  };
}

/** Free-tier calls per UTC day (spec 8: 50; configurable). */
export function freeQuota(): number {
  return env().FREE_KEY_DAILY_QUOTA;
}
