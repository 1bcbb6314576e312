/**
 * Simulated Polymarket Gamma `/markets`: ~30 active markets plus a few closed ones, with
 * realistic questions, 24h/total volume, liquidity, end dates and implied odds that
 * drift hour by hour. As on the wire, `outcomes`, `outcomePrices` and `clobTokenIds` are
 * JSON-encoded strings, `volume`/`liquidity` are strings and the `*Num` fields numbers.
 * Two thin markets have no `volume24hr` yet and one has no prices yet.
 */
import { hash32, type World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimResponse } from "@/lib/upstream-sim/provider";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Template {
  q: string;
  outcomes?: [string, string];
  closed?: boolean;
  /** Thin markets: no 24h volume reported, or no prices yet. */
  thin?: "no_volume" | "no_prices";
}

const TEMPLATES: Template[] = [
  { q: "Will the Fed cut interest rates at the next FOMC meeting?" },
  { q: "Will Bitcoin reach $150,000 by December 31?" },
  { q: "Will Ethereum hit $5,000 this year?" },
  { q: "Will Solana flip Ethereum in market cap this year?" },
  { q: "US recession in 2026?" },
  { q: "Will the US government shut down before the funding deadline?" },
  { q: "Will OpenAI release GPT-6 this year?" },
  { q: "Lakers vs. Celtics", outcomes: ["Lakers", "Celtics"] },
  { q: "Will CPI inflation come in above 3.0% year over year in the next report?" },
  { q: "Will an XRP spot ETF be approved this year?" },
  { q: "Will a Solana spot ETF be approved by June 30?" },
  { q: "Will Tesla deliver more than 500k vehicles this quarter?" },
  { q: "Will the S&P 500 close the year above 6,500?" },
  { q: "Will gold trade above $3,000/oz at year end?" },
  { q: "Will Apple release a foldable iPhone this year?" },
  { q: "Real Madrid vs. Barcelona", outcomes: ["Real Madrid", "Barcelona"] },
  { q: "Will the Kansas City Chiefs win the Super Bowl?" },
  { q: "Will the ECB cut rates at its next meeting?" },
  { q: "Will Russia and Ukraine agree to a ceasefire this year?" },
  { q: "Will Bitcoin dominance be above 60% at month end?" },
  { q: "Will the 10-year Treasury yield close above 4.5% this month?" },
  { q: "NBA Finals: Over 5.5 games?", outcomes: ["Over", "Under"] },
  { q: "Will Nvidia be the largest company in the world by market cap at year end?" },
  { q: "Will a top-5 stablecoin depeg below $0.98 this year?" },
  { q: "Will Base launch a network token this year?" },
  { q: "Will SpaceX Starship reach orbit on its next flight?" },
  { q: "Will average Ethereum gas be below 5 gwei this month?" },
  { q: "Will the UK hold a general election this year?" },
  { q: "Will Argentina's monthly inflation fall below 2%?", thin: "no_volume" },
  { q: "Will a new country adopt Bitcoin as legal tender this year?", thin: "no_volume" },
  { q: "Will the Ethereum Glamsterdam upgrade ship this year?", thin: "no_prices" },
  { q: "Will Bitcoin close above $100k on election day?", closed: true },
  { q: "Will the Fed hold rates in March?", closed: true },
  { q: "Will Dogecoin reach $1 by the end of the quarter?", closed: true },
];

const unit = (s: string) => hash32(s) / 4294967296;
const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
const hex64 = (key: string) => Array.from({ length: 8 }, (_, i) => hash32(`${key}:${i}`).toString(16).padStart(8, "0")).join("");
const decimalId = (key: string, digits: number) =>
  Array.from({ length: Math.ceil(digits / 9) }, (_, i) => String(hash32(`${key}:${i}`) % 1_000_000_000).padStart(9, "0")).join("").slice(0, digits).replace(/^0/, "1");

/** Yes-probability of market `i` at hour `h`: a per-market level plus a slow drift. */
function yesProbability(world: World, i: number, h: number): number {
  const k = `${world.seed}:pm:${i}`;
  const level = (unit(`${k}:level`) - 0.5) * 6; // logit in -3..3: 5%..95%
  const drift = 0.35 * Math.sin(h / (11 + 13 * unit(`${k}:period`)) + unit(`${k}:phase`) * 6.28) + 0.08 * (unit(`${k}:h:${h}`) - 0.5);
  const p = 1 / (1 + Math.exp(-(level + drift)));
  return Math.min(0.995, Math.max(0.005, p));
}

