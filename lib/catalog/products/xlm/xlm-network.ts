// GET /v1/xlm-network — Stellar ledger health, fees and congestion, supply, 1h SDEX XLM/USDC trade statistics.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { UnavailableError } from "@/lib/errors";
import { coinMarkets } from "@/lib/market/sources/coingecko";
import { getFeeStats, getLatestLedger, getXlmUsdcTradeAggregations, getXlmUsdcTrades, type TradeBucket } from "@/lib/market/sources/horizon";
import { feeCongestion, ledgerHealth, tradeStats } from "@/lib/market/signals/network";
import { failureReason } from "@/lib/market/xlm/failure";
import { dp, dpOrNull, sig, sigOrNull } from "@/lib/market/xlm/format";

const HOUR = 3_600_000;
/**
 * Spec 8 promises this pulse "cached 60 seconds": the response cache below is the whole
 * freshness budget, so the reads behind a new pulse take no value from the upstream
 * caches (up to 30 s for Horizon aggregations, 60 s for CoinGecko markets), which would
 * otherwise stack on top and serve data up to two minutes old. A read already in
 * flight is still shared.
 */
const FRESH = { maxAgeMs: 0 };
/** The latest hourly bucket is often empty or partial: look back this many hours. */
const LOOKBACK_HOURS = 3;

const status = z.enum(["ok", "unavailable"]).describe("unavailable when the upstream failed");
const error = z.string().nullable().describe("Why the section is unavailable; null when ok");
const stroops = z.number().int().nullable();

const output = z.object({
  ledger: z
    .object({
      sequence: z.number().int().positive().describe("Latest closed ledger"),
      closed_at: z.string().describe("Close time of the latest ledger (ISO 8601)"),
      age_seconds: z.number().nonnegative().describe("Seconds since the latest ledger closed"),
      status: z.enum(["healthy", "lagging", "stalled"]).describe("≤ 15 s healthy, ≤ 60 s lagging, otherwise stalled (ledgers close every 5-6 s)"),
      protocol_version: z.number().int().describe("Stellar protocol version"),
      successful_tx: z.number().int().nonnegative().describe("Successful transactions in the ledger"),
      failed_tx: z.number().int().nonnegative().nullable().describe("Failed transactions in the ledger"),
      tx_failure_pct: z.number().nullable().describe("failed / (successful + failed), percent; null without transactions"),
      operation_count: z.number().int().nonnegative().describe("Operations in successful transactions"),
      max_tx_set_size: z.number().int().nonnegative().describe("Ledger capacity (operations)"),
      base_fee_xlm: z.number().nonnegative().describe("Base fee per operation, XLM (stroops / 1e7)"),
      base_reserve_xlm: z.number().nonnegative().describe("Base reserve, XLM (stroops / 1e7)"),
    })
    .describe("Health of the latest ledger (Stellar Horizon)"),
  fees: z
    .object({
      status,
      last_ledger_base_fee_stroops: stroops.describe("Base fee of the last ledger, stroops"),
      capacity_usage_pct: z.number().nullable().describe("Ledger capacity used over the last 5 ledgers, percent"),
      charged_stroops: z
        .object({ min: stroops, mode: stroops, p10: stroops, p50: stroops, p90: stroops, p95: stroops, p99: stroops, max: stroops })
        .nullable()
        .describe("Distribution of fees actually charged per operation over the last 5 ledgers, stroops"),
      congested: z.boolean().nullable().describe("Capacity usage > 90 % or median charged fee above the base fee (surge pricing)"),
      surge_multiple: z.number().nullable().describe("Median charged fee / base fee (1 = no surge)"),
      reason: z.string().nullable().describe("Why the network is (not) congested"),
      error,
    })
    .describe("Fee statistics and congestion (Horizon /fee_stats)"),
  supply: z
    .object({
      total_lumens_xlm: z.number().positive().describe("All lumens in existence (ledger total_coins); NOT the circulating supply"),
      fee_pool_xlm: z.number().nonnegative().describe("Fees collected by the network and not redistributed (ledger fee_pool)"),
      circulating_supply_xlm: z.number().nonnegative().nullable().describe("Circulating supply (CoinGecko); null when unavailable"),
      total_supply_xlm: z.number().nonnegative().nullable().describe("Total supply (CoinGecko)"),
      max_supply_xlm: z.number().nonnegative().nullable().describe("Maximum supply (CoinGecko)"),
      circulating_pct_of_lumens: z.number().nullable().describe("circulating_supply_xlm / total_lumens_xlm, percent"),
      circulating_status: status,
      error,
    })
    .describe("Supply figures: ledger totals (Horizon) and circulating supply (CoinGecko)"),
  sdex_1h: z
    .object({
      status: z.enum(["ok", "no_trades", "unavailable"]).describe("no_trades when no hourly bucket in the look-back window had trades"),
      bucket_start: z.string().nullable().describe("Start of the hourly bucket reported (ISO 8601)"),
      partial: z.boolean().nullable().describe("True when the bucket is the current, still open hour (used only when no complete hour in the look-back had trades)"),
      trade_count: z.number().int().nullable().describe("Trades in the bucket"),
      base_volume_xlm: z.number().nullable().describe("XLM traded"),
      counter_volume_usdc: z.number().nullable().describe("USDC traded"),
      vwap: z.number().nullable().describe("counter_volume / base_volume, USDC per XLM"),
      open: z.number().nullable().describe("First trade price"),
      high: z.number().nullable().describe("Highest trade price"),
      low: z.number().nullable().describe("Lowest trade price"),
      close: z.number().nullable().describe("Last trade price"),
      lookback_hours: z.number().int().describe("Hours searched for the last hour with trades"),
      error,
    })
    .describe("XLM/USDC SDEX statistics of the latest complete hour with trades (Horizon trade_aggregations, resolution 1 h)"),
  recent_trades: z
    .object({
      status,
      count: z.number().int().nullable().describe("Trades read (Horizon's newest page, at most 200)"),
      window_start: z.string().nullable().describe("Time of the oldest trade read"),
      window_end: z.string().nullable().describe("Time of the newest trade read"),
      vwap: z.number().nullable().describe("Σ counter / Σ base over the trades, USDC per XLM"),
      base_volume_xlm: z.number().nullable().describe("XLM traded"),
      counter_volume_usdc: z.number().nullable().describe("USDC traded"),
      buy_volume_xlm: z.number().nullable().describe("XLM bought by takers"),
      sell_volume_xlm: z.number().nullable().describe("XLM sold by takers"),
      buy_ratio: z.number().nullable().describe("buy_volume_xlm / base_volume_xlm"),
      error,
    })
    .describe("The most recent XLM/USDC SDEX trades (Horizon /trades)"),
  degraded: z.boolean().describe("True when a section is unavailable"),
  unavailable: z.array(z.string()).describe("Sections that could not be read and why"),
  sources: z.array(z.string()).describe("Upstream providers used"),
  ts: z.string().describe("Time the pulse was computed (ISO 8601); every figure was read from its upstream then, and a cached pulse is served for at most 60 s after it"),
});

