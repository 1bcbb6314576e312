/**
 * Simulated Coinbase Exchange `/products/{id}/ticker` and `/products/{id}/stats` in the
 * real wire format (decimal strings, numeric trade_id, RFC 3339 time with microseconds,
 * `{message}` errors).
 */
import { priceAt, volume24hUsd } from "@/lib/upstream-sim/world";
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { venueMidAt, venueQuote, venueRange } from "@/lib/upstream-sim/providers/xlm-venues";

const DAY = 86_400_000;
const VOLUME_SHARE = 0.06;

function micros(t: number): string {
  // Coinbase prints microseconds: 2025-01-02T03:04:05.123456Z
  const extra = String((t * 7) % 1000).padStart(3, "0");
  return new Date(t).toISOString().replace(/Z$/, `${extra}Z`);
}

export const coinbaseSim: SimProvider = {
  name: "coinbase",
  envVar: "COINBASE_BASE_URL",
  handle(req, world) {
    const m = req.path.match(/^\/products\/([^/]+)\/(ticker|stats)$/);
    if (!m) return null;
    const product = decodeURIComponent(m[1]!).toUpperCase();
    if (product !== "XLM-USD") return { status: 404, body: { message: "NotFound" } };
    const now = req.now;
    const q = venueQuote(world, "coinbase", now);
    const fx = (x: number) => x.toFixed(q.tickDp);
    const vol24 = (volume24hUsd(world, "stellar", now) * VOLUME_SHARE) / priceAt(world, "stellar", now);
    const r = world.rand(`coinbase:ticker:${Math.floor(now / 5_000)}`);
    if (m[2] === "ticker") {
      return {
        body: {
          ask: fx(q.ask),
          bid: fx(q.bid),
          volume: vol24.toFixed(8),
          trade_id: 60_000_000 + Math.floor((now - world.originHour) / 2_000) + Math.floor(r() * 3),
          price: fx(q.last),
          size: (10 + r() * 8_000).toFixed(8),
          time: micros(now - Math.floor(r() * 4_000)),
          rfq_volume: "0.000000",
        },
      };
    }
    const range = venueRange(world, "coinbase", now - DAY, now);
    return {
      body: {
        open: fx(venueMidAt(world, "coinbase", now - DAY)),
        high: fx(Math.max(range.high, q.ask)),
        low: fx(Math.min(range.low, q.bid)),
        last: fx(q.last),
        volume: vol24.toFixed(8),
        volume_30day: (vol24 * 30 * (0.85 + r() * 0.3)).toFixed(8),
        rfq_volume_24hour: "0.000000",
        conversions_volume_24hour: "0.000000",
        rfq_volume_30day: "0.000000",
        conversions_volume_30day: "0.000000",
      },
    };
  },
};
