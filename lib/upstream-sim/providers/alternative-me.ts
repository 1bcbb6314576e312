/** Simulated alternative.me: `/fng/?limit=N` in the real wire format (strings, newest first). */
import { fngAt } from "@/lib/upstream-sim/world";
import type { SimProvider } from "@/lib/upstream-sim/provider";

const DAY = 86_400_000;

/** Classification bands as alternative.me labels them. */
export function fngClassification(v: number): string {
  if (v <= 24) return "Extreme Fear";
  if (v <= 46) return "Fear";
  if (v <= 54) return "Neutral";
  if (v <= 75) return "Greed";
  return "Extreme Greed";
}

export const alternativeMeSim: SimProvider = {
  name: "alternative",
  envVar: "FNG_BASE_URL",
  handle(req, world) {
    if (req.path !== "/fng" && req.path !== "/fng/") return null;
    const raw = Number(req.query.get("limit") ?? "1");
    const limit = raw === 0 ? world.fng.length : Math.max(1, Math.min(raw || 1, world.fng.length));
    const today = Math.floor(req.now / DAY) * DAY;
    const data = Array.from({ length: limit }, (_, i) => {
      const v = fngAt(world, i);
      return {
        value: String(v),
        value_classification: fngClassification(v),
        timestamp: String((today - i * DAY) / 1000),
        ...(i === 0 ? { time_until_update: String(Math.floor((today + DAY - req.now) / 1000)) } : {}),
      };
    });
    return { body: { name: "Fear and Greed Index", data, metadata: { error: null } } };
  },
};
