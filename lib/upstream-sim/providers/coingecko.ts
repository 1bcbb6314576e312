/**
 * Simulated CoinGecko v3: simple/price, coins/markets, coins/{id}/market_chart and
 * global, in the real wire format, including the keyless tier's refusals (more than
 * 365 days of history, `interval=hourly`) and, with a budget set, its 429 to bursts.
 */
import { change24hPct, priceAt, volume24hUsd, type World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimResponse } from "@/lib/upstream-sim/provider";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function round(x: number, sig = 8): number {
  return Number(x.toPrecision(sig));
}

function marketCap(world: World, id: string, t: number): number {
  return priceAt(world, id, t) * world.assets.get(id)!.def.supply;
}

function rankedIds(world: World, t: number): string[] {
  return [...world.assets.keys()].sort((a, b) => marketCap(world, b, t) - marketCap(world, a, t));
}

function cgError(status: number, code: number, message: string): SimResponse {
  return { status, body: { error: { status: { error_code: code, error_message: message } } } };
}

function simplePrice(q: URLSearchParams, world: World, now: number): SimResponse {
  const ids = (q.get("ids") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const vs = (q.get("vs_currencies") ?? "usd").split(",").map((s) => s.trim());
  const body: Record<string, Record<string, number>> = {};
  const btc = priceAt(world, "bitcoin", now);
  for (const id of ids) {
    if (!world.assets.has(id)) continue;
    const usd = priceAt(world, id, now);
    const e: Record<string, number> = {};
    for (const c of vs) {
      if (c === "usd") e.usd = round(usd);
      if (c === "btc") e.btc = round(usd / btc);
      if (q.get("include_market_cap") === "true") e[`${c}_market_cap`] = round(c === "usd" ? marketCap(world, id, now) : marketCap(world, id, now) / btc, 12);
      if (q.get("include_24hr_vol") === "true") e[`${c}_24h_vol`] = round(c === "usd" ? volume24hUsd(world, id, now) : volume24hUsd(world, id, now) / btc, 12);
      if (q.get("include_24hr_change") === "true") e[`${c}_24h_change`] = round(change24hPct(world, id, now) - (c === "btc" ? change24hPct(world, "bitcoin", now) : 0));
    }
    if (q.get("include_last_updated_at") === "true") e.last_updated_at = Math.floor(now / 1000) - 20;
    body[id] = e;
  }
  return { body };
}

function markets(q: URLSearchParams, world: World, now: number): SimResponse {
  const vs = q.get("vs_currency") ?? "usd";
  if (vs !== "usd" && vs !== "btc") return cgError(400, 400, "invalid vs_currency");
  const perPage = Math.min(Number(q.get("per_page") ?? "100") || 100, 250);
  const page = Math.max(1, Number(q.get("page") ?? "1") || 1);
  const ranked = rankedIds(world, now);
  const wanted = q.get("ids")?.split(",").map((s) => s.trim()).filter(Boolean);
  const ids = wanted ? ranked.filter((id) => wanted.includes(id)) : ranked;
  const slice = ids.slice((page - 1) * perPage, page * perPage);
  const div = vs === "btc" ? priceAt(world, "bitcoin", now) : 1;
  const rows = slice.map((id) => {
    const def = world.assets.get(id)!.def;
    const p = priceAt(world, id, now);
    const chg = change24hPct(world, id, now);
    const p24 = priceAt(world, id, now - DAY);
    let hi = p;
    let lo = p;
    for (let t = now - DAY; t < now; t += HOUR) {
      const x = priceAt(world, id, t);
      hi = Math.max(hi, x);
      lo = Math.min(lo, x);
    }
    const mcap = p * def.supply;
    return {
      id,
      symbol: def.symbol,
      name: def.name,
      image: `https://coin-images.coingecko.com/coins/images/1/large/${def.symbol}.png`,
      current_price: round(p / div),
      market_cap: Math.round(mcap / div),
      market_cap_rank: ranked.indexOf(id) + 1,
      fully_diluted_valuation: def.maxSupply ? Math.round((p * def.maxSupply) / div) : null,
      total_volume: Math.round(volume24hUsd(world, id, now) / div),
      high_24h: round(hi / div),
      low_24h: round(lo / div),
      price_change_24h: round((p - p24) / div),
      price_change_percentage_24h: round(chg, 6),
      market_cap_change_24h: Math.round((mcap - p24 * def.supply) / div),
      market_cap_change_percentage_24h: round(chg, 6),
      circulating_supply: def.supply,
      total_supply: def.maxSupply ?? def.supply,
      max_supply: def.maxSupply ?? null,
      ath: round((p * 1.8) / div),
      ath_change_percentage: -44.4,
      ath_date: "2021-11-10T14:24:11.849Z",
      atl: round((p * 0.05) / div),
      atl_change_percentage: 1900,
      atl_date: "2015-10-20T00:00:00.000Z",
      roi: null,
      last_updated: new Date(now - 20_000).toISOString(),
      ...(q.get("price_change_percentage")?.includes("24h") ? { price_change_percentage_24h_in_currency: round(chg, 6) } : {}),
    };
  });
  return { body: rows };
}

function marketChart(id: string, q: URLSearchParams, world: World, now: number): SimResponse {
  if (!world.assets.has(id)) return cgError(404, 404, "coin not found");
  const interval = q.get("interval");
  if (interval === "hourly") {
    return cgError(401, 10005, "interval=hourly is exclusive to Enterprise plan customers");
  }
  const daysRaw = q.get("days") ?? "1";
  const days = daysRaw === "max" ? 10_000 : Number(daysRaw);
  if (!Number.isFinite(days) || days <= 0) return cgError(400, 400, "invalid days");
  if (days > 365) {
    return cgError(401, 10012, "Your request exceeds the allowed time range. Public API users are limited to querying historical data within the past 365 days.");
  }
  const points: Array<[number, number]> = [];
  const from = now - days * DAY;
  if (interval === "daily" || days > 90) {
    for (let t = Math.ceil(from / DAY) * DAY; t <= now; t += DAY) points.push([t, priceAt(world, id, t)]);
    points.push([now, priceAt(world, id, now)]);
  } else if (days <= 1) {
    for (let t = Math.ceil(from / 300_000) * 300_000; t <= now; t += 300_000) points.push([t, priceAt(world, id, t)]);
  } else {
    for (let t = Math.ceil(from / HOUR) * HOUR; t <= now; t += HOUR) points.push([t, priceAt(world, id, t)]);
    points.push([now, priceAt(world, id, now)]);
  }
  const supply = world.assets.get(id)!.def.supply;
  return {
    body: {
      prices: points.map(([t, p]) => [t, round(p)]),
      market_caps: points.map(([t, p]) => [t, Math.round(p * supply)]),
      total_volumes: points.map(([t]) => [t, Math.round(volume24hUsd(world, id, t))]),
    },
  };
}

function global(world: World, now: number): SimResponse {
  // The simulated universe stands for ~92% of the whole market.
  const ids = [...world.assets.keys()];
  const caps = ids.map((id) => marketCap(world, id, now));
  const caps24 = ids.map((id) => priceAt(world, id, now - DAY) * world.assets.get(id)!.def.supply);
  const total = caps.reduce((a, b) => a + b, 0) / 0.92;
  const total24 = caps24.reduce((a, b) => a + b, 0) / 0.92;
  const vol = ids.reduce((a, id) => a + volume24hUsd(world, id, now), 0) / 0.9;
  const pct: Record<string, number> = {};
  for (const [i, id] of ids.entries()) {
    const sym = world.assets.get(id)!.def.symbol;
    pct[sym] = round((caps[i]! / total) * 100, 10);
  }
  const top = Object.fromEntries(Object.entries(pct).sort(([, a], [, b]) => b - a).slice(0, 10));
  const btc = priceAt(world, "bitcoin", now);
  const eth = priceAt(world, "ethereum", now);
  return {
    body: {
      data: {
        active_cryptocurrencies: 17_512,
        upcoming_icos: 0,
        ongoing_icos: 49,
        ended_icos: 3376,
        markets: 1_301,
        total_market_cap: { usd: Math.round(total), btc: round(total / btc), eth: round(total / eth) },
        total_volume: { usd: Math.round(vol), btc: round(vol / btc), eth: round(vol / eth) },
        market_cap_percentage: top,
        market_cap_change_percentage_24h_usd: round((total / total24 - 1) * 100, 10),
        updated_at: Math.floor(now / 1000) - 30,
      },
    },
  };
}

/**
 * The keyless tier's budget as CoinGecko states it (5 to 15 calls a minute, depending on
 * global traffic), at its low end: `sim.setRateLimit("coingecko", COINGECKO_KEYLESS_BUDGET)`.
 */
export const COINGECKO_KEYLESS_BUDGET = { limit: 5, windowMs: 60_000 } as const;

export const coingeckoSim: SimProvider = {
  name: "coingecko",
  envVar: "COINGECKO_BASE_URL",
  rateLimitedBody: {
    status: {
      error_code: 429,
      error_message: "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.",
    },
  },
  handle(req, world) {
    const p = req.path.replace(/\/+$/, "");
    if (p === "/api/v3/simple/price") return simplePrice(req.query, world, req.now);
    if (p === "/api/v3/coins/markets") return markets(req.query, world, req.now);
    if (p === "/api/v3/global") return global(world, req.now);
    const chart = p.match(/^\/api\/v3\/coins\/([^/]+)\/market_chart$/);
    if (chart) return marketChart(decodeURIComponent(chart[1]!), req.query, world, req.now);
    if (p === "/api/v3/ping") return { body: { gecko_says: "(V3) To the Moon!" } };
    return null;
  },
};
