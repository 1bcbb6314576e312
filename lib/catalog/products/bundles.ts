// GET /v1/bundle and /v1/bundle/enterprise — buy prepaid call credits (payment only).
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct, type HandlerContext, type ToolDecl } from "@/lib/catalog/types";
import { mintBundle, revokeUnpaidBundle, type BundleTier } from "@/lib/access/bundles";
import { env } from "@/lib/config/env";
import { ApiError } from "@/lib/errors";
import { countOf, formatCount } from "@/lib/catalog/format";

const BundleOut = z.object({
  bundle_token: z.string().describe("Prepaid token, shown once: send it as X-Bundle-Token (or Authorization: Bearer) over HTTP, or as the bundle_token tool argument"),
  bundle_id: z.string().describe("Public id of the bundle (appears in receipts)"),
  tier: z.enum(["standard", "enterprise"]),
  credits: z.number().int().positive().describe("Credits bought"),
  credits_remaining: z.number().int().nonnegative(),
  credit_costs: z.object({ standard_call: z.number().int(), premium_report: z.number().int() }).describe("Credits one call consumes"),
  usage: z.string(),
  created_at: z.string(),
});


const standardCredits = () => env().STANDARD_BUNDLE_CREDITS;
const enterpriseCredits = () => env().ENTERPRISE_BUNDLE_CREDITS;

/** The answer of a purchase: the bundle just minted (a real one, or the catalog's example). */
function bundleResponse(tier: BundleTier, b: { token: string; id: string; credits: number; remaining: number }, now: Date): z.output<typeof BundleOut> {
  return {
    bundle_token: b.token,
    bundle_id: b.id,
    tier,
    credits: b.credits,
    credits_remaining: b.remaining,
    credit_costs: { ...CREDIT_COSTS },
    usage: "HTTP: X-Bundle-Token: <token> (or Authorization: Bearer <token>). MCP: pass bundle_token. Each response carries X-Bundle-Credits-Remaining.",
    created_at: now.toISOString(),
  };
}

/** The catalog's example purchase: the response's shape with a placeholder token (never a usable one). */
const exampleBundle = (tier: BundleTier, credits: number) =>
  bundleResponse(tier, { token: `echo_bt_${"0".repeat(43)}`, id: "b27f0254-c50f-4ddc-86d9-3f07c8652235", credits, remaining: credits }, new Date("2026-11-26T19:18:58.685Z"));

function purchase(tier: BundleTier, credits: () => number) {
  return async (_params: Record<string, never>, ctx: HandlerContext) => {
    if (!ctx.payment) throw new ApiError("payment_required", "Bundles are bought with a per-call payment.");
    return bundleResponse(tier, await mintBundle(tier, credits(), ctx.payment.id), ctx.now);
  };
}

/**
 * A bundle product: sold for a per-call payment only, never cached, revoked if unpaid.
 * Its description states the credits this instance sells (read when shown, from the
 * same setting the purchase uses).
 */
function bundleProduct(o: {
  id: string;
  path: string;
  title: string;
  description: (credits: number) => string;
  httpPrice: string;
  tool: ToolDecl;
  tier: BundleTier;
  credits: () => number;
}) {
  return defineProduct({
    id: o.id,
    path: o.path,
    title: o.title,
    get description() {
      return o.description(o.credits());
    },
    tags: ["bundle", "payments"],
    kind: "bundle",
    httpPrice: o.httpPrice,
    tool: o.tool,
    credits: 0,
    freeTier: false,
    params: {},
    output: BundleOut,
    // Read when shown: the credits sold are configurable.
    get example() {
      return exampleBundle(o.tier, o.credits());
    },
    cacheTtlSeconds: 0,
    sources: [],
    creditsSold: o.credits,
    handler: purchase(o.tier, o.credits),
    secrets: ["bundle_token"],
    onCommitFailed: async (v) => revokeUnpaidBundle(v.bundle_id),
  });
}

export const bundle = bundleProduct({
  id: "bundle",
  path: "/v1/bundle",
  title: "Standard prepaid bundle",
  description: (n) =>
    `Buy ${countOf(n, "prepaid call credit")} (${countOf(Math.floor(n / CREDIT_COSTS.standard_call), "standard call")} or ${countOf(Math.floor(n / CREDIT_COSTS.premium_report), "premium report")}); returns a bundle token.`,
  httpPrice: "0.05",
  tool: { name: "buy_call_credits_bundle", price: "1.00", label: "Buy call credits bundle" },
  tier: "standard",
  credits: standardCredits,
});

export const enterpriseBundle = bundleProduct({
  id: "bundle-enterprise",
  path: "/v1/bundle/enterprise",
  title: "Enterprise prepaid bundle",
  description: (n) => `Buy the enterprise volume tier of prepaid call credits (${formatCount(n)} credits); returns a bundle token.`,
  httpPrice: "25.00",
  tool: { name: "buy_enterprise_bundle", price: "25.00", label: "Buy enterprise bundle" },
  tier: "enterprise",
  credits: enterpriseCredits,
});
