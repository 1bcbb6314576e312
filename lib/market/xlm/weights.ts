/**
 * Composite sentiment weights from the SENTIMENT_WEIGHTS setting. A bad setting must not
 * skew every score quietly: the first use throws an error naming the setting, the
 * problem and the expected form (the service answers 500 and logs it).
 */
import { env } from "@/lib/config/env";
import { parseWeights, type Weights } from "@/lib/market/signals/sentiment";

let memo: { spec: string | undefined; weights: Weights } | null = null;

/** Normalised weights (sum 1) for fear_greed, order_flow and momentum. */
export function sentimentWeights(): Weights {
  const spec = env().SENTIMENT_WEIGHTS;
  if (memo && memo.spec === spec) return memo.weights;
  let weights: Weights;
  try {
    weights = parseWeights(spec);
  } catch (err) {
    throw new Error(
      `invalid SENTIMENT_WEIGHTS setting ${JSON.stringify(spec)}: ${(err as Error).message} ` +
        "(expected e.g. fear_greed=0.4,order_flow=0.3,momentum=0.3)",
    );
  }
  memo = { spec, weights };
  return weights;
}
