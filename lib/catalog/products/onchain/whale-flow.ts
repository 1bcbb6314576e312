// GET /v1/whale-flow — DexScreener 24h buy/sell pressure, liquidity, trade size and surge for a token.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { tokenPairs, type DexPair as RawPair } from "@/lib/market/sources/dexscreener";
import { whaleFlow, type DexPair } from "@/lib/market/signals/whale-flow";
import { checkAddressForChain, flowChainParam, tokenAddressParam } from "@/lib/catalog/products/onchain/params";
import { dpOrNull, sigOrNull } from "@/lib/catalog/products/onchain/format";

const TOP_PAIRS = 5;

function toSignal(p: RawPair): DexPair {
  return {
    dexId: p.dexId,
    pairAddress: p.pairAddress,
    liquidityUsd: p.liquidity?.usd ?? null,
    volume: { h1: p.volume.h1 ?? 0, h24: p.volume.h24 ?? 0 },
    txns: { h1: p.txns.h1 ?? { buys: 0, sells: 0 }, h24: p.txns.h24 ?? { buys: 0, sells: 0 } },
    priceUsd: p.priceUsd,
  };
}

const ratio = (d: string) => z.number().min(0).max(1).nullable().describe(d);
const usd = (d: string) => z.number().nonnegative().nullable().describe(d);
const int = (d: string) => z.number().int().nonnegative().nullable().describe(d);

const TopPair = z.object({
  dex: z.string().describe("DEX id (e.g. uniswap, aerodrome, raydium)"),
  labels: z.array(z.string()).describe("DexScreener pool labels (e.g. v3, CLMM)"),
  pair_address: z.string().describe("Pool address"),
  quote_symbol: z.string().nullable().describe("Symbol of the token it is paired with"),
  url: z.string().nullable().describe("DexScreener page of the pool"),
  price_usd: usd("Token price in this pool, USD"),
  liquidity_usd: usd("Pool liquidity, USD; null when DexScreener reports none (e.g. bonding curves)"),
  volume_24h_usd: usd("Pool volume over 24 hours, USD"),
  buys_24h: int("Buy trades over 24 hours"),
  sells_24h: int("Sell trades over 24 hours"),
});

