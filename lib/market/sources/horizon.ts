/**
 * Stellar Horizon (keyless, 3600 requests/hour per IP): the SDEX XLM/USDC order book,
 * trades and trade aggregations, the latest ledger and fee stats (upstreams.md §3).
 *
 * Amounts arrive as 7-decimal strings and are parsed explicitly. Units differ by side of
 * the order book: a bid's `amount` is USDC (counter), an ask's `amount` is XLM (base);
 * this module hands both through unchanged and `normalizeHorizonBook` fixes the units.
 * TTLs stay at or under one ledger-ish cadence (5-30 s) so nothing downstream that
 * promises "cached 60 s" can serve older data.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached, type CacheOptions } from "@/lib/market/cache";
import { fetchJson, type Provider } from "@/lib/market/upstream";
import type { RawLevel } from "@/lib/market/signals/orderbook";

export const horizon: Provider = { name: "horizon", baseUrl: () => env().HORIZON_BASE_URL };

/** Circle's USDC issuer on the Stellar public network. */
export const USDC_ISSUER = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";

/** Query parameters selecting the XLM (base) / USDC (counter) pair for trades and aggregations. */
export const XLM_USDC_PAIR = {
  base_asset_type: "native",
  counter_asset_type: "credit_alphanum4",
  counter_asset_code: "USDC",
  counter_asset_issuer: USDC_ISSUER,
} as const;

/** Horizon's allowed trade-aggregation resolutions (ms); anything else is a 400. */
export const AGG_RESOLUTIONS = [60_000, 300_000, 900_000, 3_600_000, 86_400_000, 604_800_000] as const;
export type AggResolution = (typeof AGG_RESOLUTIONS)[number];

/** "0.4213000" → 0.4213; rejects "", "abc", NaN-producing text. */
const decimal = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/, "expected a decimal string")
  .transform(Number);
/** Horizon renders int64 fields as strings and int32 fields as numbers; accept either. */
const intLike = z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]);

const BookLevel = z.object({
  price_r: z.object({ n: intLike, d: intLike }),
  price: decimal,
  amount: decimal,
});
const OrderBookResponse = z.object({
  bids: z.array(BookLevel),
  asks: z.array(BookLevel),
  base: z.object({ asset_type: z.string() }).passthrough(),
  counter: z.object({ asset_type: z.string() }).passthrough(),
});

export interface HorizonBook {
  /** Best first; `amount` is USDC (counter asset). */
  bids: RawLevel[];
  /** Best first; `amount` is XLM (base asset). */
  asks: RawLevel[];
}

/** SDEX order book for XLM/USDC, `limit` levels per side, raw Horizon units. */
export async function getXlmUsdcOrderBook(limit = 20): Promise<HorizonBook> {
  return cached(`horizon:book:${limit}`, 5_000, async () => {
    const res = await fetchJson(
      horizon,
      "/order_book",
      {
        selling_asset_type: "native",
        buying_asset_type: "credit_alphanum4",
        buying_asset_code: "USDC",
        buying_asset_issuer: USDC_ISSUER,
        limit,
      },
      OrderBookResponse,
    );
    const level = (l: z.infer<typeof BookLevel>): RawLevel => ({ price: l.price, amount: l.amount });
    return { bids: res.bids.map(level), asks: res.asks.map(level) };
  });
}

const TradeRecord = z.object({
  id: z.string(),
  ledger_close_time: z.iso.datetime({ offset: true }),
  trade_type: z.enum(["orderbook", "liquidity_pool"]),
  base_amount: decimal,
  counter_amount: decimal,
  base_asset_type: z.string(),
  counter_asset_code: z.string().optional(),
  base_is_seller: z.boolean(),
  price: z.object({ n: intLike, d: intLike }),
});

export interface SdexTrade {
  id: string;
  time: Date;
  type: "orderbook" | "liquidity_pool";
  /** XLM traded. */
  baseAmount: number;
  /** USDC traded. */
  counterAmount: number;
  /** USDC per XLM (price.n / price.d). */
  price: number;
  /** True when the base-side party sold XLM (a sell-initiated trade from XLM's view). */
  baseIsSeller: boolean;
}

/** Most recent XLM/USDC trades, newest first (at most 200, Horizon's page limit). */
export async function getXlmUsdcTrades(limit = 200, cache: CacheOptions = {}): Promise<SdexTrade[]> {
  const n = Math.min(Math.max(1, limit), 200);
  return cached(`horizon:trades:${n}`, 10_000, async () => {
    const res = await fetchJson(
      horizon,
      "/trades",
      { ...XLM_USDC_PAIR, order: "desc", limit: n },
      z.object({ _embedded: z.object({ records: z.array(TradeRecord) }) }),
    );
    return res._embedded.records
      .filter((r) => r.price.d !== 0)
      .map((r) => ({
        id: r.id,
        time: new Date(r.ledger_close_time),
        type: r.trade_type,
        baseAmount: r.base_amount,
        counterAmount: r.counter_amount,
        price: r.price.n / r.price.d,
        baseIsSeller: r.base_is_seller,
      }));
  }, cache);
}

const AggRecord = z.object({
  timestamp: intLike,
  trade_count: intLike,
  base_volume: decimal,
  counter_volume: decimal,
  avg: decimal,
  high: decimal,
  low: decimal,
  open: decimal,
  close: decimal,
});

export interface TradeBucket {
  /** Bucket start (ms). */
  start: number;
  tradeCount: number;
  /** XLM volume. */
  baseVolume: number;
  /** USDC volume. */
  counterVolume: number;
  avg: number;
  high: number;
  low: number;
  open: number;
  close: number;
}

