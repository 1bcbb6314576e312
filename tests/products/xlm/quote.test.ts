import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { paramsSchema } from "@/lib/catalog/params";
import { runProduct } from "@/lib/catalog/run";
import { validateOrThrow } from "@/lib/catalog/validate";
import { quote } from "@/lib/catalog/products/xlm/quote";
import { resetEnvForTests } from "@/lib/config/env";
import { UnavailableError } from "@/lib/errors";
import { useSimulator } from "../../helpers/in-process";
import { freezeTime, raw, rawBookXlm, total } from "./raw";

const { sim } = useSimulator();
const run = () => runProduct(quote, validateOrThrow(paramsSchema(quote.params), {}, "query")) as Promise<any>;

/** A Horizon stand-in serving one fixed order book, to pin the units down exactly. */
async function fixedHorizon(book: unknown): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (!req.url?.startsWith("/order_book")) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(book));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let restore: (() => Promise<void>) | null = null;
afterEach(async () => {
  await restore?.();
  restore = null;
});

describe("GET /v1/quote", () => {
  it("converts bid amounts from USDC to XLM: 93.1 USDC at 0.931 is 100 XLM", async () => {
    const level = (price: string, amount: string, n: number, d: number) => ({ price_r: { n, d }, price, amount });
    const { url, server } = await fixedHorizon({
      bids: [level("0.9310000", "93.1000000", 931, 1000), level("0.9300000", "186.0000000", 93, 100)],
      asks: [level("0.9320000", "100.0000000", 233, 250), level("0.9330000", "50.0000000", 933, 1000)],
      base: { asset_type: "native" },
      counter: { asset_type: "credit_alphanum4", asset_code: "USDC", asset_issuer: "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN" },
    });
    const saved = process.env.HORIZON_BASE_URL;
    process.env.HORIZON_BASE_URL = url;
    resetEnvForTests();
    restore = async () => {
      process.env.HORIZON_BASE_URL = saved;
      resetEnvForTests();
      await new Promise<void>((r) => server.close(() => r()));
    };
    const out = await run();
    expect(out.sdex).toMatchObject({
      best_bid: 0.931,
      best_ask: 0.932,
      mid: 0.9315,
      bid_depth_xlm: 300, // 93.1 / 0.931 + 186 / 0.93
      ask_depth_xlm: 150, // ask amounts are already XLM
      bid_depth_usd: 279.1,
      ask_depth_usd: 139.85,
      bid_levels: 2,
      ask_levels: 2,
      levels: 4,
      crossed: false,
    });
    expect(out.sdex.imbalance).toBeCloseTo(1 / 3, 4); // summing raw amounts would give (279.1-150)/429.1
    expect(out.sdex.spread_pct).toBeCloseTo((0.001 / 0.9315) * 100, 4);
  });

  it("reports price, 24h change, XLM/BTC and the simulated book, recomputed from the raw responses", async () => {
    freezeTime();
    const out = await run();
    const book = await rawBookXlm(sim());
    const cg = (await raw(sim(), "/coingecko/api/v3/simple/price?ids=stellar&vs_currencies=usd,btc&include_24hr_change=true")).stellar;
    const bid = book.bids[0]!.price;
    const ask = book.asks[0]!.price;
    const mid = (bid + ask) / 2;
    const bx = total(book.bids.map((l) => l.xlm));
    const ax = total(book.asks.map((l) => l.xlm));
    expect(out.price_usd).toBeCloseTo(cg.usd, 6);
    expect(out.price_source).toBe("coingecko");
    expect(out.change_24h_pct).toBeCloseTo(cg.usd_24h_change, 4);
    expect(out.xlm_btc).toBeCloseTo(cg.btc, 10);
    expect(out.sdex.best_bid).toBe(bid);
    expect(out.sdex.best_ask).toBe(ask);
    expect(out.sdex.mid).toBeCloseTo(mid, 6);
    expect(out.sdex.spread_pct).toBeCloseTo(((ask - bid) / mid) * 100, 4);
    expect(out.sdex.bid_depth_xlm).toBeCloseTo(bx, 1);
    expect(out.sdex.ask_depth_xlm).toBeCloseTo(ax, 1);
    expect(out.sdex.bid_depth_usd).toBeCloseTo(total(book.bids.map((l) => l.xlm * l.price)), 1);
    expect(out.sdex.ask_depth_usd).toBeCloseTo(total(book.asks.map((l) => l.xlm * l.price)), 1);
    expect(out.sdex.levels).toBe(40);
    expect(out.sdex.imbalance).toBeCloseTo((bx - ax) / (bx + ax), 4);
    expect(out.sdex_premium_pct).toBeCloseTo((mid / cg.usd - 1) * 100, 3);
    expect(out).toMatchObject({ degraded: false, unavailable: [] });
  });

  it("falls back to the SDEX mid when CoinGecko is down and says so", async () => {
    freezeTime();
    sim().setFault("coingecko", { mode: "error", status: 500 });
    const out = await run();
    const book = await rawBookXlm(sim());
    expect(out.price_source).toBe("sdex_mid");
    expect(out.price_usd).toBeCloseTo((book.bids[0]!.price + book.asks[0]!.price) / 2, 6);
    expect(out).toMatchObject({ change_24h_pct: null, xlm_btc: null, sdex_premium_pct: null, degraded: true, unavailable: ["coingecko: HTTP 500"] });
  });

  it("is unavailable without the SDEX order book", async () => {
    sim().setFault("horizon", { mode: "not_json" });
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toMatch(/order book.*horizon: unexpected response format/);
  });
});