export const whaleFlowProduct = defineProduct({
  id: "whale-flow",
  path: "/v1/whale-flow",
  title: "Whale flow",
  description:
    "DEX flow of a token from DexScreener, across all its pools on one chain: 24h and 1h buy/sell pressure (share of trades that are buys), liquidity, 24h volume, average trade size (the only whale proxy: DexScreener has no per-trade sizes or USD split by side), activity-surge ratio (last hour vs the 24h hourly average) and turnover, with a verdict accumulating / distributing / balanced plus thin-liquidity and surge notes, and the top pools. A token without pools answers 200 with verdict 'no_liquidity'. Chains: base, solana, ethereum, bsc, polygon, arbitrum, optimism, avalanche.",
  tags: ["dex", "flow", "onchain", "tokens"],
  kind: "data",
  httpPrice: "0.02",
  tool: { name: "get_whale_flow", price: "0.02", label: "Whale flow" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    chain: flowChainParam,
    token: tokenAddressParam("Token address (0x + 40 hex) on EVM chains, or the base58 mint address on solana.", "0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed"),
  },
  output: z.object({
    chain: z.enum(["base", "solana", "ethereum", "bsc", "polygon", "arbitrum", "optimism", "avalanche"]).describe("Chain queried (DexScreener spelling)"),
    token: z.string().describe("Token address (EIP-55 checksum on EVM chains, the mint as given on solana)"),
    token_symbol: z.string().nullable().describe("Token symbol; null when no pool was found"),
    token_name: z.string().nullable().describe("Token name; null when no pool was found"),
    verdict: z
      .enum(["accumulating", "distributing", "balanced", "no_liquidity"])
      .describe("accumulating (≥55% of 24h trades are buys), distributing (≤45%), balanced (in between or fewer than 20 trades), no_liquidity (no pools)"),
    buy_ratio_24h: ratio("Buys / (buys + sells) over 24 hours, by trade count"),
    buy_ratio_1h: ratio("Buys / (buys + sells) over the last hour, by trade count"),
    buys_24h: int("Buy trades over 24 hours, all pools"),
    sells_24h: int("Sell trades over 24 hours, all pools"),
    buys_1h: int("Buy trades over the last hour"),
    sells_1h: int("Sell trades over the last hour"),
    liquidity_usd: usd("Liquidity summed over pools that report it, USD"),
    volume_24h_usd: usd("Volume over 24 hours, all pools, USD"),
    volume_1h_usd: usd("Volume over the last hour, USD"),
    avg_trade_usd: usd("Average trade size over 24 hours (volume / trades), USD: the whale proxy"),
    surge_ratio: z.number().nonnegative().nullable().describe("Last-hour volume / (24h volume / 24): above 2 is an activity surge"),
    turnover: z.number().nonnegative().nullable().describe("24h volume / liquidity"),
    price_usd: usd("Token price in its most liquid pool, USD"),
    pairs_count: z.number().int().nonnegative().describe("Number of pools found"),
    top_pairs: z.array(TopPair).describe(`Up to ${TOP_PAIRS} pools by liquidity`),
    notes: z.array(z.string()).describe("Thin-liquidity, surge, turnover and data caveats"),
    source: z.literal("dexscreener").describe("Upstream provider"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    chain: "base",
    token: "0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed",
    token_symbol: null,
    token_name: null,
    verdict: "no_liquidity",
    buy_ratio_24h: null,
    buy_ratio_1h: null,
    buys_24h: null,
    sells_24h: null,
    buys_1h: null,
    sells_1h: null,
    liquidity_usd: null,
    volume_24h_usd: null,
    volume_1h_usd: null,
    avg_trade_usd: null,
    surge_ratio: null,
    turnover: null,
    price_usd: null,
    pairs_count: 0,
    top_pairs: [],
    notes: ["DexScreener lists no pools for this token on base: it is not traded on a tracked DEX there (or the address / chain is wrong)"],
    source: "dexscreener",
    ts: "2026-11-26T19:18:59.041Z",
  },
  cacheTtlSeconds: 30,
  sources: ["dexscreener"],
  handler: async ({ chain, token }, ctx) => {
    const addr = checkAddressForChain("token", chain, token);
    const pairs = await tokenPairs(chain, addr);
    const flow = whaleFlow(pairs.map(toSignal));
    const base = { chain, token: addr, source: "dexscreener" as const, ts: ctx.now.toISOString() };
    if (!flow) {
      return {
        ...base,
        token_symbol: null,
        token_name: null,
        verdict: "no_liquidity" as const,
        buy_ratio_24h: null,
        buy_ratio_1h: null,
        buys_24h: null,
        sells_24h: null,
        buys_1h: null,
        sells_1h: null,
        liquidity_usd: null,
        volume_24h_usd: null,
        volume_1h_usd: null,
        avg_trade_usd: null,
        surge_ratio: null,
        turnover: null,
        price_usd: null,
        pairs_count: 0,
        top_pairs: [],
        notes: [`DexScreener lists no pools for this token on ${chain}: it is not traded on a tracked DEX there (or the address / chain is wrong)`],
      };
    }
    // The token may be the quote side of some pools: take its name from where it is the base.
    const self = pairs.find((p) => p.baseToken.address.toLowerCase() === addr.toLowerCase())?.baseToken ?? pairs[0]!.baseToken;
    const top = [...pairs].sort((a, b) => (b.liquidity?.usd ?? -1) - (a.liquidity?.usd ?? -1)).slice(0, TOP_PAIRS);
    return {
      ...base,
      token_symbol: self.symbol ?? null,
      token_name: self.name ?? null,
      verdict: flow.verdict,
      buy_ratio_24h: dpOrNull(flow.buyRatio24h, 4),
      buy_ratio_1h: dpOrNull(flow.buyRatio1h, 4),
      buys_24h: flow.txns24h.buys,
      sells_24h: flow.txns24h.sells,
      buys_1h: flow.txns1h.buys,
      sells_1h: flow.txns1h.sells,
      liquidity_usd: dpOrNull(flow.liquidityUsd, 2),
      volume_24h_usd: dpOrNull(flow.volume24hUsd, 2),
      volume_1h_usd: dpOrNull(flow.volume1hUsd, 2),
      avg_trade_usd: dpOrNull(flow.avgTradeUsd, 2),
      surge_ratio: sigOrNull(flow.surgeRatio, 4),
      turnover: sigOrNull(flow.turnover, 4),
      price_usd: sigOrNull(flow.priceUsd, 7),
      pairs_count: flow.pairs,
      top_pairs: top.map((p) => ({
        dex: p.dexId,
        labels: p.labels ?? [],
        pair_address: p.pairAddress,
        quote_symbol: p.quoteToken.symbol ?? null,
        url: p.url ?? null,
        price_usd: sigOrNull(p.priceUsd, 7),
        liquidity_usd: dpOrNull(p.liquidity?.usd, 2),
        volume_24h_usd: dpOrNull(p.volume.h24, 2),
        buys_24h: p.txns.h24?.buys ?? null,
        sells_24h: p.txns.h24?.sells ?? null,
      })),
      notes: flow.notes,
      source: "dexscreener" as const,
      ts: ctx.now.toISOString(),
    };
  },
});
