/**
 * Polymarket Gamma API (keyless): active markets ordered by 24h volume. `outcomes`,
 * `outcomePrices` and `clobTokenIds` are JSON-encoded strings inside the JSON and are
 * decoded here; a market whose strings do not decode keeps `null` odds rather than
 * failing the whole list. Missing numbers stay null (unknown), never 0.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, type Provider } from "@/lib/market/upstream";

export const polymarket: Provider = { name: "polymarket", baseUrl: () => env().POLYMARKET_BASE_URL };

/** Gamma serves numbers sometimes as numbers, sometimes as decimal strings. */
const looseNumber = z
  .union([z.number(), z.string()])
  .nullable()
  .optional()
  .transform((v) => {
    if (v === null || v === undefined || v === "") return null;
    const n = typeof v === "number" ? v : Number(v);
    return Number.isFinite(n) ? n : null;
  });

/** A JSON-encoded array of strings (e.g. "[\"Yes\", \"No\"]"); null when absent or undecodable. */
const jsonStringArray = z
  .string()
  .nullable()
  .optional()
  .transform((s) => {
    if (!s) return null;
    try {
      const v: unknown = JSON.parse(s);
      return Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number") ? v.map(String) : null;
    } catch {
      return null;
    }
  });

const GammaMarket = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  question: z.string().min(1),
  slug: z.string().nullable().optional().transform((v) => v ?? null),
  conditionId: z.string().nullable().optional().transform((v) => v ?? null),
  endDate: z.string().nullable().optional().transform((v) => v ?? null),
  active: z.boolean().optional(),
  closed: z.boolean().optional(),
  volume24hr: looseNumber,
  volumeNum: looseNumber,
  liquidityNum: looseNumber,
  outcomes: jsonStringArray,
  outcomePrices: jsonStringArray,
  events: z
    .array(z.object({ slug: z.string().nullable().optional() }).loose())
    .nullable()
    .optional()
    .transform((v) => v ?? []),
});
export type GammaMarket = z.infer<typeof GammaMarket>;

/** Markets the adapter always fetches; callers slice, so every `limit` shares one request. */
export const GAMMA_FETCH_LIMIT = 50;

/** Active, open markets ordered by 24h volume (descending), at most GAMMA_FETCH_LIMIT. */
export async function topMarketsByVolume(): Promise<GammaMarket[]> {
  return cached("polymarket:markets:volume24hr", 60_000, () =>
    fetchJson(
      polymarket,
      "/markets",
      { active: true, closed: false, order: "volume24hr", ascending: false, limit: GAMMA_FETCH_LIMIT },
      z.array(GammaMarket),
    ),
  );
}
