/**
 * The simulator's market: a seeded, deterministic world that every simulated provider
 * renders in its own wire format, so prices agree across CoinGecko, Kraken, Coinbase,
 * Binance and the SDEX book the way they do in reality (within small venue offsets).
 *
 * Prices are geometric random walks generated hourly for HISTORY_DAYS days back from
 * the hour the world was created; "now" moves on: the current price follows a
 * minute-level walk from the latest hourly close.
 */

/** mulberry32: small, fast, good-enough seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal from a uniform PRNG (Box-Muller). */
export function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Stable 32-bit hash of a string (FNV-1a), for per-key deterministic data. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface AssetDef {
  id: string; // CoinGecko id
  symbol: string; // lower-case, CoinGecko style
  name: string;
  price: number; // USD price at "now" before the walk is applied
  supply: number; // circulating supply
  maxSupply?: number;
  vol: number; // daily volatility (fraction)
  stable?: boolean;
}

/** Universe of the simulator; large enough for top-50 breadth and top-250 movers. */
export const ASSETS: AssetDef[] = [
  { id: "bitcoin", symbol: "btc", name: "Bitcoin", price: 97000, supply: 19.8e6, maxSupply: 21e6, vol: 0.028 },
  { id: "ethereum", symbol: "eth", name: "Ethereum", price: 3400, supply: 120.4e6, vol: 0.035 },
  { id: "tether", symbol: "usdt", name: "Tether", price: 1, supply: 140e9, vol: 0.0004, stable: true },
  { id: "binancecoin", symbol: "bnb", name: "BNB", price: 640, supply: 145e6, vol: 0.03 },
  { id: "solana", symbol: "sol", name: "Solana", price: 190, supply: 480e6, vol: 0.045 },
  { id: "usd-coin", symbol: "usdc", name: "USDC", price: 1, supply: 42e9, vol: 0.0003, stable: true },
  { id: "ripple", symbol: "xrp", name: "XRP", price: 2.3, supply: 57e9, vol: 0.045 },
  { id: "dogecoin", symbol: "doge", name: "Dogecoin", price: 0.36, supply: 147e9, vol: 0.055 },
  { id: "cardano", symbol: "ada", name: "Cardano", price: 0.95, supply: 35e9, vol: 0.05 },
  { id: "tron", symbol: "trx", name: "TRON", price: 0.25, supply: 86e9, vol: 0.03 },
  { id: "avalanche-2", symbol: "avax", name: "Avalanche", price: 42, supply: 410e6, vol: 0.055 },
  { id: "chainlink", symbol: "link", name: "Chainlink", price: 23, supply: 627e6, vol: 0.05 },
  { id: "stellar", symbol: "xlm", name: "Stellar", price: 0.42, supply: 30.6e9, maxSupply: 50e9, vol: 0.05 },
  { id: "polkadot", symbol: "dot", name: "Polkadot", price: 8.1, supply: 1.52e9, vol: 0.05 },
  { id: "shiba-inu", symbol: "shib", name: "Shiba Inu", price: 0.000024, supply: 589e12, vol: 0.06 },
  { id: "the-open-network", symbol: "ton", name: "Toncoin", price: 5.8, supply: 2.55e9, vol: 0.04 },
  { id: "sui", symbol: "sui", name: "Sui", price: 4.2, supply: 2.9e9, vol: 0.065 },
  { id: "hedera-hashgraph", symbol: "hbar", name: "Hedera", price: 0.29, supply: 38e9, vol: 0.055 },
  { id: "bitcoin-cash", symbol: "bch", name: "Bitcoin Cash", price: 480, supply: 19.8e6, vol: 0.045 },
  { id: "litecoin", symbol: "ltc", name: "Litecoin", price: 105, supply: 75e6, vol: 0.045 },
  { id: "dai", symbol: "dai", name: "Dai", price: 1, supply: 5.3e9, vol: 0.0004, stable: true },
  { id: "uniswap", symbol: "uni", name: "Uniswap", price: 13.5, supply: 600e6, vol: 0.055 },
  { id: "near", symbol: "near", name: "NEAR Protocol", price: 5.4, supply: 1.2e9, vol: 0.06 },
  { id: "pepe", symbol: "pepe", name: "Pepe", price: 0.000019, supply: 420e12, vol: 0.075 },
  { id: "ethena-usde", symbol: "usde", name: "Ethena USDe", price: 1, supply: 5.9e9, vol: 0.0005, stable: true },
  { id: "aptos", symbol: "apt", name: "Aptos", price: 9.6, supply: 560e6, vol: 0.06 },
  { id: "internet-computer", symbol: "icp", name: "Internet Computer", price: 10.5, supply: 474e6, vol: 0.06 },
  { id: "monero", symbol: "xmr", name: "Monero", price: 195, supply: 18.4e6, vol: 0.04 },
  { id: "ethereum-classic", symbol: "etc", name: "Ethereum Classic", price: 27, supply: 150e6, vol: 0.05 },
  { id: "render-token", symbol: "render", name: "Render", price: 7.3, supply: 517e6, vol: 0.07 },
  { id: "mantle", symbol: "mnt", name: "Mantle", price: 1.1, supply: 3.3e9, vol: 0.055 },
  { id: "crypto-com-chain", symbol: "cro", name: "Cronos", price: 0.15, supply: 26.9e9, vol: 0.05 },
  { id: "aave", symbol: "aave", name: "Aave", price: 340, supply: 15e6, vol: 0.06 },
  { id: "filecoin", symbol: "fil", name: "Filecoin", price: 5.2, supply: 620e6, vol: 0.06 },
  { id: "arbitrum", symbol: "arb", name: "Arbitrum", price: 0.78, supply: 4.3e9, vol: 0.06 },
  { id: "cosmos", symbol: "atom", name: "Cosmos Hub", price: 6.8, supply: 390e6, vol: 0.055 },
  { id: "vechain", symbol: "vet", name: "VeChain", price: 0.047, supply: 81e9, vol: 0.06 },
  { id: "optimism", symbol: "op", name: "Optimism", price: 1.9, supply: 1.4e9, vol: 0.065 },
  { id: "injective-protocol", symbol: "inj", name: "Injective", price: 24, supply: 97e6, vol: 0.07 },
  { id: "algorand", symbol: "algo", name: "Algorand", price: 0.38, supply: 8.3e9, vol: 0.06 },
  { id: "first-digital-usd", symbol: "fdusd", name: "First Digital USD", price: 1, supply: 2.1e9, vol: 0.0005, stable: true },
  { id: "kaspa", symbol: "kas", name: "Kaspa", price: 0.12, supply: 25.5e9, vol: 0.06 },
  { id: "immutable-x", symbol: "imx", name: "Immutable", price: 1.4, supply: 1.7e9, vol: 0.065 },
  { id: "the-graph", symbol: "grt", name: "The Graph", price: 0.21, supply: 9.5e9, vol: 0.065 },
  { id: "theta-token", symbol: "theta", name: "Theta Network", price: 2.1, supply: 1e9, vol: 0.06 },
  { id: "fantom", symbol: "ftm", name: "Fantom", price: 0.72, supply: 2.8e9, vol: 0.07 },
  { id: "maker", symbol: "mkr", name: "Maker", price: 1650, supply: 880e3, vol: 0.055 },
  { id: "bonk", symbol: "bonk", name: "Bonk", price: 0.000031, supply: 77e12, vol: 0.08 },
  { id: "sei-network", symbol: "sei", name: "Sei", price: 0.45, supply: 4.3e9, vol: 0.07 },
  { id: "tezos", symbol: "xtz", name: "Tezos", price: 1.3, supply: 1e9, vol: 0.055 },
  { id: "paypal-usd", symbol: "pyusd", name: "PayPal USD", price: 1, supply: 500e6, vol: 0.0004, stable: true },
  { id: "flow", symbol: "flow", name: "Flow", price: 0.8, supply: 1.55e9, vol: 0.06 },
  { id: "the-sandbox", symbol: "sand", name: "The Sandbox", price: 0.62, supply: 2.4e9, vol: 0.065 },
  { id: "decentraland", symbol: "mana", name: "Decentraland", price: 0.55, supply: 1.9e9, vol: 0.065 },
  { id: "gala", symbol: "gala", name: "GALA", price: 0.041, supply: 38e9, vol: 0.07 },
  { id: "eos", symbol: "eos", name: "EOS", price: 0.82, supply: 1.5e9, vol: 0.055 },
  { id: "iota", symbol: "iota", name: "IOTA", price: 0.31, supply: 3.5e9, vol: 0.06 },
  { id: "neo", symbol: "neo", name: "NEO", price: 14.5, supply: 70e6, vol: 0.055 },
  { id: "quant-network", symbol: "qnt", name: "Quant", price: 110, supply: 14.5e6, vol: 0.055 },
  { id: "axie-infinity", symbol: "axs", name: "Axie Infinity", price: 6.9, supply: 150e6, vol: 0.065 },
  { id: "curve-dao-token", symbol: "crv", name: "Curve DAO", price: 0.95, supply: 1.25e9, vol: 0.07 },
  { id: "lido-dao", symbol: "ldo", name: "Lido DAO", price: 1.85, supply: 895e6, vol: 0.065 },
];

