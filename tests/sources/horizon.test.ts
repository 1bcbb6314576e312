import { describe, expect, it } from "vitest";
import {
  getFeeStats,
  getLatestLedger,
  getXlmUsdcOrderBook,
  getXlmUsdcTradeAggregations,
  getXlmUsdcTrades,
} from "@/lib/market/sources/horizon";
import { clearCache } from "@/lib/market/cache";
import { useSimulator } from "../helpers/in-process";
import { BOOK_PATH, PAIR_QUERY, freezeTime, raw, total } from "../products/xlm/raw";

const { sim } = useSimulator();
const HOUR = 3_600_000;

describe("horizon adapter: order book", () => {
  it("parses 20 levels per side with Horizon's units kept per side", async () => {
    freezeTime();
    const book = await getXlmUsdcOrderBook(20);
    const body = await raw(sim(), BOOK_PATH);
    expect(book.bids).toHaveLength(20);
    expect(book.asks).toHaveLength(20);
    // Values are the raw strings parsed, untouched: bid amount stays USDC, ask amount XLM.
    expect(book.bids[0]).toEqual({ price: Number(body.bids[0].price), amount: Number(body.bids[0].amount) });
    expect(book.asks[3]).toEqual({ price: Number(body.asks[3].price), amount: Number(body.asks[3].amount) });
    // The simulated wire format: 7-decimal strings and a rational price_r that equals price.
    for (const l of [...body.bids, ...body.asks]) {
      expect(l.price).toMatch(/^\d+\.\d{7}$/);
      expect(l.amount).toMatch(/^\d+\.\d{7}$/);
      expect(l.price_r.n / l.price_r.d).toBeCloseTo(Number(l.price), 7);
    }
    // Bids best first (descending), asks ascending, spread 0.05..0.4 % around the world price.
    for (let i = 1; i < 20; i++) {
      expect(book.bids[i]!.price).toBeLessThan(book.bids[i - 1]!.price);
      expect(book.asks[i]!.price).toBeGreaterThan(book.asks[i - 1]!.price);
    }
    const bid = book.bids[0]!.price;
    const ask = book.asks[0]!.price;
    const spreadPct = ((ask - bid) / ((ask + bid) / 2)) * 100;
    expect(spreadPct).toBeGreaterThanOrEqual(0.045);
    expect(spreadPct).toBeLessThanOrEqual(0.41);
    const cg = await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd");
    expect(Math.abs((ask + bid) / 2 / cg.stellar.usd - 1)).toBeLessThan(0.003);
    // Plausibility: a bid's USDC amount divided by its price is an XLM size of the same
    // order as the asks' XLM sizes (resting demand and supply differ, but not tenfold).
    const bidXlm = book.bids.map((l) => l.amount / l.price);
    const askXlm = book.asks.map((l) => l.amount);
    expect(total(bidXlm) / total(askXlm)).toBeGreaterThan(0.1);
    expect(total(bidXlm) / total(askXlm)).toBeLessThan(10);
    for (const x of [...bidXlm, ...askXlm]) expect(x).toBeGreaterThan(50);
  });

  it("single-flights 50 concurrent callers into one request", async () => {
    await Promise.all(Array.from({ length: 50 }, () => getXlmUsdcOrderBook(20)));
    expect(sim().total("horizon")).toBe(1);
  });

  it("turns malformed, non-JSON, HTTP errors, 429 and hangs into typed errors", async () => {
    sim().setFault("horizon", { mode: "malformed" });
    await expect(getXlmUsdcOrderBook()).rejects.toMatchObject({ name: "UpstreamError", provider: "horizon", kind: "parse" });
    sim().setFault("horizon", { mode: "not_json" });
    await expect(getLatestLedger()).rejects.toMatchObject({ kind: "parse" });
    sim().setFault("horizon", { mode: "error", status: 503 });
    await expect(getFeeStats()).rejects.toMatchObject({ kind: "http", status: 503 });
    sim().setFault("horizon", { mode: "error", status: 429 });
    await expect(getXlmUsdcTrades()).rejects.toMatchObject({ kind: "rate_limited" });
    sim().setFault("horizon", { mode: "hang" });
    await expect(getXlmUsdcOrderBook()).rejects.toMatchObject({ kind: "timeout" });
  });
});

