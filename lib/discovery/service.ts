/**
 * Service identity and the version numbers of spec 9, written once for every discovery
 * document, plus small catalog readers the documents share.
 */
import { PRODUCTS } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc, ParamSet } from "@/lib/catalog/params";
import { usd6, usdLabel } from "@/lib/payments/price";
import { env } from "@/lib/config/env";
import { usableMethodFacts } from "@/lib/payments/methods/facts";
import type { MethodFacts } from "@/lib/payments/methods/types";
import { MCP_PATH, MCP_SERVER_INFO, MCP_SPEC_PROTOCOL_VERSION, MCP_TRANSPORT } from "@/lib/mcp/info";

export const SERVICE = {
  name: MCP_SERVER_INFO.name,
  title: "Echo x402 Sentiment",
  summary: "Pay-per-call crypto market intelligence for autonomous agents, focused on XLM.",
  /** Names the per-call methods this instance accepts (read on use: the registry is built from configuration). */
  get description(): string {
    const labels = usableMethodFacts().map((m) => m.label);
    const paid = labels.length > 0 ? `paid per call (${labels.join(", ")}), with a prepaid bundle token or with a free-tier API key` : "paid with a prepaid bundle token or with a free-tier API key";
    return `Pay-per-call crypto market intelligence for autonomous agents (XLM focus): composite sentiment, quotes with the SDEX order book, arbitrage, multi-asset screens, breadth, gas, prediction markets, wallet intelligence, token safety and whale flow. HTTP GET endpoints under /v1 and MCP tools at /mcp, ${paid}.`;
  },
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
  a2aProtocolVersion: "1.0",
  /** The A2A version served to clients that send no `A2A-Version` (0.3 clients), through the SDK's compatibility layer. */
  a2aLegacyProtocolVersion: "0.3.0",
  preferredTransport: "HTTP+JSON",
  /**
   * OpenAPI `info.license`: the API is a paid service, not open source; the licence URL
   * is /auth.md, which states the terms of access (pay per call, bundle, free-tier key).
   */
  license: "Proprietary",
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
  const pay = paymentFacts();
  const out = pay.x402.length > 0 ? ["x402 payment"] : pay.perCall ? [`per-call payment (${pay.methods.map((m) => m.label).join(", ")})`] : [];
  if (p.kind === "data") out.push("bundle token");
  if (p.kind === "data" && p.freeTier) out.push("free-tier API key");
  return out;
}

/** Host name of a base URL (the publisher segment of AI-catalog identifiers). */
export function hostOf(base: string): string {
  return new URL(base).hostname;
}

export { usd6, usdLabel };

/**
 * What every payment-related document says, from the payment-method registry: the
 * methods accepted (x402 ones are in `accepts[]`; others, like XLM, beside it), and for
 * the documents that name one network, the first x402 method's (null without one).
 */
export function paymentFacts(): {
  methods: MethodFacts[];
  x402: MethodFacts[];
  /** The accepted methods outside x402's `accepts[]` (XLM with a memo), offered beside it. */
  others: MethodFacts[];
  network: string | null;
  asset: MethodFacts["asset"] | null;
  pay_to: string | null;
  /** One sentence per accepted method, or the sentence that none is. */
  summary: string;
  /** Whether any per-call payment is accepted (the payment headers and the MCP `payment` argument). */
  perCall: boolean;
} {
  const methods = usableMethodFacts();
  const x402 = methods.filter((m) => m.x402);
  const first = x402[0] ?? null;
  return {
    methods,
    x402,
    others: methods.filter((m) => !x402.some((x) => x.id === m.id)),
    network: first?.network ?? null,
    asset: first?.asset ?? null,
    pay_to: first?.payTo ?? null,
    summary: methods.length > 0 ? methods.map((m) => `Pay per call with ${m.howTo}`).join(" ") : "Per-call payment is not configured on this instance: use a prepaid bundle token or a free-tier key.",
    perCall: methods.length > 0,
  };
}

/** "USDC on eip155:8453 (asset 0x…)" for each x402 method, joined with " or "; null without one. */
export function x402Phrase(): string | null {
  const x = paymentFacts().x402;
  return x.length > 0 ? x.map((m) => `${m.label} (asset ${m.asset.address})`).join(" or ") : null;
}

/** One line naming every accepted way to pay per call, or saying there is none. */
export function paymentLine(): string {
  const pay = paymentFacts();
  const parts: string[] = [];
  const x = x402Phrase();
  if (x) parts.push(`x402 scheme exact, ${x}`);
  for (const m of pay.others) parts.push(m.label);
  return parts.length > 0 ? parts.join("; ") : "no per-call payment on this instance";
}

/** Free-tier calls per UTC day (spec 8: 50; configurable). */
export function freeQuota(): number {
  return env().FREE_KEY_DAILY_QUOTA;
}
