/**
 * Simulated Binance spot `/api/v3/ticker/bookTicker` and `/api/v3/ticker/24hr` for
 * XLMUSDT in the real wire format: prices in USDT as 8-decimal strings on a 0.0001
 * tick, `{code,msg}` errors with HTTP 400. (HTTP 451 for restricted locations is
 * injected with the simulator's fault control.)
 */
import { priceAt, volume24hUsd } from "@/lib/upstream-sim/world";
import type { SimProvider } from "@/lib/upstream-sim/server";
import { venueMidAt, venueQuote, venueRange } from "@/lib/upstream-sim/providers/xlm-venues";

const DAY = 86_400_000;
const VOLUME_SHARE = 0.2;

export const binanceSim: SimProvider = {
  name: "binance",
  envVar: "BINANCE_BASE_URL",
  handle(req, world) {
    const kind = req.path === "/api/v3/ticker/bookTicker" ? "book" : req.path === "/api/v3/ticker/24hr" ? "24h" : null;
    if (!kind) return null;
    const symbol = req.query.get("symbol");
    if (!symbol) return { status: 400, body: { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." } };
    if (symbol !== "XLMUSDT") return { status: 400, body: { code: -1121, msg: "Invalid symbol." } };
    const now = req.now;
    const q = venueQuote(world, "binance", now);
    const p8 = (x: number) => x.toFixed(8);
    const r = world.rand(`binance:ticker:${Math.floor(now / 5_000)}`);
    const bidQty = p8(Math.round(2_000 + r() * 150_000));
    const askQty = p8(Math.round(2_000 + r() * 150_000));
    if (kind === "book") {
      return { body: { symbol, bidPrice: p8(q.bid), bidQty, askPrice: p8(q.ask), askQty } };
    }
    const open = Number(venueMidAt(world, "binance", now - DAY).toFixed(4));
    const range = venueRange(world, "binance", now - DAY, now);
    const volume = (volume24hUsd(world, "stellar", now) * VOLUME_SHARE) / priceAt(world, "stellar", now);
    const vwap = (range.high + range.low + q.last) / 3;
    const firstId = 180_000_000 + Math.floor((now - DAY - world.originHour) / 900);
    const count = Math.round(volume / 1_900);
    return {
      body: {
        symbol,
        priceChange: p8(q.last - open),
        priceChangePercent: (((q.last - open) / open) * 100).toFixed(3),
        weightedAvgPrice: p8(vwap),
        prevClosePrice: p8(venueMidAt(world, "binance", now - DAY - 60_000)),
        lastPrice: p8(q.last),
        lastQty: p8(Math.round(10 + r() * 20_000)),
        bidPrice: p8(q.bid),
        bidQty,
        askPrice: p8(q.ask),
        askQty,
        openPrice: p8(open),
        highPrice: p8(Math.max(range.high, q.ask)),
        lowPrice: p8(Math.min(range.low, q.bid)),
        volume: p8(Math.round(volume)),
        quoteVolume: p8(volume * vwap),
        openTime: now - DAY,
        closeTime: now,
        firstId,
        lastId: firstId + count - 1,
        count,
      },
    };
  },
};
