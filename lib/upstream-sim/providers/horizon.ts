/**
 * Simulated Stellar Horizon: `/order_book`, `/trades`, `/trade_aggregations`,
 * `/ledgers` and `/fee_stats` in the real wire format, plus transaction submission and
 * lookup (horizon-submit.ts). The XLM/USDC book sits around
 * the world's XLM price with an SDEX-typical spread (0.05-0.4 %) and keeps Horizon's
 * unit quirk: a bid's `amount` is USDC, an ask's `amount` is XLM. Everything is
 * deterministic per world and ledger, and a new ledger closes every ~5.5 s.
 */
import { gaussian, priceAt, type World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimRequest, SimResponse } from "@/lib/upstream-sim/provider";
import {
  amount7,
  badRequest,
  baseSequence,
  closeTime,
  hex64,
  HORIZON_URL,
  horizonTime,
  isXlmUsdc,
  parseOrder,
  rational,
  sequenceAt,
  USDC_ISSUER,
} from "@/lib/upstream-sim/providers/horizon-chain";
import { tradeAggregationsRoute, tradesRoute } from "@/lib/upstream-sim/providers/horizon-trades";
import { submitRoute, transactionRoute } from "@/lib/upstream-sim/providers/horizon-submit";

/** Lumens in existence since inflation ended (constant on the real network). */
export const TOTAL_COINS = "105443902087.3472865";
const MAX_LEVELS = 80;
const MAX_TX_SET_OPS = 1000;

interface SimLevel {
  price: number;
  xlm: number;
}

/** Book at ledger `seq`: bids descending, asks ascending, sizes in XLM. */
export function simBook(world: World, t: number, levels: number): { bids: SimLevel[]; asks: SimLevel[] } {
  const seq = sequenceAt(world, t);
  const r = world.rand(`horizon:book:${seq}`);
  // Resting demand vs supply drifts over ~10 minutes; it drives the order-flow signal.
  const slow = world.rand(`horizon:book-tilt:${Math.floor(t / 600_000)}`);
  const tilt = Math.min(0.4, Math.max(-0.4, (slow() - 0.5) * 0.6 + gaussian(r) * 0.05));
  const fair = priceAt(world, "stellar", t) * (1 + (gaussian(r) * 4 - 2) / 10_000);
  const spreadPct = 0.05 + r() ** 1.5 * 0.35;
  let bid = fair * (1 - spreadPct / 200);
  let ask = fair * (1 + spreadPct / 200);
  const bids: SimLevel[] = [];
  const asks: SimLevel[] = [];
  for (let i = 0; i < levels; i++) {
    const size = () => Math.exp(Math.log(6_000) + gaussian(r) * 0.9) * (1 + 0.12 * i);
    bids.push({ price: bid, xlm: size() * (1 + tilt) });
    asks.push({ price: ask, xlm: size() * (1 - tilt) });
    bid *= 1 - (0.0004 + r() * 0.0012);
    ask *= 1 + (0.0004 + r() * 0.0012);
  }
  return { bids, asks };
}

function orderBookRoute(req: SimRequest, world: World): SimResponse {
  const q = req.query;
  for (const side of ["selling", "buying"] as const) {
    if (!q.get(`${side}_asset_type`)) return badRequest(`${side}_asset_type`, "Missing required field");
  }
  const raw = q.get("limit");
  const limit = raw === null || raw === "" ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) return badRequest("limit", "limit must be between 1 and 200");
  const base = { asset_type: "native" };
  const counter = { asset_type: "credit_alphanum4", asset_code: "USDC", asset_issuer: USDC_ISSUER };
  if (!isXlmUsdc(q, "selling", "buying")) {
    return { body: { bids: [], asks: [], base: { asset_type: q.get("selling_asset_type") }, counter: { asset_type: q.get("buying_asset_type") } } };
  }
  const book = simBook(world, req.now, Math.min(limit, MAX_LEVELS));
  const level = (l: SimLevel, usdcAmount: boolean) => {
    const pr = rational(l.price);
    const price = pr.n / pr.d;
    // Horizon's quirk: bids are sized in the counter asset (USDC), asks in the base (XLM).
    return { price_r: pr, price: amount7(price), amount: amount7(usdcAmount ? l.xlm * price : l.xlm) };
  };
  return {
    body: {
      bids: book.bids.map((l) => level(l, true)),
      asks: book.asks.map((l) => level(l, false)),
      base,
      counter,
    },
  };
}

