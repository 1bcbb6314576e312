// GET /v1/breadth — top-50 breadth (stablecoins excluded), regime, dominance, XLM relative strength.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { breadthStats, isStablecoin, marketRegime } from "@/lib/market/signals/breadth";
import { coingecko, coinMarkets, globalMarket, type MarketRow } from "@/lib/market/sources/coingecko";
import { upstreamFailure } from "@/lib/market/upstream";
import { dp, dpOrNull } from "@/lib/catalog/products/markets/format";
import { MARKET_ROWS } from "@/lib/catalog/products/markets/top-movers";

/** Coins the breadth is measured over. */
export const BREADTH_TOP_N = 50;
/**
 * Rows fetched to fill the top 50 after stablecoins are dropped (about ten of the top 100
 * are stablecoins). 250 rather than 100: it is the same single upstream call as
 * /v1/top-movers, so both products share one cached response.
 */
export const BREADTH_FETCH_ROWS = MARKET_ROWS;

const REGIMES = ["risk_on", "mild_risk_on", "mixed", "mild_risk_off", "risk_off"] as const;

export const breadthOutput = z.object({
  top_n: z.number().int().describe("Coins measured: the top 50 non-stablecoins by market cap"),
  n: z.number().int().describe("Coins with a known 24h change among them"),
  advancers: z.number().int().describe("Coins up over 24h"),
  decliners: z.number().int().describe("Coins down over 24h"),
  unchanged: z.number().int().describe("Coins exactly flat over 24h"),
  breadth_pct: z.number().describe("100 x advancers / n"),
  mean_change_24h_pct: z.number().describe("Mean 24h change of the measured coins, percent"),
  median_change_24h_pct: z.number().describe("Median 24h change of the measured coins, percent"),
  regime: z.enum(REGIMES).describe("risk_on: breadth >= 60 and mean >= 0.5; risk_off: breadth <= 40 and mean <= -0.5; mild_risk_on: breadth >= 55 and mean > 0; mild_risk_off: breadth <= 45 and mean < 0; else mixed"),
  btc_dominance_pct: z.number().nullable().describe("Bitcoin's share of total crypto market cap, percent; null when the global figures are unavailable"),
  eth_dominance_pct: z.number().nullable().describe("Ethereum's share of total crypto market cap, percent; null when the global figures are unavailable"),
  xlm_change_24h_pct: z.number().nullable().describe("XLM 24h change, percent"),
  btc_change_24h_pct: z.number().nullable().describe("BTC 24h change, percent"),
  eth_change_24h_pct: z.number().nullable().describe("ETH 24h change, percent"),
  xlm_vs_btc_pp: z.number().nullable().describe("XLM 24h change minus BTC's, percentage points (positive = XLM stronger)"),
  xlm_vs_eth_pp: z.number().nullable().describe("XLM 24h change minus ETH's, percentage points (positive = XLM stronger)"),
  xlm_market_cap_rank: z.number().int().nullable().describe("XLM's market-cap rank (stablecoins included, as CoinGecko ranks)"),
  stablecoins_excluded: z.array(z.string()).describe("Stablecoin ids dropped from the ranking before the top 50 was taken"),
  unavailable: z.array(z.string()).describe("Components that could not be fetched ('global': dominance is null); empty when complete"),
  source: z.literal("coingecko").describe("Upstream provider"),
  ts: z.string().describe("Time the figures were computed (ISO 8601)"),
});
export type BreadthFigures = z.infer<typeof breadthOutput>;

const byCapDesc = (a: MarketRow, b: MarketRow) => (b.market_cap ?? -1) - (a.market_cap ?? -1);

/**
 * Breadth figures over the top 50 non-stablecoins. Reusable by composite products
 * (/v1/verdict). Throws an UpstreamError when the market rows cannot be fetched;
 * dominance degrades to null with `unavailable` naming the global figures.
 */