describe("horizon adapter: trades and trade aggregations", () => {
  it("parses trades newest first with price n/d and amounts consistent with it", async () => {
    freezeTime();
    const trades = await getXlmUsdcTrades(200);
    expect(trades).toHaveLength(200);
    for (let i = 1; i < trades.length; i++) expect(trades[i]!.time.getTime()).toBeLessThanOrEqual(trades[i - 1]!.time.getTime());
    for (const t of trades) {
      expect(t.counterAmount / t.baseAmount).toBeCloseTo(t.price, 5);
      expect(["orderbook", "liquidity_pool"]).toContain(t.type);
    }
    expect(Date.now() - trades[0]!.time.getTime()).toBeLessThan(15 * 60_000);
    const body = await raw(sim(), `/horizon/trades?${PAIR_QUERY}&order=desc&limit=1`);
    const rec = body._embedded.records[0];
    expect(typeof rec.price.n).toBe("string");
    expect(rec.ledger_close_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(rec.id).toBe(trades[0]!.id);
  });

  it("aggregates the same trades /trades returns (1h buckets, vwap = counter / base)", async () => {
    // Five minutes into an hour, one page of 200 trades surely reaches back past the previous hour.
    freezeTime(Math.floor(Date.now() / HOUR) * HOUR + 5 * 60_000);
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    const buckets = await getXlmUsdcTradeAggregations({ resolution: 3_600_000, startTime: hour - 3 * HOUR, endTime: hour + HOUR, order: "desc", limit: 4 });
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    const prev = buckets.find((b) => b.start === hour - HOUR)!;
    expect(prev).toBeDefined();
    const trades = await getXlmUsdcTrades(200);
    expect(trades.at(-1)!.time.getTime()).toBeLessThan(hour - HOUR); // the page covers the whole bucket
    const inBucket = trades.filter((t) => t.time.getTime() >= hour - HOUR && t.time.getTime() < hour);
    expect(prev.tradeCount).toBe(inBucket.length);
    expect(prev.baseVolume).toBeCloseTo(total(inBucket.map((t) => t.baseAmount)), 4);
    expect(prev.counterVolume).toBeCloseTo(total(inBucket.map((t) => t.counterAmount)), 4);
    expect(prev.avg).toBeCloseTo(prev.counterVolume / prev.baseVolume, 6);
    expect(prev.high).toBeCloseTo(Math.max(...inBucket.map((t) => t.price)), 6);
    expect(prev.low).toBeCloseTo(Math.min(...inBucket.map((t) => t.price)), 6);
  });

  it("rounds start up and end down to the resolution and honours order and limit", async () => {
    freezeTime();
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    const start = hour - 5 * HOUR - 1; // rounds up to hour - 5h
    const end = hour - HOUR + 1; // rounds down to hour - 1h: the bucket starting there is excluded
    const asc = await raw(sim(), `/horizon/trade_aggregations?${PAIR_QUERY}&resolution=3600000&start_time=${start}&end_time=${end}&order=asc&limit=200`);
    const ts = asc._embedded.records.map((r: { timestamp: string }) => Number(r.timestamp));
    expect(ts).toEqual([hour - 5 * HOUR, hour - 4 * HOUR, hour - 3 * HOUR, hour - 2 * HOUR]);
    const desc = await raw(sim(), `/horizon/trade_aggregations?${PAIR_QUERY}&resolution=3600000&start_time=${start}&end_time=${end}&order=desc&limit=2`);
    expect(desc._embedded.records.map((r: { timestamp: string }) => Number(r.timestamp))).toEqual([hour - 2 * HOUR, hour - 3 * HOUR]);
    expect(typeof asc._embedded.records[0].trade_count).toBe("string");
  });

  it("answers 400 like Horizon for a resolution that is not allowed", async () => {
    const res = await fetch(`${sim().url}/horizon/trade_aggregations?${PAIR_QUERY}&resolution=7200000`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ status: 400, title: "Bad Request", extras: { invalid_field: "resolution" } });
    const off = await fetch(`${sim().url}/horizon/trade_aggregations?${PAIR_QUERY}&resolution=3600000&offset=3600000`);
    expect(off.status).toBe(400);
    expect((await off.json()).extras.invalid_field).toBe("offset");
  });
});

describe("horizon adapter: ledger and fee stats", () => {
  it("reads the latest ledger: sequence every ~5.5 s, closed a few seconds ago, constant total_coins", async () => {
    const t0 = Date.now();
    freezeTime(t0);
    const a = await getLatestLedger();
    expect(Date.now() - a.closedAt.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.now() - a.closedAt.getTime()).toBeLessThanOrEqual(6_000);
    expect(a.totalCoins).toBe(105443902087.3472865);
    expect(a.baseFeeStroops).toBe(100);
    expect(a.baseReserveStroops).toBe(5_000_000);
    expect(a.feePool).toBeGreaterThan(4_000_000);
    expect(a.failedTxCount).not.toBeNull();
    expect(a.operationCount).toBeGreaterThanOrEqual(a.successfulTxCount);
    expect(a.txSetOperationCount!).toBeLessThanOrEqual(a.maxTxSetSize);
    const body = await raw(sim(), "/horizon/ledgers?order=desc&limit=1");
    expect(body._embedded.records[0].total_coins).toBe("105443902087.3472865");
    expect(body._embedded.records[0].closed_at).toMatch(/Z$/);

    freezeTime(t0 + 55_000); // ten ledgers later
    clearCache();
    const b = await getLatestLedger();
    expect(b.sequence - a.sequence).toBe(10);
  });

  it("reads fee stats (strings in stroops) into ordered numbers", async () => {
    const f = await getFeeStats();
    expect(f.lastLedgerBaseFeeStroops).toBe(100);
    expect(f.ledgerCapacityUsage).toBeGreaterThan(0);
    expect(f.ledgerCapacityUsage).toBeLessThanOrEqual(1);
    const c = f.feeCharged;
    const chain = [c.min, c.p10, c.p20, c.p30, c.p40, c.p50, c.p60, c.p70, c.p80, c.p90, c.p95, c.p99, c.max];
    for (let i = 1; i < chain.length; i++) expect(chain[i]).toBeGreaterThanOrEqual(chain[i - 1]!);
    const body = await raw(sim(), "/horizon/fee_stats");
    expect(typeof body.fee_charged.p50).toBe("string");
    expect(typeof body.ledger_capacity_usage).toBe("string");
  });
});
