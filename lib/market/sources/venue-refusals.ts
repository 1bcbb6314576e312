/**
 * How exchanges refuse a server, named so a caller knows what happened: a location
 * block (HTTP 451, or a 403 from the CDN's geo restriction), a firewall block (another
 * 403) or an IP ban (Binance's 418 after ignored 429s). The CDN pages are HTML; only
 * their wording tells a region block from a WAF rule.
 */
import { UpstreamError } from "@/lib/market/upstream";

/** Every location refusal's note starts with this. */
export const LOCATION_NOTE = "unavailable from this server's location";

/** CloudFront: "configured to block access from your country"; Cloudflare 1009: "banned the country or region". */
const GEO_WORDING = /\b(country|countries|region|jurisdiction|location)\b/i;

const seconds = (ms: number | undefined) => (ms === undefined ? "" : `, retry after ${Math.ceil(ms / 1000)} s`);

/** Names a venue's 451 and 403 answers (`cdn` is the edge that answers them). */
export function cdnRefusal(venue: string, cdn: string) {
  return (status: number, body: string, retryAfterMs?: number): string | undefined => {
    if (status === 451) return `${LOCATION_NOTE} (HTTP 451 restricted location)`;
    if (status !== 403) return undefined;
    if (GEO_WORDING.test(body)) return `${LOCATION_NOTE} (HTTP 403: ${cdn} blocks this region)`;
    return `refused by ${venue}'s firewall (HTTP 403 from ${cdn}: this server's IP or region is blocked${seconds(retryAfterMs)})`;
  };
}

/** The venue refuses this server's location (451, or a CDN geo block). */
export function isLocationRefusal(err: unknown): boolean {
  return err instanceof UpstreamError && err.note?.startsWith(LOCATION_NOTE) === true;
}
