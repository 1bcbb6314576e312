/** Kraken and Coinbase sit behind Cloudflare: its 403 pages are named as a location block or a firewall refusal. */
import { describe, expect, it } from "vitest";
import { getKrakenTicker } from "@/lib/market/sources/kraken";
import { getCoinbaseTicker } from "@/lib/market/sources/coinbase";
import { isLocationRefusal } from "@/lib/market/sources/venue-refusals";
import { cloudflareRefusals } from "@/lib/upstream-sim/providers/cdn-refusals";
import { useSimulator } from "../helpers/in-process";

const { sim } = useSimulator();

describe.each([
  { provider: "kraken", venue: "Kraken", host: "api.kraken.com", read: () => getKrakenTicker() },
  { provider: "coinbase", venue: "Coinbase", host: "api.exchange.coinbase.com", read: () => getCoinbaseTicker() },
])("$venue refusals over HTTP against the simulator", ({ provider, venue, host, read }) => {
  it("names Cloudflare's country block (403, error 1009) as unavailable from this location", async () => {
    sim().setFault(provider, cloudflareRefusals(host).countryBlock);
    const err = await read().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "UpstreamError", provider, kind: "http", status: 403 });
    expect((err as { note: string }).note).toBe("unavailable from this server's location (HTTP 403: Cloudflare blocks this region)");
    expect(isLocationRefusal(err)).toBe(true);
  });

  it("names another Cloudflare 403 (error 1020) as a firewall refusal", async () => {
    sim().setFault(provider, cloudflareRefusals(host).firewallBlock);
    const err = await read().catch((e: unknown) => e);
    expect((err as { note: string }).note).toBe(`refused by ${venue}'s firewall (HTTP 403 from Cloudflare: this server's IP or region is blocked)`);
    expect(isLocationRefusal(err)).toBe(false);
  });
});