/** The newest complete hour with trades; the open hour only when nothing complete is found. */
function pickBucket(buckets: TradeBucket[], currentHour: number): TradeBucket | null {
  const sorted = [...buckets].filter((b) => b.tradeCount > 0 && b.baseVolume > 0).sort((a, b) => b.start - a.start);
  return sorted.find((b) => b.start < currentHour) ?? sorted[0] ?? null;
}

export const xlmNetwork = defineProduct({
  id: "xlm-network",
  path: "/v1/xlm-network",
  title: "XLM network pulse",
  description:
    "Stellar network pulse: latest ledger health (age, status, protocol, transaction success and failure, operations, base fee and reserve in XLM), fee statistics and congestion, supply (total lumens from the ledger, circulating and total supply from CoinGecko) and 1h XLM/USDC SDEX trade statistics. Cached 60 seconds.",
  tags: ["network", "xlm", "stellar"],
  kind: "data",
  httpPrice: "0.01",
  tool: { name: "get_xlm_network_pulse", price: "0.10", label: "XLM network pulse" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {},
  output,
  example: {
    ledger: {
      sequence: 56254906,
      closed_at: "2026-11-26T19:18:42.000Z",
      age_seconds: 3.8,
      status: "healthy",
      protocol_version: 23,
      successful_tx: 334,
      failed_tx: 64,
      tx_failure_pct: 16.08,
      operation_count: 790,
      max_tx_set_size: 1000,
      base_fee_xlm: 0.00001,
      base_reserve_xlm: 0.5,
    },
    fees: {
      status: "ok",
      last_ledger_base_fee_stroops: 100,
      capacity_usage_pct: 78,
      charged_stroops: {
        min: 100,
        mode: 100,
        p10: 100,
        p50: 100,
        p90: 200,
        p95: 592,
        p99: 24254,
        max: 220874,
      },
      congested: false,
      surge_multiple: 1,
      reason: "capacity usage 78% and median fee 100 stroops at or below base fee 100",
      error: null,
    },
    supply: {
      total_lumens_xlm: 105443902087.34729,
      fee_pool_xlm: 4352825.8654113,
      circulating_supply_xlm: 30600000000,
      total_supply_xlm: 50000000000,
      max_supply_xlm: 50000000000,
      circulating_pct_of_lumens: 29.02,
      circulating_status: "ok",
      error: null,
    },
    sdex_1h: {
      status: "ok",
      bucket_start: "2026-11-26T18:00:00.000Z",
      partial: false,
      trade_count: 70,
      base_volume_xlm: 192114.37,
      counter_volume_usdc: 80034.56,
      vwap: 0.4165985,
      open: 0.4159171,
      high: 0.4173265,
      low: 0.4157089,
      close: 0.4172186,
      lookback_hours: 3,
      error: null,
    },
    recent_trades: {
      status: "ok",
      count: 200,
      window_start: "2026-11-26T16:22:47.000Z",
      window_end: "2026-11-26T19:18:03.000Z",
      vwap: 0.4148727,
      base_volume_xlm: 559434.68,
      counter_volume_usdc: 232094.15,
      buy_volume_xlm: 264956.73,
      sell_volume_xlm: 294477.95,
      buy_ratio: 0.4736,
      error: null,
    },
    degraded: false,
    unavailable: [],
    sources: ["stellar-horizon", "coingecko"],
    ts: "2026-11-26T19:18:45.775Z",
  },
  // Spec 8: cached 60 seconds, counted from when the upstream reads began (see FRESH).
  cacheTtlSeconds: 60,
  sources: ["horizon", "coingecko"],
  handler: async (_params, ctx) => {
    const now = ctx.now.getTime();
    const currentHour = Math.floor(now / HOUR) * HOUR;
    const [ledgerR, feesR, marketR, aggR, tradesR] = await Promise.allSettled([
      getLatestLedger(FRESH),
      getFeeStats(FRESH),
      coinMarkets({ ids: ["stellar"], ...FRESH }),
      getXlmUsdcTradeAggregations({ resolution: 3_600_000, startTime: currentHour - LOOKBACK_HOURS * HOUR, endTime: currentHour + HOUR, order: "desc", limit: LOOKBACK_HOURS + 1 }, FRESH),
      getXlmUsdcTrades(200, FRESH),
    ]);
    if (ledgerR.status === "rejected") {
      throw new UnavailableError(`XLM network pulse is unavailable: the latest ledger could not be read (${failureReason(ledgerR.reason, "ledger")}).`, { sources: ["horizon"] });
    }
    const l = ledgerR.value;
    const unavailable: string[] = [];
    const health = ledgerHealth({
      closedAt: l.closedAt,
      now: ctx.now,
      successfulTx: l.successfulTxCount,
      failedTx: l.failedTxCount ?? 0,
      operationCount: l.operationCount,
      baseFeeStroops: l.baseFeeStroops,
      baseReserveStroops: l.baseReserveStroops,
    });

    let fees: z.infer<typeof output>["fees"];
    if (feesR.status === "fulfilled") {
      const f = feesR.value;
      const c = feeCongestion({ capacityUsage: f.ledgerCapacityUsage, p50: f.feeCharged.p50, lastBaseFee: f.lastLedgerBaseFeeStroops });
      const fc = f.feeCharged;
      fees = {
        status: "ok",
        last_ledger_base_fee_stroops: f.lastLedgerBaseFeeStroops,
        capacity_usage_pct: dp(f.ledgerCapacityUsage * 100, 2),
        charged_stroops: { min: fc.min, mode: fc.mode, p10: fc.p10, p50: fc.p50, p90: fc.p90, p95: fc.p95, p99: fc.p99, max: fc.max },
        congested: c.congested,
        surge_multiple: dpOrNull(c.surgeMultiple, 2),
        reason: c.reason,
        error: null,
      };
    } else {
      const error = failureReason(feesR.reason, "fees");
      unavailable.push(`fees: ${error}`);
      fees = { status: "unavailable", last_ledger_base_fee_stroops: null, capacity_usage_pct: null, charged_stroops: null, congested: null, surge_multiple: null, reason: null, error };
    }

    const row = marketR.status === "fulfilled" ? (marketR.value.find((r) => r.id === "stellar") ?? null) : null;
    const supplyError = marketR.status === "rejected" ? failureReason(marketR.reason, "supply") : row ? null : "coingecko: no stellar row";
    if (supplyError) unavailable.push(`circulating_supply: ${supplyError}`);
    const circ = row?.circulating_supply ?? null;

    let sdex1h: z.infer<typeof output>["sdex_1h"];
    const noBucket = { bucket_start: null, partial: null, trade_count: null, base_volume_xlm: null, counter_volume_usdc: null, vwap: null, open: null, high: null, low: null, close: null };
    if (aggR.status === "rejected") {
      const error = failureReason(aggR.reason, "trade_aggregations");
      unavailable.push(`sdex_1h: ${error}`);
      sdex1h = { status: "unavailable", ...noBucket, lookback_hours: LOOKBACK_HOURS, error };
    } else {
      const b = pickBucket(aggR.value, currentHour);
      sdex1h = b
        ? {
            status: "ok",
            bucket_start: new Date(b.start).toISOString(),
            partial: b.start >= currentHour,
            trade_count: b.tradeCount,
            base_volume_xlm: dp(b.baseVolume, 2),
            counter_volume_usdc: dp(b.counterVolume, 2),
            vwap: sig(b.counterVolume / b.baseVolume, 7),
            open: sig(b.open, 7),
            high: sig(b.high, 7),
            low: sig(b.low, 7),
            close: sig(b.close, 7),
            lookback_hours: LOOKBACK_HOURS,
            error: null,
          }
        : { status: "no_trades", ...noBucket, lookback_hours: LOOKBACK_HOURS, error: null };
    }

    let recent: z.infer<typeof output>["recent_trades"];
    if (tradesR.status === "fulfilled") {
      const s = tradeStats(tradesR.value);
      recent = {
        status: "ok",
        count: s.count,
        window_start: s.firstTime?.toISOString() ?? null,
        window_end: s.lastTime?.toISOString() ?? null,
        vwap: sigOrNull(s.vwap, 7),
        base_volume_xlm: dp(s.baseVolume, 2),
        counter_volume_usdc: dp(s.counterVolume, 2),
        buy_volume_xlm: dp(s.buyVolumeBase, 2),
        sell_volume_xlm: dp(s.sellVolumeBase, 2),
        buy_ratio: dpOrNull(s.buyRatio, 4),
        error: null,
      };
    } else {
      const error = failureReason(tradesR.reason, "trades");
      unavailable.push(`recent_trades: ${error}`);
      recent = { status: "unavailable", count: null, window_start: null, window_end: null, vwap: null, base_volume_xlm: null, counter_volume_usdc: null, buy_volume_xlm: null, sell_volume_xlm: null, buy_ratio: null, error };
    }

    return {
      ledger: {
        sequence: l.sequence,
        closed_at: l.closedAt.toISOString(),
        age_seconds: dp(health.ageSeconds, 1),
        status: health.status,
        protocol_version: l.protocolVersion,
        successful_tx: l.successfulTxCount,
        failed_tx: l.failedTxCount,
        tx_failure_pct: l.failedTxCount === null || health.failureRatio === null ? null : dp(health.failureRatio * 100, 2),
        operation_count: l.operationCount,
        max_tx_set_size: l.maxTxSetSize,
        base_fee_xlm: health.baseFeeXlm,
        base_reserve_xlm: health.baseReserveXlm,
      },
      fees,
      supply: {
        total_lumens_xlm: l.totalCoins,
        fee_pool_xlm: l.feePool,
        circulating_supply_xlm: circ,
        total_supply_xlm: row?.total_supply ?? null,
        max_supply_xlm: row?.max_supply ?? null,
        circulating_pct_of_lumens: circ === null ? null : dp((circ / l.totalCoins) * 100, 2),
        circulating_status: supplyError ? ("unavailable" as const) : ("ok" as const),
        error: supplyError,
      },
      sdex_1h: sdex1h,
      recent_trades: recent,
      degraded: unavailable.length > 0,
      unavailable,
      sources: ["stellar-horizon", ...(row ? ["coingecko"] : [])],
      ts: ctx.now.toISOString(),
    };
  },
});
