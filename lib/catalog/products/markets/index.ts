/** Catalog entries of the markets family, in listing order. */
import type { AnyProduct } from "@/lib/catalog/types";
import { multiAsset } from "@/lib/catalog/products/markets/multi-asset";
import { screen } from "@/lib/catalog/products/markets/screen";
import { breadth } from "@/lib/catalog/products/markets/breadth";
import { topMoversProduct } from "@/lib/catalog/products/markets/top-movers";
import { btcQuote } from "@/lib/catalog/products/markets/btc-quote";
import { globalMarketProduct } from "@/lib/catalog/products/markets/global-market";

export const MARKET_PRODUCTS: AnyProduct[] = [multiAsset, screen, breadth, topMoversProduct, btcQuote, globalMarketProduct];
