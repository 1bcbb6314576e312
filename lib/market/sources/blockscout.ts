/**
 * Blockscout (Base) address counters, keyless: `/api/v2/addresses/{addr}/counters`
 * answers `{transactions_count, token_transfers_count, gas_usage_count,
 * validations_count}` as decimal strings. The endpoint is marked "to be deprecated in
 * favour of PRO API" upstream, so callers treat it as optional.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, type Provider } from "@/lib/market/upstream";

export const blockscout: Provider = { name: "blockscout", baseUrl: () => env().BLOCKSCOUT_BASE_URL };

/** A count string; missing or null stays null (unknown). */
const count = z
  .union([z.string().regex(/^\d+$/), z.number().int().nonnegative()])
  .nullable()
  .optional()
  .transform((v) => (v === null || v === undefined ? null : Number(v)));

/** A count that must be present (a body without it is a changed format). */
const requiredCount = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(Number);

const Counters = z.object({
  transactions_count: requiredCount,
  token_transfers_count: requiredCount,
  gas_usage_count: count,
  validations_count: count,
});
export type AddressCounters = z.infer<typeof Counters>;

/** Activity counters of a Base address (transactions include incoming ones). */
export async function addressCounters(address: string): Promise<AddressCounters> {
  const a = address.toLowerCase();
  return cached(`blockscout:counters:${a}`, 60_000, () => fetchJson(blockscout, `/api/v2/addresses/${a}/counters`, {}, Counters));
}
