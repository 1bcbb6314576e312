/**
 * The A2A skills: one per catalog product (skill id = product id) plus the two free MCP
 * tools (skill id = tool name). The agent card and the executor both read this list, so
 * a skill is callable exactly when the card names it.
 */
import { PRODUCTS } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import { FREE_TOOLS } from "@/lib/catalog/free";

export type A2aSkill = { id: string; free: true; tool: string } | { id: string; free: false; product: AnyProduct };

let skills: readonly A2aSkill[] | undefined;

/** Free skills first, then the catalog's products in catalog order. */
export function a2aSkills(): readonly A2aSkill[] {
  skills ??= [
    ...Object.values(FREE_TOOLS).map((tool): A2aSkill => ({ id: tool, free: true, tool })),
    ...PRODUCTS.map((product): A2aSkill => ({ id: product.id, free: false, product })),
  ];
  return skills;
}

export function a2aSkill(id: string): A2aSkill | undefined {
  return a2aSkills().find((s) => s.id === id);
}
