/**
 * Simulated Kraken `/0/public/Ticker?pair=XLMUSD` in the real wire format: every value
 * a string, the pair renamed to XXLMZUSD in `result`, API errors inside a 200 body,
 * `o` = today's open at 00:00 UTC.
 */
import { volume24hUsd, priceAt } from "@/lib/upstream-sim/world";
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { venueMidAt, venueQuote, venueRange } from "@/lib/upstream-sim/providers/xlm-venues";

const DAY = 86_400_000;
/** Accepted pair spellings → the name Kraken returns in `result`. */
const PAIRS: Record<string, string> = { XLMUSD: "XXLMZUSD", XXLMZUSD: "XXLMZUSD" };
/** Kraken's share of global XLM volume in the simulation. */
const VOLUME_SHARE = 0.035;

export const krakenSim: SimProvider = {
  name: "kraken",
  envVar: "KRAKEN_BASE_URL",
  handle(req, world) {
    if (req.path !== "/0/public/Ticker") return null;
    const requested = (req.query.get("pair") ?? "").toUpperCase();
    if (!requested) return { body: { error: ["EGeneral:Invalid arguments"] } };
    const name = PAIRS[requested];
    if (!name) return { body: { error: ["EQuery:Unknown asset pair"] } };

    const now = req.now;
    const dp = 6;
    const fx = (x: number) => x.toFixed(dp);
    const q = venueQuote(world, "kraken", now);
    const dayStart = Math.floor(now / DAY) * DAY;
    const r = world.rand(`kraken:ticker:${Math.floor(now / 5_000)}`);
    const vol24 = (volume24hUsd(world, "stellar", now) * VOLUME_SHARE) / priceAt(world, "stellar", now);
    const volToday = vol24 * ((now - dayStart) / DAY) * (0.8 + r() * 0.4);
    const today = venueRange(world, "kraken", dayStart, now);
    const last24 = venueRange(world, "kraken", now - DAY, now);
    const vwapToday = (today.high + today.low + q.last) / 3;
    const vwap24 = (last24.high + last24.low + q.last) / 3;
    const trades24 = Math.round(vol24 / 2_600);
    const tradesToday = Math.round(trades24 * ((now - dayStart) / DAY));
    const lot = (x: number) => [String(Math.max(1, Math.round(x))), x.toFixed(3)];
    const askLot = 500 + r() * 40_000;
    const bidLot = 500 + r() * 40_000;
    return {
      body: {
        error: [],
        result: {
          [name]: {
            a: [fx(q.ask), ...lot(askLot)],
            b: [fx(q.bid), ...lot(bidLot)],
            c: [fx(q.last), (20 + r() * 5_000).toFixed(8)],
            v: [volToday.toFixed(8), vol24.toFixed(8)],
            p: [vwapToday.toFixed(8), vwap24.toFixed(8)],
            t: [tradesToday, trades24],
            l: [fx(Math.min(today.low, q.bid)), fx(Math.min(last24.low, q.bid))],
            h: [fx(Math.max(today.high, q.ask)), fx(Math.max(last24.high, q.ask))],
            o: fx(venueMidAt(world, "kraken", dayStart)),
          },
        },
      },
    };
  },
};