export const HISTORY_DAYS = 400;
const HOUR = 3_600_000;
const MINUTE = 60_000;

export interface AssetSeries {
  def: AssetDef;
  /** Hourly closes, oldest first; the last entry is the close of the origin hour. */
  hourly: number[];
}

export interface World {
  seed: number;
  /** Start of the hour the world was generated at (ms). */
  originHour: number;
  assets: Map<string, AssetSeries>;
  bySymbol: Map<string, AssetSeries>;
  /** Daily Fear & Greed values, oldest first; last = today. */
  fng: number[];
  rand: (key: string) => () => number;
}

/** Builds the deterministic world for `seed`, anchored at `now`. */
export function createWorld(seed: number, now = Date.now()): World {
  const originHour = Math.floor(now / HOUR) * HOUR;
  const hours = HISTORY_DAYS * 24;
  const assets = new Map<string, AssetSeries>();
  const bySymbol = new Map<string, AssetSeries>();
  for (const def of ASSETS) {
    const rand = prng(seed ^ hash32(def.id));
    const sigma = def.vol / Math.sqrt(24);
    // Walk backwards from the anchor price so "now" sits near the listed price.
    const series = new Array<number>(hours);
    let p = def.price;
    // A slow regime drift per asset keeps trends (and therefore backtests) interesting.
    const drift = (rand() - 0.5) * 0.004;
    for (let i = hours - 1; i >= 0; i--) {
      series[i] = p;
      const shock = def.stable ? (1 - p) * 0.3 + gaussian(rand) * sigma : gaussian(rand) * sigma - drift / 24;
      p = def.stable ? p + shock * p : p / Math.exp(shock);
    }
    const s: AssetSeries = { def, hourly: series };
    assets.set(def.id, s);
    bySymbol.set(def.symbol, s);
  }
  const frand = prng(seed ^ 0xf6e6);
  const fng: number[] = [];
  let v = 30 + frand() * 40;
  for (let d = 0; d < HISTORY_DAYS; d++) {
    v = Math.min(96, Math.max(4, v + gaussian(frand) * 6 + (50 - v) * 0.05));
    fng.push(Math.round(v));
  }
  return {
    seed,
    originHour,
    assets,
    bySymbol,
    fng,
    rand: (key: string) => prng(seed ^ hash32(key)),
  };
}

