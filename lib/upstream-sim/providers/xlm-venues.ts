/**
 * Where each simulated XLM venue quotes relative to the world price: a small fixed
 * offset per venue, a few basis points of noise refreshed every 5 seconds and a
 * venue-typical spread, rounded to the venue's tick. Shared by the Kraken, Coinbase
 * and Binance simulators so the CEX tickers agree with the world (and with the SDEX
 * book) the way real venues agree within a few basis points.
 */
import { gaussian, priceAt, type World } from "@/lib/upstream-sim/world";

export type CexVenue = "kraken" | "coinbase" | "binance";

interface VenueModel {
  /** Persistent premium over the world price, basis points. */
  offsetBp: number;
  /** Spread range, basis points. */
  spreadBp: [number, number];
  /** Decimal places of the price tick. */
  tickDp: number;
}

const MODELS: Record<CexVenue, VenueModel> = {
  kraken: { offsetBp: 2, spreadBp: [2, 6], tickDp: 6 },
  coinbase: { offsetBp: -1.5, spreadBp: [1, 4], tickDp: 6 },
  // XLMUSDT ticks at 0.0001 USDT: coarse, so the spread is often a single tick.
  binance: { offsetBp: 0.5, spreadBp: [1, 3], tickDp: 4 },
};

export interface VenueQuote {
  bid: number;
  ask: number;
  /** Last trade price, between bid and ask. */
  last: number;
  tickDp: number;
}

/**
 * Bid/ask/last for a venue at time `t` (ms). Binance quotes in USDT, so its prices are
 * divided by the world's USDT price.
 */
export function venueQuote(world: World, venue: CexVenue, t: number): VenueQuote {
  const m = MODELS[venue];
  const r = world.rand(`${venue}:quote:${Math.floor(t / 5_000)}`);
  const usd = priceAt(world, "stellar", t);
  const quoteUsd = venue === "binance" ? priceAt(world, "tether", t) : 1;
  const mid = (usd / quoteUsd) * (1 + (m.offsetBp + gaussian(r) * 2.5) / 10_000);
  const spreadBp = m.spreadBp[0] + r() * (m.spreadBp[1] - m.spreadBp[0]);
  const tick = 10 ** -m.tickDp;
  const bid = floorTo(mid * (1 - spreadBp / 20_000), m.tickDp);
  const ask = Math.max(ceilTo(mid * (1 + spreadBp / 20_000), m.tickDp), bid + tick);
  const last = roundTo(bid + (ask - bid) * r(), m.tickDp);
  return { bid, ask: roundTo(ask, m.tickDp), last, tickDp: m.tickDp };
}

/** Venue price (mid of the venue's quote) at a past time, for opens/highs/lows. */
export function venueMidAt(world: World, venue: CexVenue, t: number): number {
  const q = venueQuote(world, venue, t);
  return (q.bid + q.ask) / 2;
}

/** High and low of a venue's mid over [from, to], sampled hourly plus both ends. */
export function venueRange(world: World, venue: CexVenue, from: number, to: number): { high: number; low: number } {
  let high = -Infinity;
  let low = Infinity;
  const samples = [from, to];
  for (let t = Math.ceil(from / 3_600_000) * 3_600_000; t < to; t += 3_600_000) samples.push(t);
  for (const t of samples) {
    const p = venueMidAt(world, venue, t);
    high = Math.max(high, p);
    low = Math.min(low, p);
  }
  return { high, low };
}

export function roundTo(x: number, dp: number): number {
  return Number(x.toFixed(dp));
}
function floorTo(x: number, dp: number): number {
  return Math.floor(x * 10 ** dp + 1e-9) / 10 ** dp;
}
function ceilTo(x: number, dp: number): number {
  return Math.ceil(x * 10 ** dp - 1e-9) / 10 ** dp;
}
