/** Catalog entries of the onchain family, in listing order. */
import type { AnyProduct } from "@/lib/catalog/types";
import { ethGas } from "@/lib/catalog/products/onchain/eth-gas";
import { baseGas } from "@/lib/catalog/products/onchain/gas";
import { prediction } from "@/lib/catalog/products/onchain/prediction";
import { wallet } from "@/lib/catalog/products/onchain/wallet";
import { tokenSafety } from "@/lib/catalog/products/onchain/token-safety";
import { whaleFlowProduct } from "@/lib/catalog/products/onchain/whale-flow";

export const ONCHAIN_PRODUCTS: AnyProduct[] = [ethGas, baseGas, prediction, wallet, tokenSafety, whaleFlowProduct];