/** Hourly close at absolute hour index (ms timestamp floored to the hour). */
function hourlyAt(s: AssetSeries, world: World, hourMs: number): number {
  const idx = s.hourly.length - 1 - Math.round((world.originHour - hourMs) / HOUR);
  if (idx >= s.hourly.length) return s.hourly[s.hourly.length - 1]!;
  return s.hourly[Math.max(0, idx)]!;
}

const minuteWalks = new WeakMap<World, Map<string, { rand: () => number; prices: number[] }>>();

/** Price of an asset at time `t` (ms): hourly history, then a minute walk after the origin. */
export function priceAt(world: World, id: string, t: number): number {
  const s = world.assets.get(id);
  if (!s) throw new Error(`unknown sim asset ${id}`);
  if (t <= world.originHour) return hourlyAt(s, world, Math.floor(t / HOUR) * HOUR);
  // After the origin: deterministic minute-level walk, so repeated reads agree.
  const minutes = Math.min(Math.floor((t - world.originHour) / MINUTE), 60 * 24 * 7);
  let walk = minuteWalks.get(world)?.get(id);
  if (!walk) {
    walk = { rand: prng(world.seed ^ hash32(`${id}:minutes`)), prices: [s.hourly[s.hourly.length - 1]!] };
    if (!minuteWalks.has(world)) minuteWalks.set(world, new Map());
    minuteWalks.get(world)!.set(id, walk);
  }
  const sigma = s.def.vol / Math.sqrt(24 * 60);
  while (walk.prices.length <= minutes) {
    const last = walk.prices[walk.prices.length - 1]!;
    walk.prices.push(s.def.stable ? 1 + (last - 1) * 0.7 + gaussian(walk.rand) * 0.0001 : last * Math.exp(gaussian(walk.rand) * sigma));
  }
  return walk.prices[minutes]!;
}

/** Percent change over the last 24 hours at time `t`. */
export function change24hPct(world: World, id: string, t: number): number {
  const now = priceAt(world, id, t);
  const then = priceAt(world, id, t - 24 * HOUR);
  return (now / then - 1) * 100;
}

/** Hourly points [ms, price] covering [from, to]. */
export function hourlySeries(world: World, id: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let h = Math.ceil(from / HOUR) * HOUR; h <= to; h += HOUR) out.push([h, priceAt(world, id, h)]);
  return out;
}

/** Daily closes [ms at 00:00 UTC, price] for the last `days` days before `t`. */
export function dailySeries(world: World, id: string, days: number, t: number): Array<[number, number]> {
  const DAY = 24 * HOUR;
  const today = Math.floor(t / DAY) * DAY;
  const out: Array<[number, number]> = [];
  for (let d = days; d >= 1; d--) {
    const ts = today - d * DAY + DAY; // the close of day (today - d) is at the next midnight
    out.push([ts, priceAt(world, id, Math.min(ts, t))]);
  }
  return out;
}

/** Fear & Greed value for a day offset (0 = today, 1 = yesterday ...). */
export function fngAt(world: World, daysAgo: number): number {
  const idx = world.fng.length - 1 - daysAgo;
  return world.fng[Math.max(0, idx)]!;
}

/** 24h traded volume in USD, deterministic per asset and hour. */
export function volume24hUsd(world: World, id: string, t: number): number {
  const s = world.assets.get(id)!;
  const mcap = priceAt(world, id, t) * s.def.supply;
  const r = prng(world.seed ^ hash32(`${id}:vol:${Math.floor(t / HOUR)}`))();
  return mcap * (s.def.stable ? 0.3 : 0.02 + r * 0.08);
}
