import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { arbOpportunities } from "@/lib/catalog/products/xlm/arb-opportunities";
import { resetEnvForTests } from "@/lib/config/env";
import { UnavailableError } from "@/lib/errors";
import { clearCache } from "@/lib/market/cache";
import { BINANCE_REFUSALS } from "@/lib/upstream-sim/providers/binance";
import { cloudflareRefusals } from "@/lib/upstream-sim/providers/cdn-refusals";
import { useSimulator } from "../../helpers/in-process";
import { freezeTime, raw, rawBookXlm, type RawLevelXlm } from "./raw";

const FEES = { kraken: 0.3, coinbase: 0.5, binance: 0.08 };
const SIZE = 25_000;
const { sim } = useSimulator({
  env: {
    KRAKEN_TAKER_FEE_PCT: String(FEES.kraken),
    COINBASE_TAKER_FEE_PCT: String(FEES.coinbase),
    BINANCE_TAKER_FEE_PCT: String(FEES.binance),
    ARB_TRADE_SIZE_XLM: String(SIZE),
  },
});
const run = () => runProduct(arbOpportunities, validateOrThrow(paramsSchema(arbOpportunities.params), {}, "query")) as Promise<any>;

/** Average price of taking `size` XLM from best-first levels. */
function vwap(levels: RawLevelXlm[], size: number): { price: number; filled: number } {
  let left = size;
  let cost = 0;
  for (const l of levels) {
    const take = Math.min(left, l.xlm);
    cost += take * l.price;
    left -= take;
    if (left <= 0) break;
  }
  return { price: cost / (size - left), filled: size - left };
}

async function rawTickers() {
  const k = (await raw(sim(), "/kraken/0/public/Ticker?pair=XLMUSD")).result;
  const kk = k[Object.keys(k)[0]!];
  const c = await raw(sim(), "/coinbase/products/XLM-USD/ticker");
  const b = await raw(sim(), "/binance/api/v3/ticker/bookTicker?symbol=XLMUSDT");
  return {
    kraken: { bid: Number(kk.b[0]), ask: Number(kk.a[0]) },
    coinbase: { bid: Number(c.bid), ask: Number(c.ask) },
    binance: { bid: Number(b.bidPrice), ask: Number(b.askPrice) },
  };
}

let restore: (() => Promise<void>) | null = null;
afterEach(async () => {
  await restore?.();
  restore = null;
});

