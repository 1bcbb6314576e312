/**
 * DexScreener (keyless, 300 requests/min): `/token-pairs/v1/{chainId}/{token}` returns
 * every pool of a token on one chain. Counts and USD volumes per window (m5, h1, h6,
 * h24); `priceUsd` is a string; `liquidity` may be missing (unknown, not 0). There is no
 * buy/sell USD split and no per-trade size upstream. An unknown token answers `[]`.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, type Provider } from "@/lib/market/upstream";

export const dexscreener: Provider = { name: "dexscreener", baseUrl: () => env().DEXSCREENER_BASE_URL };

/** DexScreener chain ids we support (their spelling). */
export const DEXSCREENER_CHAINS = ["base", "solana", "ethereum", "bsc", "polygon", "arbitrum", "optimism", "avalanche"] as const;
export type DexChain = (typeof DEXSCREENER_CHAINS)[number];

const num = z.number().finite();
const optNum = num.nullable().optional().transform((v) => v ?? null);
const Counts = z.object({ buys: z.number().int().nonnegative(), sells: z.number().int().nonnegative() });
const Windows = <T extends z.ZodType>(t: T) => z.object({ m5: t.optional(), h1: t.optional(), h6: t.optional(), h24: t.optional() });
const TokenRef = z.object({ address: z.string(), name: z.string().optional(), symbol: z.string().optional() });

const Pair = z
  .object({
    chainId: z.string(),
    dexId: z.string(),
    url: z.string().optional(),
    pairAddress: z.string(),
    labels: z.array(z.string()).optional(),
    baseToken: TokenRef,
    quoteToken: TokenRef,
    priceNative: z.string().optional(),
    priceUsd: z
      .string()
      .nullable()
      .optional()
      .transform((s) => (s === null || s === undefined || s === "" || !Number.isFinite(Number(s)) ? null : Number(s))),
    txns: Windows(Counts).optional().transform((v) => v ?? {}),
    volume: Windows(num).optional().transform((v) => v ?? {}),
    priceChange: Windows(num).nullable().optional().transform((v) => v ?? {}),
    liquidity: z.object({ usd: num.optional(), base: num.optional(), quote: num.optional() }).nullable().optional().transform((v) => v ?? null),
    fdv: optNum,
    marketCap: optNum,
    pairCreatedAt: optNum,
  })
  .loose();
export type DexPair = z.infer<typeof Pair>;

/** All pools of `token` on `chain` (possibly empty). Solana mints are case-sensitive. */
export async function tokenPairs(chain: DexChain, token: string): Promise<DexPair[]> {
  const t = chain === "solana" ? token : token.toLowerCase();
  return cached(`dexscreener:pairs:${chain}:${t}`, 30_000, () =>
    fetchJson(dexscreener, `/token-pairs/v1/${chain}/${encodeURIComponent(t)}`, {}, z.array(Pair)),
  );
}
