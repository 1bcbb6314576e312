/**
 * Which price each agent surface charges. HTTP and MCP have their own declarations
 * (spec 4.1 vs 4.5); A2A skills are priced like the HTTP path of the same product,
 * because every product has an HTTP price while only some have an MCP tool.
 */
export const A2A_PRICE_SURFACE = "http" as const;