describe("GET /v1/arb-opportunities", () => {
  it("computes net spreads after configured fees for both directions, recomputed from the raw book and tickers", async () => {
    freezeTime();
    const out = await run();
    const book = await rawBookXlm(sim());
    const tickers = await rawTickers();
    const buySdex = vwap(book.asks, SIZE);
    const sellSdex = vwap(book.bids, SIZE);
    expect(buySdex.filled).toBe(SIZE);
    expect(out.size_xlm).toBe(SIZE);
    expect(out.sdex.buy_vwap).toBeCloseTo(buySdex.price, 6);
    expect(out.sdex.sell_vwap).toBeCloseTo(sellSdex.price, 6);
    expect(out.opportunities).toHaveLength(6);

    const expected: Array<{ venue: string; direction: string; net: number; gross: number }> = [];
    for (const venue of ["kraken", "coinbase", "binance"] as const) {
      const t = tickers[venue];
      const fee = FEES[venue] / 100;
      expected.push({ venue, direction: "buy_sdex_sell_cex", net: ((t.bid * (1 - fee)) / buySdex.price - 1) * 100, gross: (t.bid / buySdex.price - 1) * 100 });
      expected.push({ venue, direction: "buy_cex_sell_sdex", net: (sellSdex.price / (t.ask * (1 + fee)) - 1) * 100, gross: (sellSdex.price / t.ask - 1) * 100 });
    }
    for (const e of expected) {
      const leg = out.opportunities.find((l: any) => l.venue === e.venue && l.direction === e.direction);
      expect(leg, `${e.venue} ${e.direction}`).toBeDefined();
      expect(leg.net_spread_pct).toBeCloseTo(e.net, 3);
      expect(leg.gross_spread_pct).toBeCloseTo(e.gross, 3);
      expect(leg.complete).toBe(true);
      expect(leg.go).toBe(e.net >= 0.5);
    }
    const best = expected.reduce((a, b) => (b.net > a.net ? b : a));
    expect(out.best).toMatchObject({ venue: best.venue, direction: best.direction });
    expect(out.verdict).toBe(best.net >= 0.5 ? "go" : "no_go");
    expect(out.venues.map((v: any) => [v.venue, v.status, v.taker_fee_pct])).toEqual([
      ["kraken", "ok", 0.3],
      ["coinbase", "ok", 0.5],
      ["binance", "ok", 0.08],
    ]);
    expect(out.venues[2].quote_currency).toBe("USDT");
    expect(out.unavailable).toEqual([]);
  });

  it("lists a venue that is down (Binance HTTP 451) as unavailable and scans the others", async () => {
    sim().setFault("binance", { mode: "error", status: 451 });
    const out = await run();
    expect(out.venues[2]).toMatchObject({ venue: "binance", status: "unavailable", bid: null, ask: null });
    expect(out.venues[2].error).toMatch(/451/);
    expect(out.unavailable).toHaveLength(1);
    expect(out.opportunities.map((l: any) => l.venue)).not.toContain("binance");
    expect(out.opportunities).toHaveLength(4);
  });

  it("names each venue's refusal: Binance's CloudFront region block and IP ban, Kraken's Cloudflare block", async () => {
    sim().setFault("binance", BINANCE_REFUSALS.cloudfrontRegionBlock);
    sim().setFault("kraken", cloudflareRefusals("api.kraken.com").countryBlock);
    const out = await run();
    expect(out.venues[0].error).toBe("kraken: unavailable from this server's location (HTTP 403: Cloudflare blocks this region)");
    expect(out.venues[2].error).toBe("binance: unavailable from this server's location (HTTP 403: CloudFront blocks this region)");
    expect(out.venues[1]).toMatchObject({ venue: "coinbase", status: "ok" });
    sim().clearFaults();
    clearCache();
    sim().setFault("binance", BINANCE_REFUSALS.ipBan);
    const banned = await run();
    expect(banned.venues[2].error).toBe("binance: this server's IP is banned by Binance (HTTP 418, after repeated 429s; ban lifts in 120 s)");
  });

  it("is unavailable when every CEX is down, or when the SDEX book is down", async () => {
    for (const p of ["kraken", "coinbase", "binance"]) sim().setFault(p, { mode: "error", status: 502 });
    const e1 = await run().catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(UnavailableError);
    expect((e1 as Error).message).toMatch(/no CEX ticker/);
    sim().clearFaults();
    clearCache(); // the book read in the first half is cached; the tickers must come back too
    sim().setFault("horizon", { mode: "error", status: 500 });
    const e2 = await run().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(UnavailableError);
    expect((e2 as Error).message).toMatch(/SDEX order book/);
  });

  it("says go when the SDEX asks sit 3 % under every CEX bid", async () => {
    freezeTime();
    const usd = (await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd")).stellar.usd as number;
    const lvl = (p: number, amount: number) => ({ price_r: { n: Math.round(p * 1e7), d: 1e7 }, price: p.toFixed(7), amount: amount.toFixed(7) });
    const cheap = usd * 0.97;
    const book = {
      bids: [lvl(cheap * 0.999, 50_000 * cheap * 0.999)],
      asks: [lvl(cheap, 40_000)],
      base: { asset_type: "native" },
      counter: { asset_type: "credit_alphanum4" },
    };
    const server: Server = createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(book)));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const saved = process.env.HORIZON_BASE_URL;
    process.env.HORIZON_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resetEnvForTests();
    restore = async () => {
      process.env.HORIZON_BASE_URL = saved;
      resetEnvForTests();
      await new Promise<void>((r) => server.close(() => r()));
    };
    const out = await run();
    const t = await rawTickers();
    expect(out.verdict).toBe("go");
    expect(out.best.direction).toBe("buy_sdex_sell_cex");
    const nets = (["kraken", "coinbase", "binance"] as const).map((v) => ((t[v].bid * (1 - FEES[v] / 100)) / Number(cheap.toFixed(7)) - 1) * 100);
    expect(out.best.net_spread_pct).toBeCloseTo(Math.max(...nets), 3);
    expect(out.best.net_spread_pct).toBeGreaterThan(2);
  });
});
