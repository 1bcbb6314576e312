import { describe, expect, it } from "vitest";
import { ONCHAIN_PRODUCTS } from "@/lib/catalog/products/onchain";
import { toolTitle } from "@/lib/catalog/types";

describe("onchain family catalog facts", () => {
  it("lists the six products in order with the spec's prices, tools ($0.02 titles) and credits", () => {
    expect(
      ONCHAIN_PRODUCTS.map((p) => ({ id: p.id, path: p.path, http: p.httpPrice, tool: p.tool && { name: p.tool.name, price: p.tool.price, title: toolTitle(p.tool) }, credits: p.credits, free: p.freeTier, kind: p.kind })),
    ).toEqual([
      { id: "eth-gas", path: "/v1/eth-gas", http: "0.005", tool: null, credits: 1, free: true, kind: "data" },
      { id: "gas", path: "/v1/gas", http: "0.02", tool: { name: "get_base_gas_oracle", price: "0.02", title: "Base gas oracle ($0.02)" }, credits: 1, free: true, kind: "data" },
      { id: "prediction", path: "/v1/prediction", http: "0.02", tool: { name: "get_prediction_market_pulse", price: "0.02", title: "Prediction market pulse ($0.02)" }, credits: 1, free: true, kind: "data" },
      { id: "wallet", path: "/v1/wallet", http: "0.02", tool: { name: "get_base_wallet_intel", price: "0.02", title: "Base wallet intel ($0.02)" }, credits: 1, free: true, kind: "data" },
      { id: "token-safety", path: "/v1/token-safety", http: "0.02", tool: { name: "check_token_safety", price: "0.02", title: "Token safety check ($0.02)" }, credits: 1, free: true, kind: "data" },
      { id: "whale-flow", path: "/v1/whale-flow", http: "0.02", tool: { name: "get_whale_flow", price: "0.02", title: "Whale flow ($0.02)" }, credits: 1, free: true, kind: "data" },
    ]);
    // Spec 4.5: three titles used to say 0.10 although the price is 0.02.
    for (const p of ONCHAIN_PRODUCTS) if (p.tool) expect(toolTitle(p.tool)).toBe(`${p.title} ($${p.tool.price})`);
  });

  it("declares the parameters of spec 4.1/4.5 with their defaults and allowed values", () => {
    const byId = Object.fromEntries(ONCHAIN_PRODUCTS.map((p) => [p.id, p]));
    expect(Object.keys(byId["eth-gas"]!.params)).toEqual([]);
    expect(Object.keys(byId.gas!.params)).toEqual([]);
    expect(byId.prediction!.params.limit.doc).toMatchObject({ type: "integer", default: 10, minimum: 1, maximum: 50, required: false });
    expect(byId.wallet!.params.address.doc).toMatchObject({ type: "string", required: true, pattern: "^0x[0-9a-fA-F]{40}$" });
    expect(byId["token-safety"]!.params.chain.doc).toMatchObject({ default: "base", enum: ["base", "eth", "bsc", "polygon", "arbitrum", "optimism", "avalanche", "solana"] });
    expect(byId["token-safety"]!.params.address.doc.required).toBe(true);
    expect(byId["whale-flow"]!.params.chain.doc).toMatchObject({ default: "base", enum: ["base", "solana", "ethereum", "bsc", "polygon", "arbitrum", "optimism", "avalanche"] });
    expect(byId["whale-flow"]!.params.token.doc.required).toBe(true);
  });

  it("names its upstream sources and caches briefly", () => {
    expect(Object.fromEntries(ONCHAIN_PRODUCTS.map((p) => [p.id, p.sources]))).toEqual({
      "eth-gas": ["etherscan", "eth-rpc"],
      gas: ["base-rpc"],
      prediction: ["polymarket"],
      wallet: ["base-rpc", "blockscout"],
      "token-safety": ["goplus"],
      "whale-flow": ["dexscreener"],
    });
    for (const p of ONCHAIN_PRODUCTS) {
      expect(p.cacheTtlSeconds).toBeGreaterThan(0);
      expect(p.cacheTtlSeconds).toBeLessThanOrEqual(300);
    }
  });

  it("describes every output field, nested ones included (OpenAPI / MCP outputSchema)", () => {
    type Node = { description?: string; shape?: Record<string, Node>; element?: Node; unwrap?: () => Node; def?: { type?: string; innerType?: Node; element?: Node } };
    const walk = (node: Node, path: string) => {
      const inner = node.def?.type === "nullable" || node.def?.type === "optional" ? node.def.innerType! : node;
      if (inner.shape) for (const [k, v] of Object.entries(inner.shape)) {
        expect(v.description, `${path}.${k}`).toBeTruthy();
        walk(v, `${path}.${k}`);
      }
      if (inner.def?.type === "array" && inner.def.element) walk(inner.def.element, `${path}[]`);
    };
    for (const p of ONCHAIN_PRODUCTS) {
      expect((p.output as { def: { type: string } }).def.type).toBe("object");
      walk(p.output as Node, p.id);
    }
  });
});
