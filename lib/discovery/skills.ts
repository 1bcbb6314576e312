/**
 * The agent skill of this service (agentskills.io SKILL.md: YAML front matter with
 * `name` and `description`, then Markdown instructions) and its discovery index
 * (/.well-known/agent-skills/index.json, Agent Skills discovery schema 0.2.0) whose
 * sha256 digest is computed from the exact bytes served.
 */
import { createHash } from "node:crypto";
import { usdLabel } from "@/lib/payments/price";
import { SKILL_NAME, docPath, docUrl } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { SERVICE, paidProducts, paramDocs, paymentFacts, paymentLine } from "@/lib/discovery/service";
import { toolList } from "@/lib/discovery/tools";
import { FREE_TOOLS } from "@/lib/catalog/free";

/** The skill's one-line description, naming the per-call methods this instance accepts (from the payment-method registry). */
export function skillDescription(): string {
  const pay = paymentFacts();
  const perCall = [...(pay.x402.length > 0 ? [`x402 (${pay.x402.map((m) => m.label).join(" or ")})`] : []), ...pay.others.map((m) => m.label)];
  const paying = perCall.length > 0 ? `paying per call with ${perCall.join(" or ")}, with a prepaid bundle or with a free-tier key` : "paying with a prepaid bundle or a free-tier key";
  return `Get crypto market intelligence (XLM sentiment, quotes and order book, arbitrage, multi-asset screens, breadth, gas, prediction markets, wallet intel, token safety, whale flow) from a pay-per-call API or MCP server, ${paying}. Use when an agent needs live crypto market data or trading signals.`;
}

export function skillPath(): string {
  return docPath(`/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`);
}

/** Step 3 of "How to call": what this instance takes per call, or that it takes nothing per call. */
function payStep(): string {
  const pay = paymentFacts();
  if (!pay.perCall) return "This instance takes no per-call payment: use step 4.";
  const x402 = pay.x402.length > 0 ? "with x402, sign the requirement from the `PAYMENT-REQUIRED` header and repeat with `PAYMENT-SIGNATURE` (v2), or sign one of the body's `accepts[]` and send `X-PAYMENT` (v1)" : null;
  const others = pay.others.map((m) => m.howTo);
  return `Pay per call (${paymentLine()}): ${[x402, ...others].filter(Boolean).join("; or ")}. MCP: pass the payload as the \`payment\` argument.`;
}

/** The SKILL.md document for the instance at `base`. */
export function skillMarkdown(base: string): string {
  const rows = paidProducts().map((p) => {
    const params = paramDocs(p.params).map(([n, d]) => `${n}${d.required ? "" : "?"}`).join(", ") || "none";
    return `| GET ${p.path} | ${usdLabel(p.httpPrice)} | ${p.tool ? `${p.tool.name} (${usdLabel(p.tool.price)})` : "-"} | ${params} | ${p.title} |`;
  });
  const free = toolList().filter((t) => t.free);
  return [
    "---",
    `name: ${SKILL_NAME}`,
    `description: ${JSON.stringify(skillDescription())}`,
    "metadata:",
    `  version: "${SERVICE.apiVersion}"`,
    `  base_url: "${base}"`,
    "---",
    "",
    `# ${SERVICE.title}`,
    "",
    SERVICE.description,
    "",
    "## When to use",
    "- You need live crypto market data or a trading signal (XLM sentiment, order book, arbitrage, screens, breadth, gas, prediction odds, wallet or token checks).",
    `- Start free: MCP tool \`${free.map((t) => t.name).join("` / `")}\`, or \`GET ${base}${freeEndpoint("/v1/sample").path}\`.`,
    "",
    "## How to call",
    `1. HTTP: \`GET ${base}<path>\` with the query parameters below. MCP: connect to \`${base}${SERVICE.mcpPath}\` (streamable-http, protocol ${SERVICE.mcpProtocolVersion}) and call the tool.`,
    "2. Without a credential a paid call answers **402** (MCP: the requirement is the tool result) with `endpoint`, `price` and `instruction`.",
    `3. ${payStep()}`,
    `4. Or use a prepaid bundle token (\`X-Bundle-Token\` / \`bundle_token\`) or a free-tier key (\`X-Api-Key\` / \`api_key\`, mint one with \`GET ${freeEndpoint("/v1/free-key").path}\` or \`${FREE_TOOLS.freeKey}\`).`,
    "5. Nothing is charged when a call fails (422 invalid parameter, 503 upstream down: retry after `Retry-After`).",
    "",
    "## Endpoints",
    "| HTTP | Price | MCP tool | Parameters | What |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    "## References",
    `- OpenAPI: ${docUrl(base, "/openapi.json")}`,
    `- MCP tools: ${docUrl(base, "/.well-known/mcp.json")}`,
    `- Payment requirements: ${docUrl(base, "/.well-known/x402-manifest.json")}`,
    `- Auth guide: ${docUrl(base, "/auth.md")}`,
    "",
  ].join("\n");
}

/** /.well-known/agent-skills/index.json */
export function skillsIndex(base: string): Record<string, unknown> {
  const digest = createHash("sha256").update(skillMarkdown(base), "utf8").digest("hex");
  return {
    $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
    skills: [{ name: SKILL_NAME, type: "skill-md", description: skillDescription(), url: `${base}${skillPath()}`, digest: `sha256:${digest}` }],
  };
}
