/**
 * Server-side view of the catalog for the pages: plain, serialisable objects (client
 * components cannot receive zod schemas or handlers) with prices formatted from the
 * catalog entries and copy-paste examples for HTTP and MCP.
 */
import { PRODUCTS } from "@/lib/catalog";
import type { ParamDoc, ParamSet } from "@/lib/catalog/params";
import type { AnyProduct } from "@/lib/catalog/types";
import { freeToolDecls, paidToolProducts, type FreeToolDecl } from "@/lib/mcp/free-tools";
import { usdLabel } from "@/lib/payments/price";

export interface ParamView {
  name: string;
  type: ParamDoc["type"];
  description: string;
  required: boolean;
  default: string | null;
  /** Bounds, allowed values or pattern, in words. */
  constraints: string | null;
  /** Value used in the examples. */
  example: string | null;
}

export interface ProductView {
  id: string;
  path: string;
  title: string;
  description: string;
  tags: string[];
  kind: "data" | "bundle";
  /** HTTP price as written in the catalog ("0.005") and for humans ("$0.005"). */
  httpPrice: string;
  httpPriceLabel: string;
  tool: { name: string; price: string; priceLabel: string } | null;
  /** Credits one call consumes from a bundle (data products). */
  credits: number;
  /** Credits a purchase adds (bundle products). */
  creditsSold: number | null;
  freeTier: boolean;
  params: ParamView[];
  examples: { label: string; code: string }[];
}

function constraintsOf(d: ParamDoc): string | null {
  const parts: string[] = [];
  if (d.minimum !== undefined || d.maximum !== undefined) parts.push(`range ${d.minimum ?? "…"}–${d.maximum ?? "…"}`);
  if (d.enum) parts.push(`one of ${d.enum.join(", ")}`);
  if (d.pattern && !d.enum) parts.push(`pattern ${d.pattern}`);
  return parts.length ? parts.join("; ") : null;
}

export function paramViews(p: AnyProduct): ParamView[] {
  return Object.entries(p.params as ParamSet).map(([name, param]) => {
    const d = param.doc;
    const example = d.example ?? (d.required ? null : d.default !== undefined && d.default !== "" ? String(d.default) : null);
    return {
      name,
      type: d.type,
      description: d.description,
      required: d.required,
      default: d.default !== undefined && d.default !== "" ? String(d.default) : null,
      constraints: constraintsOf(d),
      example,
    };
  });
}

/** Credits a bundle product sells (configured per instance). */
export function bundleCredits(p: AnyProduct): number | null {
  return p.kind === "bundle" ? (p.creditsSold?.() ?? null) : null;
}

function examplesFor(p: AnyProduct, params: ParamView[], base: string): ProductView["examples"] {
  // Required parameters and those with a documented example make the example call concrete.
  const shown = params.filter((x) => x.required || x.example !== null);
  const query = shown.map((x) => `${x.name}=${encodeURIComponent(x.example ?? `<${x.name}>`)}`).join("&");
  const url = `${base}${p.path}${query ? `?${query}` : ""}`;
  const out: ProductView["examples"] = [];
  const mcpCall = (credential: Record<string, string>) => {
    const args: Record<string, string> = {};
    for (const x of shown) args[x.name] = x.example ?? `<${x.name}>`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: p.tool!.name, arguments: { ...args, ...credential } } });
    return `curl -s ${base}/mcp \\\n  -H "Content-Type: application/json" \\\n  -H "Accept: application/json, text/event-stream" \\\n  -d '${body}'`;
  };
  if (p.kind === "data") {
    out.push({ label: "HTTP with a bundle token", code: `curl -s -H "X-Bundle-Token: $BUNDLE_TOKEN" \\\n  "${url}"` });
    if (p.freeTier) out.push({ label: "HTTP with a free key", code: `curl -s -H "X-Api-Key: $API_KEY" \\\n  "${url}"` });
    out.push({ label: "HTTP, pay per call (see the 402 requirement)", code: `curl -si "${url}"` });
    if (p.tool) out.push({ label: `MCP tool ${p.tool.name}`, code: mcpCall({ bundle_token: "<bundle token>" }) });
  } else {
    out.push({ label: "HTTP: read the x402 requirement", code: `curl -si "${url}"` });
    out.push({
      label: "HTTP: pay with an x402 client (@x402/fetch)",
      code: `import { wrapFetchWithPayment, x402Client } from "@x402/fetch";\nimport { registerExactEvmScheme } from "@x402/evm/exact/client";\n\nconst client = new x402Client();\nregisterExactEvmScheme(client, { signer }); // your viem account\nconst res = await wrapFetchWithPayment(fetch, client)("${url}");\nconst { bundle_token } = await res.json();`,
    });
    if (p.tool) out.push({ label: `MCP tool ${p.tool.name}`, code: mcpCall({ payment: "<base64 x402 payment>" }) });
  }
  return out;
}

export function productView(p: AnyProduct, base: string): ProductView {
  const params = paramViews(p);
  return {
    id: p.id,
    path: p.path,
    title: p.title,
    description: p.description,
    tags: [...p.tags],
    kind: p.kind,
    httpPrice: p.httpPrice,
    httpPriceLabel: usdLabel(p.httpPrice),
    tool: p.tool ? { name: p.tool.name, price: p.tool.price, priceLabel: usdLabel(p.tool.price) } : null,
    credits: p.credits,
    creditsSold: bundleCredits(p),
    freeTier: p.freeTier,
    params,
    examples: examplesFor(p, params, base),
  };
}

/** Every product, in catalog order. */
export function catalogViews(base: string): ProductView[] {
  return PRODUCTS.map((p) => productView(p, base));
}

export type FreeToolView = FreeToolDecl;

/** The free MCP tools (no payment, no credential), as the MCP server lists them. */
export function freeToolViews(): FreeToolView[] {
  return freeToolDecls();
}

/** Number of MCP tools the server lists, and how many of them are free. */
export function toolCounts(): { total: number; free: number } {
  const free = freeToolDecls().length;
  return { total: free + paidToolProducts().length, free };
}

/** The bundle products (what the wallet page sells). */
export function bundleProducts(): AnyProduct[] {
  return PRODUCTS.filter((p) => p.kind === "bundle");
}

/** id → title and path, to name products in receipts. */
export function productNames(): Record<string, { title: string; path: string }> {
  return Object.fromEntries(PRODUCTS.map((p) => [p.id, { title: p.title, path: p.path }]));
}

/** Lowest and highest HTTP price (for the "how agents pay" text). */
export function priceRange(): { min: string; max: string } {
  const prices = PRODUCTS.map((p) => p.httpPrice).sort((a, b) => Number(a) - Number(b));
  return { min: usdLabel(prices[0]!), max: usdLabel(prices[prices.length - 1]!) };
}
