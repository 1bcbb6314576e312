/**
 * /v1/usage: what the caller's own credential has left, and its recent charged calls.
 * The credential travels in the headers exactly as for a paid call (X-Api-Key,
 * X-Bundle-Token or Authorization: Bearer); only rows of that credential are returned,
 * and never a token, key or hash.
 */
import { credentialFromHeaders } from "@/lib/access/credentials";
import { keyUsage } from "@/lib/access/keys";
import { bundleState } from "@/lib/access/bundles";
import { recentReceipts } from "@/lib/access/receipts";
import { ApiError } from "@/lib/errors";

export async function usageReport(req: Request): Promise<Record<string, unknown>> {
  const c = credentialFromHeaders(req.headers);
  if (c.kind === "api_key") {
    const u = await keyUsage(c.key);
    if (!u) throw new ApiError("not_found", "Unknown API key.");
    const recent = await recentReceipts({ apiKeyId: u.id });
    return { kind: "api_key", daily_quota: u.quota, used_today: u.used, remaining_today: u.remaining, resets_at: new Date(u.resetAt).toISOString(), recent: recent.map(row) };
  }
  if (c.kind === "bundle") {
    const b = await bundleState(c.token);
    if (!b) throw new ApiError("not_found", "Unknown bundle token.");
    const recent = await recentReceipts({ bundleId: b.id });
    return { kind: "bundle", bundle_id: b.id, tier: b.tier, credits_total: b.total, credits_remaining: b.remaining, recent: recent.map(row) };
  }
  throw new ApiError("bad_request", "Send the API key as X-Api-Key or the bundle token as X-Bundle-Token (or Authorization: Bearer).");
}

function row(r: Awaited<ReturnType<typeof recentReceipts>>[number]) {
  return { receipt_id: r.id, product: r.product, surface: r.surface, credits: r.credits, amount_usd: r.amountUsd, at: r.createdAt.toISOString() };
}
