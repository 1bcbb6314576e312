/**
 * Which price each agent surface charges. HTTP and MCP have their own declarations
 * (spec 4.1 vs 4.5); A2A skills are priced like the HTTP path of the same product,
 * because every product has an HTTP price while only some have an MCP tool. A2A calls
 * are still recorded as surface "a2a" (ledger, audit rows, log lines): only the price
 * is borrowed.
 */
import type { Surface } from "@/lib/access/credentials";

/** The surfaces that declare prices of their own. */
export type PriceSurface = "http" | "mcp";

export const A2A_PRICE_SURFACE = "http" as const satisfies PriceSurface;

/** What each price declaration is called in documents ("HTTP price", spec 4.1). */
const PRICE_NAMES: Record<PriceSurface, string> = { http: "HTTP price", mcp: "MCP tool price" };

/** The name of the price A2A skills cost ("HTTP price"), for the card and the A2A description. */
export const A2A_PRICE_NAME = PRICE_NAMES[A2A_PRICE_SURFACE];

/** The declaration whose price a call on `surface` pays. */
export function priceSurfaceOf(surface: Surface): PriceSurface {
  return surface === "a2a" ? A2A_PRICE_SURFACE : surface;
}
