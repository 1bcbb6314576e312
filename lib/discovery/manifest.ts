/**
 * /v1/manifest: every paid endpoint with its live price (from the catalog and the
 * running configuration), network and tags. Spec 4.2: it always answers 200, so the
 * parts that depend on the database (the attestation key) degrade to null and the body
 * says what is missing (`complete: false`, `unavailable[]`) instead of failing.
 * Lists the same paths and HTTP prices as /.well-known/x402 and x402-manifest.json.
 */
import { PRODUCTS } from "@/lib/catalog";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import type { ParamSet } from "@/lib/catalog/params";
import { env } from "@/lib/config/env";
import { publicAttestationKey } from "@/lib/attestation";
import { usd6, usdToAtomic } from "@/lib/payments/price";
import { baseUrl } from "@/lib/http/base-url";
import { SERVICE, paymentFacts } from "@/lib/discovery/service";
import { docUrl } from "@/lib/discovery/documents";

/** A part of the manifest that could not be produced, and why. */
export interface MissingPart {
  field: string;
  reason: string;
}

async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: string }> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p.then((value) => ({ value })), new Promise<{ error: string }>((r) => (t = setTimeout(() => r({ error: `no answer within ${ms} ms` }), ms)))]);
  } catch (err) {
    return { error: (err as Error).message.split("\n")[0]!.slice(0, 200) };
  } finally {
    clearTimeout(t);
  }
}

/** The manifest, with `complete: false` and `unavailable[]` when a live part failed. */
export async function manifest(req?: Request): Promise<Record<string, unknown>> {
  const unavailable: MissingPart[] = [];
  const key = await within(publicAttestationKey(), 2000);
  if ("error" in key) {
    unavailable.push({
      field: "attestation_public_key",
      reason: env().ATTESTATION_PRIVATE_KEY ? "the configured attestation key could not be loaded" : "the database holding the attestation key is unavailable",
    });
  }
  return catalogManifest(req, "value" in key ? key.value : null, unavailable);
}

/**
 * The manifest from the catalog and the configuration alone: what /v1/manifest answers
 * when anything live failed. `unavailable` says which parts are missing.
 */
export function catalogManifest(req: Request | undefined, attestationKey: unknown, unavailable: MissingPart[]): Record<string, unknown> {
  const pay = paymentFacts();
  const base = baseUrl(req);
  return {
    name: SERVICE.name,
    version: SERVICE.apiVersion,
    base_url: base,
    mcp_url: `${base}${SERVICE.mcpPath}`,
    x402_version: 2,
    network: pay.network,
    asset: pay.asset,
    pay_to: pay.pay_to,
    payment_methods: pay.methods.map((m) => ({ id: m.id, network: m.network, asset: m.asset, pay_to: m.payTo })),
    endpoints: PRODUCTS.map((p) => ({
      path: p.path,
      method: "GET",
      title: p.title,
      description: p.description,
      tags: p.tags,
      price_usd: usd6(p.httpPrice),
      price_atomic: usdToAtomic(p.httpPrice).toString(),
      network: pay.network,
      credits: p.credits,
      free_tier: p.freeTier,
      tool: p.tool ? { name: p.tool.name, price_usd: usd6(p.tool.price) } : null,
      params: Object.entries(p.params as ParamSet).map(([name, param]) => ({ name, in: "query", ...param.doc })),
    })),
    free_endpoints: PUBLIC_FREE_ENDPOINTS.map((e) => e.path),
    documents: {
      openapi: docUrl(base, "/openapi.json"),
      x402: docUrl(base, "/.well-known/x402"),
      x402_manifest: docUrl(base, "/.well-known/x402-manifest.json"),
      mcp: docUrl(base, "/.well-known/mcp.json"),
    },
    attestation_public_key: attestationKey,
    complete: unavailable.length === 0,
    unavailable,
    ts: new Date().toISOString(),
  };
}
