/**
 * Text documents for language models and agents, generated from the catalog:
 * - /llms.txt (llmstxt.org layout: H1, block-quote summary, sections of link lists);
 * - /agents.txt (plain text, `Key: value` lines then one line per endpoint and tool).
 */
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import { usdLabel } from "@/lib/payments/price";
import { advertisedDocuments, docPath } from "@/lib/discovery/documents";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { SERVICE, acceptedCredentials, freeQuota, paidProducts, paramDocs, paymentFacts, paymentLine, priceLine } from "@/lib/discovery/service";
import { toolList } from "@/lib/discovery/tools";
import type { AnyProduct } from "@/lib/catalog/types";

function paramsText(p: AnyProduct): string {
  const ps = paramDocs(p.params);
  if (!ps.length) return "no parameters";
  return ps
    .map(([n, d]) => `${n} (${d.type}${d.required ? ", required" : ""}${d.default !== undefined && d.default !== "" ? `, default ${d.default}` : ""}${d.minimum !== undefined ? `, ${d.minimum}..${d.maximum}` : ""}${d.enum ? `, one of ${d.enum.join("|")}` : ""})`)
    .join("; ");
}

/** /llms.txt */
export function llmsTxt(base: string): string {
  const pay = paymentFacts();
  const freeKey = freeEndpoint("/v1/free-key").path;
  const lines = [
    `# ${SERVICE.title}`,
    "",
    `> ${SERVICE.description}`,
    "",
    `Base URL: ${base}. MCP server: ${base}${SERVICE.mcpPath} (${SERVICE.mcpTransport}, protocol ${SERVICE.mcpProtocolVersion}). Payment: ${paymentLine()}; or a prepaid bundle token (X-Bundle-Token) or a free-tier key (X-Api-Key). No account needed. Paid calls without a credential answer 402 with the payment requirement (endpoint, price, instruction); nothing is charged when a call fails.`,
    "",
    "## Paid HTTP endpoints",
    "",
    ...paidProducts().map((p) => `- [GET ${p.path}](${base}${p.path}): ${p.description} Price: ${priceLine(p)}. Parameters: ${paramsText(p)}. Accepts: ${acceptedCredentials(p).join(", ")}.`),
    "",
    "## MCP tools",
    "",
    ...toolList().map((t) => `- ${t.name} (${t.free ? "free" : usdLabel(t.price)}): ${t.title}.${t.path ? ` HTTP: GET ${t.path}.` : ""} Arguments: ${Object.keys((t.inputSchema.properties ?? {}) as object).join(", ") || "none"}.`),
    "",
    "## Free endpoints",
    "",
    ...PUBLIC_FREE_ENDPOINTS.map((e) => `- [GET ${e.path}](${base}${e.path}): ${e.description}`),
    `- [GET /](${base}/): Service info (JSON with Accept: application/json).`,
    "",
    "## How to pay",
    "",
    ...(pay.x402.length > 0
      ? [
          `- x402 v2: read the base64 PAYMENT-REQUIRED header of the 402, sign it (${pay.x402.map((m) => m.label).join(" or ")}) and repeat the request with PAYMENT-SIGNATURE.`,
          "- x402 v1: sign one of the 402 body's accepts[] and repeat the request with X-PAYMENT.",
        ]
      : []),
    ...pay.others.map((m) => `- ${m.howTo}`),
    `- Bundle: buy credits once (GET ${productById("bundle").path}, paid with x402) and send the token as X-Bundle-Token; each call consumes its credit cost.`,
    `- Free tier: GET ${freeKey}, then send X-Api-Key on standard endpoints (${freeQuota()} calls per UTC day).`,
    "- MCP: pass payment, bundle_token or api_key as tool arguments.",
    "",
    "## Discovery documents",
    "",
    ...advertisedDocuments()
      .filter((d) => !d.path.includes("{") && d.path !== docPath("/llms.txt"))
      .map((d) => `- [${d.title}](${base}${d.path}): ${d.description}`),
    "",
  ];
  return lines.join("\n");
}

/** /agents.txt */
export function agentsTxt(base: string): string {
  const pay = paymentFacts();
  const line = (k: string, v: string) => `${k}: ${v}`;
  return [
    `# agents.txt: ${SERVICE.title}`,
    "# Agent-oriented summary. Machine-readable descriptions are listed under Documents.",
    "",
    line("Service", SERVICE.name),
    line("Description", SERVICE.description),
    line("Base-URL", base),
    line("API-Version", SERVICE.apiVersion),
    line("MCP-Endpoint", `${base}${SERVICE.mcpPath}`),
    line("MCP-Transport", SERVICE.mcpTransport),
    line("MCP-Protocol-Version", SERVICE.mcpProtocolVersion),
    line("Authentication", "none (no account); payment is the credential"),
    line("Payment", pay.x402.length > 0 ? `${paymentLine()}; headers PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1)` : paymentLine()),
    line("Alternatives", `X-Bundle-Token (prepaid bundle), X-Api-Key (free tier, GET ${freeEndpoint("/v1/free-key").path}, ${freeQuota()} calls per UTC day)`),
    line("Free", [...PUBLIC_FREE_ENDPOINTS.map((e) => e.path), ...toolList().filter((t) => t.free).map((t) => `mcp:${t.name}`)].join(", ")),
    "",
    "# Paid endpoints: METHOD PATH | HTTP price USD | MCP tool and price | parameters",
    ...paidProducts().map((p) => `Endpoint: GET ${p.path} | ${usdLabel(p.httpPrice)} | ${p.tool ? `${p.tool.name} ${usdLabel(p.tool.price)}` : "-"} | ${paramsText(p)}`),
    "",
    "# MCP tools: name | price | HTTP path",
    ...toolList().map((t) => `Tool: ${t.name} | ${t.free ? "free" : usdLabel(t.price)} | ${t.path ?? "-"}`),
    "",
    "# Documents",
    ...advertisedDocuments()
      .filter((d) => !d.path.includes("{"))
      .map((d) => `Document: ${base}${d.path} (${d.mediaType})`),
    "",
  ].join("\n");
}
