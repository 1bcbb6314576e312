/**
 * Simulated DexScreener `/token-pairs/v1/{chainId}/{token}`: deterministic pools per token
 * and chain on that chain's DEXes, quoted against the chain's wrapped native token or
 * USDC (native prices follow the world). Each token has a market cap, liquidity depth,
 * turnover, average trade size, a buy/sell bias that changes every six hours and, for
 * some, an activity surge in the last hour. About one token in seven has no pools (`[]`),
 * and Solana pump.fun bonding-curve pools come without `liquidity`, as upstream.
 */
import { getAddress, keccak256, toBytes } from "viem";
import { hash32, priceAt, type World } from "@/lib/upstream-sim/world";
import type { SimProvider } from "@/lib/upstream-sim/provider";

const unit = (s: string) => hash32(s) / 4294967296;
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface QuoteDef {
  address: string;
  name: string;
  symbol: string;
  /** World asset whose price the quote token follows (null = $1 stablecoin). */
  coingeckoId: string | null;
}
interface ChainDef {
  evm: boolean;
  dexes: Array<{ id: string; labels?: string[] }>;
  quotes: QuoteDef[];
}

const USDC = (address: string): QuoteDef => ({ address, name: "USD Coin", symbol: "USDC", coingeckoId: null });

export const DEX_CHAINS: Record<string, ChainDef> = {
  base: {
    evm: true,
    dexes: [{ id: "aerodrome" }, { id: "uniswap", labels: ["v3"] }, { id: "uniswap", labels: ["v2"] }, { id: "baseswap" }],
    quotes: [{ address: "0x4200000000000000000000000000000000000006", name: "Wrapped Ether", symbol: "WETH", coingeckoId: "ethereum" }, USDC("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")],
  },
  ethereum: {
    evm: true,
    dexes: [{ id: "uniswap", labels: ["v2"] }, { id: "uniswap", labels: ["v3"] }, { id: "sushiswap" }],
    quotes: [{ address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", name: "Wrapped Ether", symbol: "WETH", coingeckoId: "ethereum" }, USDC("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")],
  },
  solana: {
    evm: false,
    dexes: [{ id: "raydium", labels: ["CPMM"] }, { id: "orca", labels: ["wp"] }, { id: "meteora", labels: ["DLMM"] }, { id: "pumpfun" }],
    quotes: [{ address: "So11111111111111111111111111111111111111112", name: "Wrapped SOL", symbol: "SOL", coingeckoId: "solana" }, USDC("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")],
  },
  bsc: {
    evm: true,
    dexes: [{ id: "pancakeswap", labels: ["v2"] }, { id: "pancakeswap", labels: ["v3"] }, { id: "uniswap", labels: ["v3"] }],
    quotes: [{ address: "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c", name: "Wrapped BNB", symbol: "WBNB", coingeckoId: "binancecoin" }, USDC("0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d")],
  },
  polygon: {
    evm: true,
    dexes: [{ id: "quickswap" }, { id: "uniswap", labels: ["v3"] }],
    quotes: [USDC("0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"), { address: "0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619", name: "Wrapped Ether", symbol: "WETH", coingeckoId: "ethereum" }],
  },
  arbitrum: {
    evm: true,
    dexes: [{ id: "uniswap", labels: ["v3"] }, { id: "camelot" }, { id: "sushiswap" }],
    quotes: [{ address: "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1", name: "Wrapped Ether", symbol: "WETH", coingeckoId: "ethereum" }, USDC("0xaf88d065e77c8cC2239327C5EDb3A432268e5831")],
  },
  optimism: {
    evm: true,
    dexes: [{ id: "velodrome" }, { id: "uniswap", labels: ["v3"] }],
    quotes: [{ address: "0x4200000000000000000000000000000000000006", name: "Wrapped Ether", symbol: "WETH", coingeckoId: "ethereum" }, USDC("0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85")],
  },
  avalanche: {
    evm: true,
    dexes: [{ id: "traderjoe", labels: ["v2.1"] }, { id: "pharaoh" }, { id: "uniswap", labels: ["v3"] }],
    quotes: [{ address: "0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7", name: "Wrapped AVAX", symbol: "WAVAX", coingeckoId: "avalanche-2" }, USDC("0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E")],
  },
};

const WORDS = ["Based", "Toshi", "Brett", "Degen", "Higher", "Moo", "Keycat", "Mochi", "Bonk", "Popcat", "Wif", "Giga", "Pepe", "Floki", "Aero", "Zora"];

function pairAddress(evm: boolean, key: string): string {
  if (!evm) return Array.from({ length: 44 }, (_, i) => B58[hash32(`${key}:${i}`) % 58]).join("");
  return getAddress(keccak256(toBytes(key)).slice(0, 42));
}

const round = (x: number, sig = 6) => Number(x.toPrecision(sig));
const pct2 = (x: number) => Math.round(x * 100) / 100;

/** True when the simulator gives `token` no pools on `chain`. */
export function dexTokenUnlisted(world: World, chain: string, token: string): boolean {
  const t = DEX_CHAINS[chain]?.evm ? token.toLowerCase() : token;
  return hash32(`${world.seed}:dex:${chain}:${t}`) % 7 === 0;
}

function pairsFor(world: World, chain: string, token: string, now: number) {
  const def = DEX_CHAINS[chain]!;
  const t = def.evm ? token.toLowerCase() : token;
  const key = `${world.seed}:dex:${chain}:${t}`;
  const r = (k: string) => unit(`${key}:${k}`);
  const bucket = Math.floor(now / (6 * HOUR)); // flow regime changes every 6 h
  const hour = Math.floor(now / HOUR);
  const name = `${WORDS[hash32(`${key}:w1`) % WORDS.length]}${r("w2") < 0.5 ? "" : ` ${WORDS[hash32(`${key}:w2`) % WORDS.length]}`}`;
  const symbol = name.replace(/\s+/g, "").slice(0, 6).toUpperCase();
  const supply = 10 ** (6 + r("supply") * 6);
  const mcap = 10 ** (4.7 + r("mcap") * 4); // $50k .. $500M
  const price = (mcap / supply) * (0.97 + 0.06 * unit(`${key}:p:${hour}`));
  const totalLiq = mcap * (0.02 + r("liqr") * 0.25);
  const turnover = 0.05 + r("turn") * 4; // 24h volume / liquidity
  const avgTrade = 20 + r("avg") * 2500; // USD
  const buyShare = 0.5 + (unit(`${key}:bias:${bucket}`) - 0.5) * 0.5; // 0.25 .. 0.75
  const surge = r("surge") < 0.2 ? 2.5 + r("surgeX") * 4 : 0.5 + unit(`${key}:h1:${hour}`); // h1 vs average hour
  const nPairs = 1 + Math.floor(r("npairs") * 5);
  const weights = Array.from({ length: nPairs }, (_, i) => Math.exp(-i * 0.9) * (0.8 + 0.4 * r(`wt${i}`)));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const created = now - Math.floor((1 + r("age") * 700) * DAY);
  const baseToken = { address: def.evm ? getAddress(t) : t, name, symbol };

  return weights.map((w, i) => {
    const share = w / wsum;
    const dex = def.dexes[(hash32(`${key}:dex${i}`) + i) % def.dexes.length]!;
    const q = def.quotes[i === 0 ? 0 : hash32(`${key}:q${i}`) % def.quotes.length]!;
    const qPrice = q.coingeckoId ? priceAt(world, q.coingeckoId, now) : 1;
    const pairPrice = price * (1 + (r(`off${i}`) - 0.5) * 0.004); // pools differ by a few bps
    const liq = totalLiq * share;
    const v24 = liq * turnover * (0.8 + 0.4 * r(`v${i}`));
    const v6 = v24 * (0.18 + 0.14 * unit(`${key}:v6:${i}:${bucket}`));
    const v1 = (v24 / 24) * surge * (0.9 + 0.2 * r(`v1${i}`));
    const m5 = (v1 / 12) * (0.4 + 1.2 * unit(`${key}:m5:${i}:${Math.floor(now / 300_000)}`));
    const count = (v: number) => Math.max(0, Math.round(v / (avgTrade * (0.85 + 0.3 * r(`at${i}`)))));
    const split = (n: number, s: number) => {
      const buys = Math.round(n * s);
      return { buys, sells: n - buys };
    };
    const drift = (buyShare - 0.5) * 2; // -0.5 .. 0.5
    const pairAddr = pairAddress(def.evm, `${key}:pair${i}`);
    const noLiquidity = chain === "solana" && dex.id === "pumpfun";
    return {
      chainId: chain,
      dexId: dex.id,
      url: `https://dexscreener.com/${chain}/${def.evm ? pairAddr.toLowerCase() : pairAddr}`,
      pairAddress: pairAddr,
      ...(dex.labels ? { labels: dex.labels } : {}),
      baseToken,
      quoteToken: { address: q.address, name: q.name, symbol: q.symbol },
      priceNative: String(round(pairPrice / qPrice, 8)),
      priceUsd: String(round(pairPrice, 6)),
      txns: {
        m5: split(count(m5), buyShare),
        h1: split(count(v1), Math.min(0.95, Math.max(0.05, buyShare + (unit(`${key}:h1b:${hour}`) - 0.5) * 0.1))),
        h6: split(count(v6), buyShare),
        h24: split(count(v24), 0.5 + (buyShare - 0.5) * 0.8),
      },
      volume: { h24: round(v24, 8), h6: round(v6, 8), h1: round(v1, 8), m5: round(m5, 8) },
      priceChange: {
        m5: pct2((unit(`${key}:pm5:${Math.floor(now / 300_000)}`) - 0.5) * 2),
        h1: pct2(drift * 6 + (r(`ph1${i}`) - 0.5) * 3),
        h6: pct2(drift * 18 + (r(`ph6${i}`) - 0.5) * 6),
        h24: pct2(drift * 40 + (r(`ph24${i}`) - 0.5) * 12),
      },
      ...(noLiquidity ? {} : { liquidity: { usd: round(liq, 8), base: round(liq / 2 / pairPrice, 8), quote: round(liq / 2 / qPrice, 8) } }),
      fdv: Math.round(pairPrice * supply),
      marketCap: Math.round(pairPrice * supply * (0.6 + 0.4 * r("circ"))),
      pairCreatedAt: Math.min(now - HOUR, created + i * Math.floor(r(`pc${i}`) * 30) * DAY),
    };
  }).sort((a, b) => (b.liquidity?.usd ?? 0) - (a.liquidity?.usd ?? 0));
}

export const dexscreenerSim: SimProvider = {
  name: "dexscreener",
  envVar: "DEXSCREENER_BASE_URL",
  handle(req, world) {
    const m = /^\/token-pairs\/v1\/([^/]+)\/([^/]+)\/?$/.exec(req.path);
    if (!m) return null;
    const chain = m[1]!;
    const token = decodeURIComponent(m[2]!);
    const def = DEX_CHAINS[chain];
    if (!def) return { body: [] };
    const valid = def.evm ? /^0x[0-9a-fA-F]{40}$/.test(token) : /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(token);
    if (!valid || dexTokenUnlisted(world, chain, token)) return { body: [] };
    return { body: pairsFor(world, chain, token, req.now) };
  },
};
