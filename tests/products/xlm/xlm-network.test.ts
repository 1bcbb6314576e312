import { describe, expect, it, vi } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { xlmNetwork } from "@/lib/catalog/products/xlm/xlm-network";
import { UnavailableError } from "@/lib/errors";
import { coinMarkets } from "@/lib/market/sources/coingecko";
import { dp } from "@/lib/market/xlm/format";
import { getFeeStats, getLatestLedger, getXlmUsdcTradeAggregations, getXlmUsdcTrades } from "@/lib/market/sources/horizon";
import { useSimulator } from "../../helpers/in-process";
import { PAIR_QUERY, freezeTime, raw, total } from "./raw";

const { sim } = useSimulator();
const HOUR = 3_600_000;
const run = () => runProduct(xlmNetwork, validateOrThrow(paramsSchema(xlmNetwork.params), {}, "query")) as Promise<any>;

describe("GET /v1/xlm-network", () => {
  it("reports ledger health, fees, supply and 1h SDEX statistics, recomputed from the raw responses", async () => {
    freezeTime();
    const out = await run();
    const now = Date.now();
    const led = (await raw(sim(), "/horizon/ledgers?order=desc&limit=1"))._embedded.records[0];
    const fees = await raw(sim(), "/horizon/fee_stats");
    const row = (await raw(sim(), "/coingecko/api/v3/coins/markets?vs_currency=usd&ids=stellar"))[0];
    const hour = Math.floor(now / HOUR) * HOUR;
    const aggs = (await raw(sim(), `/horizon/trade_aggregations?${PAIR_QUERY}&resolution=3600000&start_time=${hour - 3 * HOUR}&end_time=${hour + HOUR}&order=desc&limit=4`))._embedded.records;
    const trades = (await raw(sim(), `/horizon/trades?${PAIR_QUERY}&order=desc&limit=200`))._embedded.records;

    const ok = led.successful_transaction_count;
    const failed = led.failed_transaction_count;
    expect(out.ledger).toMatchObject({
      sequence: led.sequence,
      closed_at: new Date(led.closed_at).toISOString(),
      status: "healthy",
      protocol_version: led.protocol_version,
      successful_tx: ok,
      failed_tx: failed,
      operation_count: led.operation_count,
      base_fee_xlm: 0.00001,
      base_reserve_xlm: 0.5,
    });
    // Exactly the age rounded to 0.1 s (toBeCloseTo(x, 1) wants < 0.05 and failed when the
    // age's hundredths were 5: 1.95 s answered 2).
    expect(out.ledger.age_seconds).toBe(dp((now - Date.parse(led.closed_at)) / 1000, 1));
    expect(out.ledger.age_seconds).toBeLessThanOrEqual(6);
    expect(out.ledger.tx_failure_pct).toBeCloseTo((failed / (ok + failed)) * 100, 2);

    const usage = Number(fees.ledger_capacity_usage);
    const p50 = Number(fees.fee_charged.p50);
    expect(out.fees).toMatchObject({ status: "ok", last_ledger_base_fee_stroops: 100, congested: usage > 0.9 || p50 > 100, error: null });
    expect(out.fees.capacity_usage_pct).toBeCloseTo(usage * 100, 6);
    expect(out.fees.charged_stroops.p50).toBe(p50);
    expect(out.fees.charged_stroops.p99).toBe(Number(fees.fee_charged.p99));

    // total_coins is every lumen, not the circulating supply (the prototype's mistake).
    expect(out.supply.total_lumens_xlm).toBe(105443902087.3472865);
    expect(out.supply.circulating_supply_xlm).toBe(row.circulating_supply);
    expect(out.supply.total_supply_xlm).toBe(row.total_supply);
    expect(out.supply.circulating_supply_xlm).not.toBe(out.supply.total_lumens_xlm);
    expect(out.supply.circulating_pct_of_lumens).toBeCloseTo((row.circulating_supply / 105443902087.3472865) * 100, 2);
    expect(out.supply.fee_pool_xlm).toBe(Number(led.fee_pool));

    const complete = aggs.filter((a: any) => Number(a.timestamp) < hour);
    const b = complete[0];
    expect(out.sdex_1h).toMatchObject({ status: "ok", bucket_start: new Date(Number(b.timestamp)).toISOString(), partial: false, trade_count: Number(b.trade_count) });
    expect(out.sdex_1h.vwap).toBeCloseTo(Number(b.counter_volume) / Number(b.base_volume), 6);
    expect(out.sdex_1h.base_volume_xlm).toBeCloseTo(Number(b.base_volume), 2);
    expect(out.sdex_1h.high).toBeCloseTo(Number(b.high), 6);

    const base = total(trades.map((t: any) => Number(t.base_amount)));
    const counter = total(trades.map((t: any) => Number(t.counter_amount)));
    const buys = total(trades.filter((t: any) => t.base_is_seller).map((t: any) => Number(t.base_amount)));
    expect(out.recent_trades.count).toBe(200);
    expect(out.recent_trades.vwap).toBeCloseTo(counter / base, 6);
    expect(out.recent_trades.buy_volume_xlm).toBeCloseTo(buys, 1);
    expect(out).toMatchObject({ degraded: false, unavailable: [] });
  });

  it("caches for 60 seconds and no longer: upstreams are read again after a minute", async () => {
    const t0 = Date.now();
    freezeTime(t0);
    const first = await run();
    const reads = sim().total("horizon");
    expect(reads).toBe(4); // ledger, fee_stats, trade_aggregations, trades: once each
    vi.setSystemTime(t0 + 30_000);
    await run();
    expect(sim().total("horizon")).toBe(reads);
    vi.setSystemTime(t0 + 61_000);
    const later = await run();
    expect(xlmNetwork.cacheTtlSeconds).toBe(60);
    const counts = sim().counts();
    for (const path of ["/ledgers", "/fee_stats", "/trades", "/trade_aggregations"]) {
      const n = Object.entries(counts).filter(([k]) => k.startsWith(`horizon ${path}?`) || k === `horizon ${path}`).reduce((a, [, v]) => a + v, 0);
      expect(n, path).toBe(2);
    }
    // Fresh data, not a stale upstream cache: about 11 ledgers (61 s / 5.5 s) later.
    expect(later.ledger.sequence - first.ledger.sequence).toBeGreaterThanOrEqual(10);
    expect(later.ledger.sequence - first.ledger.sequence).toBeLessThanOrEqual(12);
  });

  it("serves data at most 60 s old even when other products left its upstream reads in the caches", async () => {
    const t0 = Date.now();
    freezeTime(t0);
    const hour = Math.floor(t0 / HOUR) * HOUR;
    // Another product read the same resources just now: they sit in the upstream caches
    // (Horizon aggregations for 30 s, CoinGecko markets for 60 s).
    await Promise.all([
      getLatestLedger(),
      getFeeStats(),
      coinMarkets({ ids: ["stellar"] }),
      getXlmUsdcTradeAggregations({ resolution: 3_600_000, startTime: hour - 3 * HOUR, endTime: hour + HOUR, order: "desc", limit: 4 }),
      getXlmUsdcTrades(200),
    ]);
    const perResource = () => {
      const by: Record<string, number> = {};
      for (const [k, v] of Object.entries(sim().counts())) {
        const res = k.split("?")[0]!;
        by[res] = (by[res] ?? 0) + v;
      }
      return by;
    };
    const RESOURCES = ["horizon /ledgers", "horizon /fee_stats", "horizon /trades", "horizon /trade_aggregations", "coingecko /api/v3/coins/markets"];
    const warm = perResource();
    for (const r of RESOURCES) expect(warm[r], r).toBe(1);

    // 4 s later the pulse is computed: every figure must be read from upstream now, not
    // taken from those caches (else the 60 s response cache would stack on top of them).
    vi.setSystemTime(t0 + 4_000);
    const pulse = await run();
    expect(Date.parse(pulse.ts)).toBe(t0 + 4_000);
    const computed = perResource();
    for (const r of RESOURCES) expect(computed[r], r).toBe(2);

    // Served from the response cache until 60 s after the reads, never later.
    vi.setSystemTime(t0 + 4_000 + 59_999);
    const cachedPulse = await run();
    expect(cachedPulse.ts).toBe(pulse.ts);
    expect(Date.now() - Date.parse(cachedPulse.ts)).toBeLessThanOrEqual(60_000);
    expect(perResource()).toEqual(computed);
    vi.setSystemTime(t0 + 4_000 + 60_000);
    const next = await run();
    expect(Date.parse(next.ts)).toBe(Date.now());
    // The reported ledger is as fresh as the pulse: it closed at most one ledger interval
    // (5-6 s in the simulator) before the pulse was computed.
    expect(Date.parse(next.ts) - Date.parse(next.ledger.closed_at)).toBeLessThanOrEqual(6_000);
    expect(next.ledger.age_seconds).toBeLessThanOrEqual(6);
  });

  it("degrades section by section: fee stats, supply and trades", async () => {
    sim().setFault("horizon", { mode: "error", status: 502, pathPrefix: "/fee_stats" });
    sim().setFault("coingecko", { mode: "malformed" });
    const out = await run();
    expect(out.fees).toMatchObject({ status: "unavailable", congested: null, charged_stroops: null, error: "horizon: HTTP 502" });
    expect(out.supply).toMatchObject({ circulating_supply_xlm: null, circulating_status: "unavailable", error: "coingecko: unexpected response format" });
    expect(out.supply.total_lumens_xlm).toBe(105443902087.3472865);
    expect(out.ledger.status).toBe("healthy");
    expect(out.degraded).toBe(true);
    expect(out.unavailable).toEqual(["fees: horizon: HTTP 502", "circulating_supply: coingecko: unexpected response format"]);
  });

  it("is unavailable without the latest ledger", async () => {
    sim().setFault("horizon", { mode: "error", status: 500, pathPrefix: "/ledgers" });
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/latest ledger.*horizon: HTTP 500/);
  });
});
