/** Service info JSON served at "/" to agents (Accept: application/json). */
import { PRODUCTS } from "@/lib/catalog";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import { baseUrl } from "@/lib/http/base-url";
import { publicAttestationKey } from "@/lib/attestation";
import { SERVICE } from "@/lib/discovery/service";

export async function serviceInfo(req: Request): Promise<Record<string, unknown>> {
  const base = baseUrl(req);
  const attestation = await Promise.race([publicAttestationKey().catch(() => null), new Promise<null>((r) => setTimeout(() => r(null), 2000))]);
  return {
    name: SERVICE.name,
    version: SERVICE.apiVersion,
    description: SERVICE.description,
    base_url: base,
    mcp_url: `${base}${SERVICE.mcpPath}`,
    endpoints: PRODUCTS.map((p) => ({ path: p.path, price_usd: p.httpPrice, tool: p.tool?.name ?? null })),
    free: PUBLIC_FREE_ENDPOINTS.map((e) => e.path),
    attestation_public_key: attestation,
  };
}
