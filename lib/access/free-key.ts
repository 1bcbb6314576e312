/**
 * Minting free-tier keys, shared by GET /v1/free-key and the MCP tool get_free_api_key.
 * Minting is rate-limited per client IP so the key table cannot be farmed.
 */
import { emailParam, paramsSchema } from "@/lib/catalog/params";
import { validateOrThrow } from "@/lib/catalog/validate";
import { mintApiKey } from "@/lib/access/keys";
import { rateLimit, rateLimitHeaders } from "@/lib/limits/ratelimit";
import { policies } from "@/lib/limits/policies";
import { ApiError } from "@/lib/errors";
import { PRODUCTS } from "@/lib/catalog";

export const FREE_KEY_PARAMS = { email: emailParam({ description: "Optional contact e-mail recorded with the key." }) };
const schema = paramsSchema(FREE_KEY_PARAMS);

export interface MintedKey {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Validates the arguments, applies the per-IP mint limit and mints a key. */
export async function mintFreeKey(raw: Record<string, string | undefined>, clientIp: string, where: "query" | "arguments" = "query"): Promise<MintedKey> {
  const { email } = validateOrThrow(schema, raw, where);
  const limit = await rateLimit("free_key_mint", clientIp);
  const headers = rateLimitHeaders(limit, policies().free_key_mint.windowSeconds);
  if (!limit.success) {
    throw new ApiError("rate_limited", `Too many free keys minted from this address; retry in ${headers["Retry-After"]} s.`, {
      headers,
      extra: { retry_after: Number(headers["Retry-After"]) },
    });
  }
  const k = await mintApiKey(email);
  const covers = PRODUCTS.filter((p) => p.kind === "data" && p.freeTier).map((p) => p.path);
  const resetAt = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1));
  return {
    headers,
    body: {
      api_key: k.key,
      key_prefix: k.prefix,
      daily_quota: k.quota,
      used_today: 0,
      remaining_today: k.quota,
      resets_at: resetAt.toISOString(),
      email_recorded: email !== null,
      usage: "Send it as the X-Api-Key header (HTTP) or the api_key argument (MCP). It is shown only once; store it.",
      covers,
    },
  };
}
