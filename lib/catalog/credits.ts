/**
 * What one call costs in bundle credits (spec 8 states the bundle as "10 standard call
 * credits or 5 premium reports"; the per-product cost is ours to set). Products declare
 * their cost from here, and the bundle descriptions explain it from here.
 */
export const CREDIT_COSTS = { standard_call: 1, premium_report: 2 } as const;
