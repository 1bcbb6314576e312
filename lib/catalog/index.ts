/**
 * The catalog: every product the service sells, in the order surfaces list them.
 * Routes, MCP tools, discovery documents and pages are generated from this list.
 */
import type { AnyProduct } from "@/lib/catalog/types";
import { fng } from "@/lib/catalog/products/fng";

export const PRODUCTS: readonly AnyProduct[] = [fng];

const byPath = new Map(PRODUCTS.map((p) => [p.path, p]));
const byTool = new Map(PRODUCTS.filter((p) => p.tool).map((p) => [p.tool!.name, p]));

export function productByPath(path: string): AnyProduct | undefined {
  return byPath.get(path);
}

export function productByTool(name: string): AnyProduct | undefined {
  return byTool.get(name);
}
