/**
 * The SDEX XLM/USDC order book in consistent units: Horizon's raw levels (bid amounts
 * in USDC, ask amounts in XLM) normalised to XLM on both sides, its top-of-book
 * snapshot and the order-flow imbalance. Shared by every XLM product so the book is
 * read and interpreted in exactly one way.
 */
import { getXlmUsdcOrderBook, horizon } from "@/lib/market/sources/horizon";
import { upstreamFailure } from "@/lib/market/upstream";
import { bookSnapshot, normalizeHorizonBook, orderFlowImbalance, type Book, type BookSnapshot } from "@/lib/market/signals/orderbook";

/** Levels per side read from Horizon (the prototype's depth window). */
export const SDEX_BOOK_LEVELS = 20;

export interface SdexBook {
  book: Book;
  snapshot: BookSnapshot;
  /** (bid depth − ask depth) / total, both in XLM, in [−1, 1]. */
  imbalance: number;
}

/** Current SDEX XLM/USDC book; an empty side is an upstream failure (no mid exists). */
export async function sdexBook(): Promise<SdexBook> {
  const raw = await getXlmUsdcOrderBook(SDEX_BOOK_LEVELS);
  const book = normalizeHorizonBook(raw.bids, raw.asks);
  const snapshot = bookSnapshot(book);
  const imbalance = orderFlowImbalance(book);
  if (!snapshot || imbalance === null) upstreamFailure(horizon, "XLM/USDC order book has an empty side");
  return { book, snapshot, imbalance };
}