/**
 * XLM/USDC trade aggregations. Horizon rounds the bounds to the resolution; callers pass
 * aligned bounds so that the cache key is stable for the whole bucket.
 */
export async function getXlmUsdcTradeAggregations(
  o: {
    resolution: AggResolution;
    startTime: number;
    endTime: number;
    order?: "asc" | "desc";
    limit?: number;
  },
  cache: CacheOptions = {},
): Promise<TradeBucket[]> {
  const order = o.order ?? "desc";
  const limit = Math.min(Math.max(1, o.limit ?? 10), 200);
  const key = `horizon:agg:${o.resolution}:${o.startTime}:${o.endTime}:${order}:${limit}`;
  return cached(key, 30_000, async () => {
    const res = await fetchJson(
      horizon,
      "/trade_aggregations",
      { ...XLM_USDC_PAIR, resolution: o.resolution, start_time: o.startTime, end_time: o.endTime, order, limit },
      z.object({ _embedded: z.object({ records: z.array(AggRecord) }) }),
    );
    return res._embedded.records.map((r) => ({
      start: r.timestamp,
      tradeCount: r.trade_count,
      baseVolume: r.base_volume,
      counterVolume: r.counter_volume,
      avg: r.avg,
      high: r.high,
      low: r.low,
      open: r.open,
      close: r.close,
    }));
  }, cache);
}

const LedgerRecord = z.object({
  sequence: z.number().int().positive(),
  hash: z.string().optional(),
  closed_at: z.iso.datetime({ offset: true }),
  successful_transaction_count: z.number().int().nonnegative(),
  failed_transaction_count: z.number().int().nonnegative().nullable(),
  operation_count: z.number().int().nonnegative(),
  tx_set_operation_count: z.number().int().nonnegative().nullable().optional(),
  total_coins: decimal,
  fee_pool: decimal,
  base_fee_in_stroops: z.number().int().nonnegative(),
  base_reserve_in_stroops: z.number().int().nonnegative(),
  max_tx_set_size: z.number().int().nonnegative(),
  protocol_version: z.number().int().nonnegative(),
});

export interface Ledger {
  sequence: number;
  closedAt: Date;
  successfulTxCount: number;
  /** Null on very old Horizon versions that did not report failures. */
  failedTxCount: number | null;
  operationCount: number;
  txSetOperationCount: number | null;
  /** All lumens in existence (XLM), not the circulating supply. */
  totalCoins: number;
  /** Fees collected and not yet redistributed (XLM). */
  feePool: number;
  baseFeeStroops: number;
  baseReserveStroops: number;
  maxTxSetSize: number;
  protocolVersion: number;
}

/** The most recently closed ledger (`/ledgers?order=desc&limit=1`). */
export async function getLatestLedger(cache: CacheOptions = {}): Promise<Ledger> {
  return cached("horizon:ledger:latest", 5_000, async () => {
    const res = await fetchJson(
      horizon,
      "/ledgers",
      { order: "desc", limit: 1 },
      z.object({ _embedded: z.object({ records: z.array(LedgerRecord).min(1) }) }),
    );
    const r = res._embedded.records[0]!;
    return {
      sequence: r.sequence,
      closedAt: new Date(r.closed_at),
      successfulTxCount: r.successful_transaction_count,
      failedTxCount: r.failed_transaction_count,
      operationCount: r.operation_count,
      txSetOperationCount: r.tx_set_operation_count ?? null,
      totalCoins: r.total_coins,
      feePool: r.fee_pool,
      baseFeeStroops: r.base_fee_in_stroops,
      baseReserveStroops: r.base_reserve_in_stroops,
      maxTxSetSize: r.max_tx_set_size,
      protocolVersion: r.protocol_version,
    };
  }, cache);
}

const FeeDistribution = z.object({
  min: intLike,
  mode: intLike,
  max: intLike,
  p10: intLike,
  p20: intLike,
  p30: intLike,
  p40: intLike,
  p50: intLike,
  p60: intLike,
  p70: intLike,
  p80: intLike,
  p90: intLike,
  p95: intLike,
  p99: intLike,
});
/** Distribution of per-operation fees (stroops). */
export type FeeDistribution = z.infer<typeof FeeDistribution>;

const FeeStatsResponse = z.object({
  last_ledger: intLike,
  last_ledger_base_fee: intLike,
  ledger_capacity_usage: decimal,
  fee_charged: FeeDistribution,
  max_fee: FeeDistribution,
});

export interface FeeStats {
  lastLedger: number;
  lastLedgerBaseFeeStroops: number;
  /** 0..1 share of ledger capacity used over the last 5 ledgers. */
  ledgerCapacityUsage: number;
  /** Fees actually charged (stroops). */
  feeCharged: FeeDistribution;
  /** Fees bid (stroops). */
  maxFee: FeeDistribution;
}

/** Fee statistics over the last 5 ledgers (all values in stroops). */
export async function getFeeStats(cache: CacheOptions = {}): Promise<FeeStats> {
  return cached("horizon:fee_stats", 10_000, async () => {
    const r = await fetchJson(horizon, "/fee_stats", {}, FeeStatsResponse);
    return {
      lastLedger: r.last_ledger,
      lastLedgerBaseFeeStroops: r.last_ledger_base_fee,
      ledgerCapacityUsage: r.ledger_capacity_usage,
      feeCharged: r.fee_charged,
      maxFee: r.max_fee,
    };
  }, cache);
}
