/**
 * alternative.me Fear & Greed index (keyless). Values and timestamps arrive as strings;
 * data[0] is the newest entry. The index updates daily, so it is cached for an hour.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, upstreamFailure, type Provider } from "@/lib/market/upstream";

export const alternativeMe: Provider = { name: "alternative", baseUrl: () => env().FNG_BASE_URL };

const numericString = z.string().regex(/^\d+(\.\d+)?$/).transform(Number);

const FngResponse = z.object({
  name: z.string().optional(),
  data: z
    .array(
      z.object({
        value: numericString.pipe(z.number().min(0).max(100)),
        value_classification: z.string().min(1),
        timestamp: numericString,
        time_until_update: z.string().optional(),
      }),
    )
    .min(1),
  metadata: z.object({ error: z.string().nullable() }).optional(),
});

export interface FngPoint {
  value: number;
  label: string;
  /** Start of the day the value belongs to. */
  time: Date;
}

/** Newest-first daily Fear & Greed values (at most `limit`). */
export async function getFearGreed(limit = 31): Promise<FngPoint[]> {
  return cached(`fng:${limit}`, 3_600_000, async () => {
    const res = await fetchJson(alternativeMe, "/fng/", { limit, format: "json" }, FngResponse);
    if (res.metadata?.error) upstreamFailure(alternativeMe, `API error: ${res.metadata.error}`);
    return res.data.map((d) => ({ value: d.value, label: d.value_classification, time: new Date(d.timestamp * 1000) }));
  });
}