function ledgerRecord(world: World, seq: number): Record<string, unknown> {
  const r = world.rand(`horizon:ledger:${seq}`);
  // Capacity (max_tx_set_size) counts operations; failed transactions use it too.
  const txSetOps = Math.floor(MAX_TX_SET_OPS * (0.3 + r() * 0.68));
  const failed = 15 + Math.floor(r() * 110);
  const ops = txSetOps - failed;
  const ok = Math.max(1, Math.floor(ops / (1.2 + r() * 1.5)));
  const hash = hex64(`ledger:${world.seed}:${seq}`);
  // The fee pool grows by the fees of each ledger (~0.04 XLM).
  const feePool = 4_352_817.4402113 + (seq - baseSequence(world)) * 0.0413;
  const token = String(BigInt(seq) << 32n);
  return {
    _links: {
      self: { href: `${HORIZON_URL}/ledgers/${seq}` },
      transactions: { href: `${HORIZON_URL}/ledgers/${seq}/transactions{?cursor,limit,order}`, templated: true },
      operations: { href: `${HORIZON_URL}/ledgers/${seq}/operations{?cursor,limit,order}`, templated: true },
      payments: { href: `${HORIZON_URL}/ledgers/${seq}/payments{?cursor,limit,order}`, templated: true },
      effects: { href: `${HORIZON_URL}/ledgers/${seq}/effects{?cursor,limit,order}`, templated: true },
    },
    id: hash,
    paging_token: token,
    hash,
    prev_hash: hex64(`ledger:${world.seed}:${seq - 1}`),
    sequence: seq,
    successful_transaction_count: ok,
    failed_transaction_count: failed,
    operation_count: ops,
    tx_set_operation_count: txSetOps,
    closed_at: horizonTime(closeTime(world, seq)),
    total_coins: TOTAL_COINS,
    fee_pool: amount7(feePool),
    base_fee_in_stroops: 100,
    base_reserve_in_stroops: 5_000_000,
    max_tx_set_size: MAX_TX_SET_OPS,
    protocol_version: 23,
    header_xdr: Buffer.from(hash + hex64(`hdr:${seq}`), "hex").toString("base64"),
  };
}

function ledgersRoute(req: SimRequest, world: World): SimResponse {
  const q = req.query;
  const raw = q.get("limit");
  const limit = raw === null || raw === "" ? 10 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) return badRequest("limit", "limit must be between 1 and 200");
  const order = parseOrder(q);
  if (!order) return badRequest("order", "order: invalid value, expected asc or desc");
  const latest = sequenceAt(world, req.now);
  const earliest = latest - 17_280 * 30; // ~30 days of retained history
  const cursorText = q.get("cursor");
  const cursorSeq = cursorText && /^\d+$/.test(cursorText) ? Number(BigInt(cursorText) >> 32n) : null;
  const seqs: number[] = [];
  if (order === "desc") {
    for (let s = cursorSeq === null ? latest : Math.min(latest, cursorSeq - 1); s >= earliest && seqs.length < limit; s--) seqs.push(s);
  } else {
    for (let s = cursorSeq === null ? earliest : Math.max(earliest, cursorSeq + 1); s <= latest && seqs.length < limit; s++) seqs.push(s);
  }
  const self = `${HORIZON_URL}/ledgers?${q.toString()}`;
  return {
    body: {
      _links: { self: { href: self }, next: { href: self }, prev: { href: self } },
      _embedded: { records: seqs.map((s) => ledgerRecord(world, s)) },
    },
  };
}

/** Fee distributions over the last 5 ledgers; surge pricing when capacity runs out. */
function feeStatsRoute(req: SimRequest, world: World): SimResponse {
  const seq = sequenceAt(world, req.now);
  const r = world.rand(`horizon:fees:${seq}`);
  const usage = Math.round((0.25 + r() * 0.72) * 100) / 100;
  const surge = usage > 0.9;
  const s = (x: number) => String(Math.round(x));
  const charged = surge
    ? { min: 100, mode: 100, p10: 100, p20: 100, p30: 120, p40: 180, p50: 250 + r() * 500, p60: 900, p70: 2_000, p80: 5_000, p90: 12_000, p95: 30_000, p99: 150_000, max: 1_000_000 }
    : { min: 100, mode: 100, p10: 100, p20: 100, p30: 100, p40: 100, p50: 100, p60: 100, p70: 100, p80: 100, p90: 100 + Math.floor(r() * 2) * 100, p95: 200 + r() * 800, p99: 5_000 + r() * 45_000, max: 200_000 + r() * 800_000 };
  const maxFee = { min: 100, mode: 100_000, p10: 100, p20: 150, p30: 1_000, p40: 10_000, p50: 100_000, p60: 100_000, p70: 100_000, p80: 250_001, p90: 1_000_000, p95: 2_000_000, p99: 10_000_000, max: 100_000_000 };
  const strings = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, s(v)]));
  return {
    body: {
      last_ledger: String(seq),
      last_ledger_base_fee: "100",
      ledger_capacity_usage: usage.toFixed(2),
      fee_charged: strings(charged),
      max_fee: strings(maxFee),
    },
  };
}

export const horizonSim: SimProvider = {
  name: "horizon",
  envVar: "HORIZON_BASE_URL",
  handle(req, world) {
    const p = req.path.replace(/\/+$/, "");
    if (p === "/order_book") return orderBookRoute(req, world);
    if (p === "/trades") return tradesRoute(req, world);
    if (p === "/trade_aggregations") return tradeAggregationsRoute(req, world);
    if (p === "/ledgers") return ledgersRoute(req, world);
    if (p === "/fee_stats") return feeStatsRoute(req, world);
    if (p === "/transactions" && req.method === "POST") return submitRoute(req, world);
    const tx = /^\/transactions\/([^/]+)$/.exec(p);
    if (tx && req.method === "GET") return transactionRoute(tx[1]!, world);
    return null;
  },
};
