/**
 * /auth.md: how an agent gets access. There is no registration: payment is the
 * credential (spec 5). The per-product table says which credentials each operation
 * accepts, read from the catalog the access gate uses.
 */
import { usdLabel } from "@/lib/payments/price";
import { SERVICE, acceptedCredentials, freeQuota, paidProducts, paymentFacts } from "@/lib/discovery/service";
import { OAUTH_RESOURCE_PREFIX, docUrl } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { FREE_TOOLS } from "@/lib/catalog/free";

/** Section 1: the x402 steps when an x402 method is accepted, the other per-call methods, or that there is none. */
function perCallSection(base: string, path: string, pay: ReturnType<typeof paymentFacts>): string[] {
  const others = pay.others;
  if (pay.x402.length === 0) {
    return others.length > 0
      ? ["x402 `exact` is not configured on this instance; per call it takes:", ...others.flatMap((m) => ["", `- ${m.howTo}`])]
      : ["Per-call payment is not configured on this instance: use a bundle token or a free-tier key."];
  }
  return [
    `Scheme \`exact\`: ${pay.x402.map((m) => `${m.label} (asset \`${m.asset.address}\`, ${m.asset.decimals} decimals), paid to \`${m.payTo}\``).join("; ")}. All are offered in the same \`accepts[]\`. Settlement happens only after the call succeeded.`,
    "",
    "1. Call the endpoint without a credential:",
    "",
    "   ```",
    `   curl -i ${base}${path}`,
    "   ```",
    "",
    `   It answers **402**. The body follows x402 v1 (\`x402Version: 1\`, \`accepts[]\`) and carries \`endpoint\`, \`price\` and \`instruction\`; the \`PAYMENT-REQUIRED\` header carries the x402 v2 requirement (base64 JSON).`,
    `2. Sign one of \`accepts[]\` (any x402 client does this, e.g. \`@x402/fetch\`): ${pay.x402.map((m) => m.howTo).join(" Or ")}`,
    "3. Repeat the request with the payload in `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1). The 200 response carries the receipt in `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE` and `X-Receipt-Id`.",
    ...others.flatMap((m) => ["", `Also accepted: ${m.howTo}`]),
  ];
}

/** /auth.md */
export function authMd(base: string): string {
  const pay = paymentFacts();
  const bundles = paidProducts().filter((p) => p.kind === "bundle");
  const example = paidProducts().find((p) => p.kind === "data" && p.freeTier) ?? paidProducts()[0]!;
  return [
    `# Access to ${SERVICE.title}`,
    "",
    "No account, registration or OAuth flow exists: **payment is the credential**. Any one of the following satisfies a paid operation.",
    "",
    pay.x402.length > 0 ? "## 1. Pay per call with x402" : "## 1. Pay per call",
    "",
    ...perCallSection(base, example.path, pay),
    "",
    "## 2. Prepaid bundle token",
    "",
    ...bundles.map((b) => `- \`GET ${b.path}\` (${usdLabel(b.httpPrice)} over HTTP${b.tool ? `, ${usdLabel(b.tool.price)} as MCP tool ${b.tool.name}` : ""}): ${b.description}`),
    "",
    "Send the token as `X-Bundle-Token: <token>` (or `Authorization: Bearer <token>`); MCP tools take it as `bundle_token`. Every response says `X-Bundle-Credits-Remaining`.",
    "",
    "## 3. Free-tier API key",
    "",
    `\`GET ${base}${freeEndpoint("/v1/free-key").path}\` (optional \`email\`) or the MCP tool \`${FREE_TOOLS.freeKey}\` mints a key, shown once. Send it as \`X-Api-Key\` (MCP: \`api_key\`). Quota: ${freeQuota()} calls per UTC day on standard endpoints; past it the answer is 429 with \`Retry-After\` and the payment requirement.`,
    "",
    "## MCP",
    "",
    `Connect to \`${base}${SERVICE.mcpPath}\` (${SERVICE.mcpTransport}). Paid tools called without a credential return the payment requirement as their result; call again with \`payment\` (base64 x402 payload), \`bundle_token\` or \`api_key\`.`,
    "",
    "## What each operation accepts",
    "",
    "| Operation | HTTP price | Accepts |",
    "|---|---|---|",
    ...paidProducts().map((p) => `| GET ${p.path} | ${usdLabel(p.httpPrice)} | ${acceptedCredentials(p).join(", ")} |`),
    "",
    "## Machine-readable",
    "",
    `- OpenAPI security schemes: ${docUrl(base, "/openapi.json")} (${[...(pay.perCall ? ["x402"] : []), ...(pay.x402.length > 0 ? ["x402v2"] : []), "BundleToken", "ApiKeyAuth"].map((n) => `\`${n}\``).join(", ")})`,
    `- Protected-resource metadata (RFC 9728; names no authorization server, none runs here): ${docUrl(base, OAUTH_RESOURCE_PREFIX)}`,
    "",
  ].join("\n");
}
