/**
 * Names of common networks, for people: the wallet and paywall pages (client) and the
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

/** Non-EVM networks the service takes payments on, by CAIP-2 id. */
const OTHER_NETWORKS: Record<string, string> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "Solana",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "Solana devnet",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "Solana testnet",
  "stellar:pubnet": "Stellar",
  "stellar:testnet": "Stellar testnet",
};

/** "Base" for eip155:8453, "Solana" for Solana mainnet; an unknown network keeps its CAIP-2 id. */
export function networkName(network: string): string {
  const id = evmChainId(network);
  return id === null ? (OTHER_NETWORKS[network] ?? network) : chainName(id);
}

/** A payment method as people read it: "USDC on Base", "native XLM on Stellar". */
export function methodLabel(m: { asset: { symbol: string; address: string }; network: string }): string {
  return `${m.asset.address === "native" ? "native " : ""}${m.asset.symbol} on ${networkName(m.network)}`;
}
