/**
 * Cloudflare's refusal pages as exchanges fronted by it (Kraken, Coinbase) serve them to
 * a blocked server, for `sim.setFault(provider, ...)`: error 1009 when the site bans the
 * server's country or region, error 1020 when a firewall rule blocks the IP.
 */
import type { Fault } from "@/lib/upstream-sim/provider";

const page = (host: string, code: number, text: string) =>
  `<!DOCTYPE html><html lang="en-US"><head><title>Access denied | ${host} used Cloudflare to restrict access</title></head><body><div id="cf-wrapper"><h1><span>Error</span><span>${code}</span></h1><h2>Access denied</h2><p>${text}</p><p>Cloudflare Ray ID: <strong>8f2c1a7b9d3e4f10</strong></p></div></body></html>`;

export function cloudflareRefusals(host: string) {
  const headers = { "Content-Type": "text/html; charset=UTF-8", Server: "cloudflare", "CF-RAY": "8f2c1a7b9d3e4f10-FRA" };
  return {
    countryBlock: {
      mode: "error",
      status: 403,
      headers,
      body: page(host, 1009, `The owner of this website (${host}) has banned the country or region your IP address is in (XX) from accessing this website.`),
    },
    firewallBlock: {
      mode: "error",
      status: 403,
      headers,
      body: page(host, 1020, `This website is using a security service to protect itself from online attacks. The owner of this website (${host}) has banned your access based on your browser's signature.`),
    },
  } satisfies Record<string, Fault>;
}
