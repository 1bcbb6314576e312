/**
 * Names of common EVM chains, for people: the wallet and paywall pages (client) and the
 * pages that introduce them (server) say "Base" rather than "eip155:8453". No wagmi
 * import, so server components can use it.
 */
import { evmChainId } from "@/lib/payments/x402/eip3009";

const CHAIN_NAMES: Record<number, string> = {
  1: "Ethereum",
  10: "OP Mainnet",
  56: "BNB Smart Chain",
  137: "Polygon",
  8453: "Base",
  42161: "Arbitrum One",
  43114: "Avalanche",
  84532: "Base Sepolia",
  11155111: "Sepolia",
};

export function chainName(id: number): string {
  return CHAIN_NAMES[id] ?? `chain ${id}`;
}

/** "Base" for eip155:8453; a network that is not an EVM chain keeps its CAIP-2 id. */
export function networkName(network: string): string {
  const id = evmChainId(network);
  return id === null ? network : chainName(id);
}
