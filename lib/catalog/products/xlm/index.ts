/** Catalog entries of the xlm family, in listing order. */
import type { AnyProduct } from "@/lib/catalog/types";
import { sentiment } from "@/lib/catalog/products/xlm/sentiment";
import { quote } from "@/lib/catalog/products/xlm/quote";
import { sentimentReport } from "@/lib/catalog/products/xlm/sentiment-report";
import { sentimentHistory } from "@/lib/catalog/products/xlm/sentiment-history";
import { xlmNetwork } from "@/lib/catalog/products/xlm/xlm-network";
import { arbOpportunities } from "@/lib/catalog/products/xlm/arb-opportunities";

export const XLM_PRODUCTS: AnyProduct[] = [sentiment, quote, sentimentReport, sentimentHistory, xlmNetwork, arbOpportunities];
