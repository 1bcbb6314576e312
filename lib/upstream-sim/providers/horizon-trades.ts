/**
 * Simulated SDEX XLM/USDC trades and the trade aggregations computed from them, so
 * `/trades` and `/trade_aggregations` agree with each other and with the world price.
 * Trades are generated per minute (deterministic per world and minute), land in the
 * next ledger to close, and carry that ledger's close time.
 */
import { gaussian, HISTORY_DAYS, priceAt, type World } from "@/lib/upstream-sim/world";
import type { SimRequest, SimResponse } from "@/lib/upstream-sim/provider";
import {
  accountId,
  amount7,
  badRequest,
  closeTime,
  hex64,
  HORIZON_URL,
  horizonTime,
  isXlmUsdc,
  parseLimit,
  parseOrder,
  rational,
  sequenceAt,
  toid,
  USDC_ISSUER,
} from "@/lib/upstream-sim/providers/horizon-chain";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The constant-product XLM/USDC pool every liquidity_pool trade goes through. */
const XLM_USDC_POOL_ID = hex64("pool:native:USDC");
const RESOLUTIONS = [60_000, 300_000, 900_000, 3_600_000, 86_400_000, 604_800_000];

export interface SimTrade {
  seq: number;
  tx: number;
  time: number;
  type: "orderbook" | "liquidity_pool";
  /** XLM. */
  base: number;
  n: number;
  d: number;
  baseIsSeller: boolean;
}

/** Trades generated in minute `m` (absolute minute index), oldest first. */
function tradesOfMinute(world: World, m: number): SimTrade[] {
  const r = world.rand(`horizon:trades:${m}`);
  const u = r();
  const count = u < 0.3 ? 0 : u < 0.65 ? 1 : u < 0.85 ? 2 : u < 0.95 ? 3 : 5;
  const out: SimTrade[] = [];
  for (let j = 0; j < count; j++) {
    const at = m * MINUTE + Math.floor(r() * MINUTE);
    const seq = sequenceAt(world, at) + 1; // included in the next ledger to close
    const time = closeTime(world, seq);
    const price = priceAt(world, "stellar", time) * (1 + gaussian(r) * 0.0009);
    const { n, d } = rational(price);
    const base = Math.min(400_000, Math.max(1, Math.exp(Math.log(1_200) + gaussian(r) * 1.4)));
    // Two minutes can feed one ledger: the minute's parity keeps tx indexes unique.
    const tx = (m % 2) * 16 + j + 1;
    out.push({
      seq,
      tx,
      time,
      type: r() < 0.22 ? "liquidity_pool" : "orderbook",
      base: Number(base.toFixed(7)),
      n,
      d,
      baseIsSeller: r() < 0.5,
    });
  }
  return out;
}

/** Every trade with close time in [from, to), ascending by operation id. */
export function tradesBetween(world: World, from: number, to: number): SimTrade[] {
  const out: SimTrade[] = [];
  // A trade generated late in a minute can close in the next ledger (≤ 6 s later).
  for (let m = Math.floor((from - 6_000) / MINUTE); m * MINUTE < to; m++) {
    for (const t of tradesOfMinute(world, m)) if (t.time >= from && t.time < to) out.push(t);
  }
  return out.sort(byOperation);
}

/** Horizon's paging order: ledger, then transaction index (operation ids ascending). */
function byOperation(a: SimTrade, b: SimTrade): number {
  return a.seq - b.seq || a.tx - b.tx;
}

/** Operation id (TOID) of a trade; its paging token is `${opId}-0`. */
export function opIdOf(t: SimTrade): bigint {
  return BigInt(toid(t.seq, t.tx, 1));
}

/** USDC received for a trade: base · n / d, on Horizon's 7-decimal grid. */
export function counterOf(t: SimTrade): number {
  return Number(((t.base * t.n) / t.d).toFixed(7));
}