export async function computeBreadth(now: Date): Promise<BreadthFigures> {
  const [rowsR, globalR] = await Promise.allSettled([coinMarkets({ perPage: BREADTH_FETCH_ROWS }), globalMarket()]);
  if (rowsR.status === "rejected") throw rowsR.reason;
  const ranked = [...rowsR.value].sort(byCapDesc);
  const stable = ranked.filter((r) => isStablecoin(r));
  const top = ranked.filter((r) => !isStablecoin(r)).slice(0, BREADTH_TOP_N);
  const lastTop = top[top.length - 1];
  const stats = breadthStats(top.map((r) => r.price_change_percentage_24h));
  if (!stats) upstreamFailure(coingecko, "no 24h changes in the market rows");

  // XLM, BTC and ETH rank far inside the 250 rows scanned; a coin missing there is unknown.
  const row = (id: string) => ranked.find((r) => r.id === id);
  const chg = (id: string) => row(id)?.price_change_percentage_24h ?? null;
  const xlm = chg("stellar");
  const btc = chg("bitcoin");
  const eth = chg("ethereum");
  const pct = globalR.status === "fulfilled" ? globalR.value.market_cap_percentage : null;
  const unavailable = pct ? [] : ["global"];

  return {
    top_n: BREADTH_TOP_N,
    n: stats.n,
    advancers: stats.advancers,
    decliners: stats.decliners,
    unchanged: stats.unchanged,
    breadth_pct: dp(stats.breadthPct, 2),
    mean_change_24h_pct: dp(stats.meanChangePct, 3),
    median_change_24h_pct: dp(stats.medianChangePct, 3),
    regime: marketRegime(stats.breadthPct, stats.meanChangePct),
    btc_dominance_pct: dpOrNull(pct?.btc, 2),
    eth_dominance_pct: dpOrNull(pct?.eth, 2),
    xlm_change_24h_pct: dpOrNull(xlm, 3),
    btc_change_24h_pct: dpOrNull(btc, 3),
    eth_change_24h_pct: dpOrNull(eth, 3),
    xlm_vs_btc_pp: xlm !== null && btc !== null ? dp(xlm - btc, 3) : null,
    xlm_vs_eth_pp: xlm !== null && eth !== null ? dp(xlm - eth, 3) : null,
    xlm_market_cap_rank: row("stellar")?.market_cap_rank ?? null,
    // Only the stablecoins that ranked above the 50th coin actually displaced someone.
    stablecoins_excluded: stable.filter((r) => !lastTop || byCapDesc(r, lastTop) <= 0).map((r) => r.id),
    unavailable,
    source: "coingecko" as const,
    ts: now.toISOString(),
  };
}

export const breadth = defineProduct({
  id: "breadth",
  path: "/v1/breadth",
  title: "Market breadth",
  description:
    "Breadth of the top 50 cryptocurrencies by market cap, stablecoins excluded: advancers/decliners, breadth percent, mean and median 24h change, risk-on/risk-off regime, BTC and ETH dominance, and XLM's relative strength versus BTC and ETH in percentage points.",
  tags: ["markets", "breadth", "regime", "xlm"],
  kind: "data",
  httpPrice: "0.01",
  tool: { name: "get_market_breadth", price: "0.10", label: "Market breadth" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output: breadthOutput,
  example: {
    top_n: 50,
    n: 50,
    advancers: 28,
    decliners: 22,
    unchanged: 0,
    breadth_pct: 56,
    mean_change_24h_pct: 0.166,
    median_change_24h_pct: 0.683,
    regime: "mild_risk_on",
    btc_dominance_pct: 55.38,
    eth_dominance_pct: 11.79,
    xlm_change_24h_pct: 5.994,
    btc_change_24h_pct: 1.627,
    eth_change_24h_pct: -0.935,
    xlm_vs_btc_pp: 4.367,
    xlm_vs_eth_pp: 6.929,
    xlm_market_cap_rank: 15,
    stablecoins_excluded: ["tether", "usd-coin"],
    unavailable: [],
    source: "coingecko",
    ts: "2026-11-26T19:18:46.221Z",
  },
  // Market rows move by the minute; the adapter caches them for 60 s too.
  cacheTtlSeconds: 60,
  sources: ["coingecko"],
  handler: (_params, ctx) => computeBreadth(ctx.now),
});