function market(world: World, i: number, now: number) {
  const t = TEMPLATES[i]!;
  const k = `${world.seed}:pm:${i}`;
  const h = Math.floor(now / HOUR);
  const slug = slugify(t.q);
  // Thin markets trade a few hundred dollars a day; the rest $20k..$8M.
  const vol24 = (t.thin ? 10 ** (2.5 + unit(`${k}:vol`)) : 10 ** (4.3 + unit(`${k}:vol`) * 2.6)) * (0.8 + 0.4 * unit(`${k}:vol:${h}`));
  const liquidity = t.thin ? 200 + unit(`${k}:liq`) * 2000 : 10 ** (3.7 + unit(`${k}:liq`) * 2.6);
  const volumeTotal = vol24 * (8 + unit(`${k}:tot`) * 60);
  const day0 = Math.floor(world.originHour / DAY) * DAY;
  const endDate = t.closed ? day0 - Math.floor(2 + unit(`${k}:end`) * 60) * DAY : day0 + Math.floor(2 + unit(`${k}:end`) * 300) * DAY + 12 * HOUR;
  const startDate = endDate - Math.floor(30 + unit(`${k}:start`) * 200) * DAY;
  const yes = t.closed ? (unit(`${k}:res`) < 0.5 ? 1 : 0) : yesProbability(world, i, h);
  const yesStr = yes.toFixed(4);
  // Mid prices of the two books: they sum to 1 give or take a tick.
  const skew = [0, 0, 0.001, -0.0005][hash32(`${k}:skew:${h}`) % 4]!;
  const noStr = Math.min(1, Math.max(0, 1 - Number(yesStr) + skew)).toFixed(4);
  const outcomes = t.outcomes ?? ["Yes", "No"];
  const tokenIds = [decimalId(`${k}:tok0`, 77), decimalId(`${k}:tok1`, 77)];
  const eventSlug = slug.replace(/^will-/, "");
  const spread = Math.max(0.001, Math.round((0.001 + 0.02 * unit(`${k}:spread`)) * 1000) / 1000);
  return {
    id: String(500_000 + (hash32(`${k}:id`) % 200_000)),
    question: t.q,
    conditionId: `0x${hex64(`${k}:cond`)}`,
    slug,
    endDate: new Date(endDate).toISOString(),
    startDate: new Date(startDate).toISOString(),
    endDateIso: new Date(endDate).toISOString().slice(0, 10),
    image: `https://polymarket-upload.s3.us-east-2.amazonaws.com/${slug}.png`,
    icon: `https://polymarket-upload.s3.us-east-2.amazonaws.com/${slug}.png`,
    description: `This market will resolve to "${outcomes[0]}" if the event in the title happens by ${new Date(endDate).toISOString().slice(0, 10)} (12:00 PM ET) according to the resolution source. Otherwise, it will resolve to "${outcomes[1]}".`,
    outcomes: JSON.stringify(outcomes),
    ...(t.thin === "no_prices" ? {} : { outcomePrices: JSON.stringify([yesStr, noStr]) }),
    volume: volumeTotal.toFixed(6),
    liquidity: liquidity.toFixed(4),
    active: true,
    closed: Boolean(t.closed),
    volumeNum: Math.round(volumeTotal * 1e4) / 1e4,
    liquidityNum: Math.round(liquidity * 1e4) / 1e4,
    ...(t.thin === "no_volume" || t.closed ? {} : { volume24hr: Math.round(vol24 * 1e4) / 1e4, volume1wk: Math.round(vol24 * 6.5 * 1e4) / 1e4 }),
    clobTokenIds: JSON.stringify(tokenIds),
    ...(t.thin === "no_prices" || t.closed
      ? {}
      : {
          lastTradePrice: Number(yesStr),
          bestBid: Math.max(0, Math.round((Number(yesStr) - spread / 2) * 1000) / 1000),
          bestAsk: Math.min(1, Math.round((Number(yesStr) + spread / 2) * 1000) / 1000),
          spread,
          oneDayPriceChange: Math.round((yes - yesProbability(world, i, h - 24)) * 1e4) / 1e4,
        }),
    enableOrderBook: true,
    events: [{ id: String(20_000 + (hash32(`${k}:ev`) % 30_000)), slug: eventSlug, title: t.q.replace(/\?$/, "") }],
  };
}

type SimMarket = ReturnType<typeof market>;
const SORTABLE = new Set(["volume24hr", "volume1wk", "volumeNum", "liquidityNum", "endDate", "startDate", "volume", "liquidity"]);

function sortValue(m: SimMarket, key: string): number | null {
  const v = (m as Record<string, unknown>)[key];
  if (v === undefined || v === null) return null;
  if (key === "endDate" || key === "startDate") return Date.parse(String(v));
  return Number(v);
}

function markets(q: URLSearchParams, world: World, now: number): SimResponse {
  const limitRaw = q.get("limit");
  const offsetRaw = q.get("offset");
  if ((limitRaw && !/^\d+$/.test(limitRaw)) || (offsetRaw && !/^\d+$/.test(offsetRaw))) {
    return { status: 422, body: { type: "validation error", error: "limit and offset must be non-negative integers" } };
  }
  let list = TEMPLATES.map((_, i) => market(world, i, now));
  const active = q.get("active");
  const closed = q.get("closed");
  if (active !== null) list = list.filter((m) => m.active === (active === "true"));
  if (closed !== null) list = list.filter((m) => m.closed === (closed === "true"));
  const order = q.get("order");
  if (order && SORTABLE.has(order)) {
    const asc = q.get("ascending") === "true";
    list.sort((a, b) => {
      const x = sortValue(a, order);
      const y = sortValue(b, order);
      if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1; // unknown values last
      return asc ? x - y : y - x;
    });
  }
  const offset = Number(offsetRaw ?? 0);
  const limit = Math.min(Number(limitRaw ?? 20), 500);
  return { body: list.slice(offset, offset + limit) };
}

export const polymarketSim: SimProvider = {
  name: "polymarket",
  envVar: "POLYMARKET_BASE_URL",
  handle(req, world) {
    if (req.path !== "/markets" && req.path !== "/markets/") return null;
    return markets(req.query, world, req.now);
  },
};