function tradeRecord(t: SimTrade): Record<string, unknown> {
  const opId = opIdOf(t);
  const op = opId.toString();
  const id = `${op}-0`;
  const pool = t.type === "liquidity_pool";
  const baseParty = pool
    ? { base_liquidity_pool_id: XLM_USDC_POOL_ID, liquidity_pool_fee_bp: 30 }
    : { base_offer_id: String(1_500_000_000 + Number(opId % 1_000_000_007n)), base_account: accountId(`base:${op}`) };
  return {
    _links: {
      self: { href: "" },
      base: { href: `${HORIZON_URL}/${pool ? "liquidity_pools" : "accounts"}/${pool ? baseParty.base_liquidity_pool_id : baseParty.base_account}` },
      counter: { href: `${HORIZON_URL}/accounts/${accountId(`counter:${op}`)}` },
      operation: { href: `${HORIZON_URL}/operations/${op}` },
    },
    id,
    paging_token: id,
    ledger_close_time: horizonTime(t.time),
    trade_type: t.type,
    ...baseParty,
    base_amount: amount7(t.base),
    base_asset_type: "native",
    counter_offer_id: String(4_611_686_018_427_387_904n + opId),
    counter_account: accountId(`counter:${op}`),
    counter_amount: amount7(counterOf(t)),
    counter_asset_type: "credit_alphanum4",
    counter_asset_code: "USDC",
    counter_asset_issuer: USDC_ISSUER,
    base_is_seller: t.baseIsSeller,
    price: { n: String(t.n), d: String(t.d) },
  };
}

function page(path: string, q: URLSearchParams, records: unknown[]): Record<string, unknown> {
  const self = `${HORIZON_URL}${path}?${q.toString()}`;
  return { _links: { self: { href: self }, next: { href: self }, prev: { href: self } }, _embedded: { records } };
}

/** GET /trades for XLM/USDC (other pairs have no simulated trades). */
export function tradesRoute(req: SimRequest, world: World): SimResponse {
  const q = req.query;
  const limit = parseLimit(q, 10);
  if (typeof limit === "string") return badRequest("limit", limit);
  const order = parseOrder(q);
  if (!order) return badRequest("order", "order: invalid value, expected asc or desc");
  if (!isXlmUsdc(q, "base", "counter")) return { body: page(req.path, q, []) };
  const latest = closeTime(world, sequenceAt(world, req.now)) + 1;
  const cursorText = q.get("cursor");
  const cursor = cursorText && /^\d+-\d+$/.test(cursorText) ? BigInt(cursorText.split("-")[0]!) : null;
  const horizonStart = latest - 30 * DAY; // history retention of the simulated Horizon

  let picked: SimTrade[] = [];
  if (order === "desc") {
    for (let w = 2 * 3_600_000; ; w *= 2) {
      const from = Math.max(horizonStart, latest - w);
      const all = tradesBetween(world, from, latest).filter((t) => cursor === null || opIdOf(t) < cursor);
      if (all.length >= limit || from === horizonStart) {
        picked = all.reverse().slice(0, limit);
        break;
      }
    }
  } else {
    const start = cursor === null ? horizonStart : Math.max(horizonStart, closeTime(world, Number(cursor >> 32n)));
    for (let from = start; from < latest && picked.length < limit; from += 6 * 3_600_000) {
      const chunk = tradesBetween(world, from, Math.min(latest, from + 6 * 3_600_000)).filter((t) => cursor === null || opIdOf(t) > cursor);
      picked.push(...chunk);
    }
    picked = picked.slice(0, limit);
  }
  return { body: page(req.path, q, picked.map(tradeRecord)) };
}

function aggRecord(start: number, trades: SimTrade[]): Record<string, unknown> {
  let base = 0;
  let counter = 0;
  let hi = trades[0]!;
  let lo = trades[0]!;
  for (const t of trades) {
    base += t.base;
    counter += counterOf(t);
    if (t.n / t.d > hi.n / hi.d) hi = t;
    if (t.n / t.d < lo.n / lo.d) lo = t;
  }
  const first = trades[0]!;
  const last = trades[trades.length - 1]!;
  // Trade aggregations print their rationals with upper-case keys (Go's xdr.Price).
  const r = (t: SimTrade) => ({ N: t.n, D: t.d });
  return {
    timestamp: String(start),
    trade_count: String(trades.length),
    base_volume: amount7(base),
    counter_volume: amount7(counter),
    avg: amount7(counter / base),
    high: amount7(hi.n / hi.d),
    high_r: r(hi),
    low: amount7(lo.n / lo.d),
    low_r: r(lo),
    open: amount7(first.n / first.d),
    open_r: r(first),
    close: amount7(last.n / last.d),
    close_r: r(last),
  };
}

function parseMs(q: URLSearchParams, name: string): number | null | "bad" {
  const raw = q.get(name);
  if (raw === null || raw === "") return null;
  return /^\d+$/.test(raw) ? Number(raw) : "bad";
}

/**
 * GET /trade_aggregations: validates resolution and offset like Horizon, rounds
 * start_time up and end_time down to the resolution (after the offset), and returns
 * only non-empty buckets.
 */
export function tradeAggregationsRoute(req: SimRequest, world: World): SimResponse {
  const q = req.query;
  const resRaw = q.get("resolution");
  if (resRaw === null || resRaw === "") return badRequest("resolution", "resolution is required");
  const res = Number(resRaw);
  if (!RESOLUTIONS.includes(res)) return badRequest("resolution", `resolution is invalid; allowed values: ${RESOLUTIONS.join(", ")}`);
  const offRaw = parseMs(q, "offset");
  if (offRaw === "bad") return badRequest("offset", "offset is not a valid number");
  const offset = offRaw ?? 0;
  if (offset !== 0) {
    if (res <= 3_600_000) return badRequest("offset", "offset is only allowed for resolutions greater than 1 hour");
    if (offset % 3_600_000 !== 0) return badRequest("offset", "offset must be a multiple of an hour");
    if (offset >= res || offset >= DAY) return badRequest("offset", "offset must be less than the resolution and less than 24 hours");
  }
  const s = parseMs(q, "start_time");
  const e = parseMs(q, "end_time");
  if (s === "bad") return badRequest("start_time", "start_time is not a valid timestamp");
  if (e === "bad") return badRequest("end_time", "end_time is not a valid timestamp");
  const limit = parseLimit(q, 10);
  if (typeof limit === "string") return badRequest("limit", limit);
  const order = parseOrder(q);
  if (!order) return badRequest("order", "order: invalid value, expected asc or desc");
  const startRaw = s ?? 0;
  const endRaw = e ?? req.now + res;
  if (endRaw < startRaw) return badRequest("end_time", "end_time must be after start_time");
  if (!isXlmUsdc(q, "base", "counter")) return { body: page(req.path, q, []) };

  const start = startRaw < offset ? offset : Math.ceil((startRaw - offset) / res) * res + offset;
  const end = Math.floor((endRaw - offset) / res) * res + offset;
  const latest = closeTime(world, sequenceAt(world, req.now)) + 1;
  // Nothing exists before the simulated history or after the last closed ledger.
  const lo = Math.max(start, Math.floor((world.originHour - HISTORY_DAYS * DAY - offset) / res) * res + offset);
  const hi = Math.min(end, Math.floor((latest - offset) / res) * res + offset + res);
  const records: Array<Record<string, unknown>> = [];
  const bucketAt = (b: number) => {
    const trades = tradesBetween(world, b, Math.min(b + res, latest));
    if (trades.length) records.push(aggRecord(b, trades));
  };
  if (order === "asc") for (let b = lo; b < hi && records.length < limit; b += res) bucketAt(b);
  else for (let b = hi - res; b >= lo && records.length < limit; b -= res) bucketAt(b);
  return { body: page(req.path, q, records) };
}
