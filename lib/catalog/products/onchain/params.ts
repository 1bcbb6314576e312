/**
 * Parameters shared by the on-chain products: EVM addresses, token addresses that may
 * be EVM or Solana (checked against the chain by `checkAddressForChain`), and the
 * chain enums of /v1/token-safety (GoPlus spelling) and /v1/whale-flow (DexScreener
 * spelling), each accepting the usual aliases.
 */
import { getAddress } from "viem";
import { enumParam, stringParam, type Param } from "@/lib/catalog/params";
import { invalidParam } from "@/lib/catalog/validate";

export const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
/** Base58 (no 0, O, I, l), 32-44 characters: a Solana public key / mint. */
export const SOLANA_ADDRESS_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * EIP-55 checksum form of a 0x address. Any letter case is accepted (a wrong checksum
 * is not rejected, the address is simply re-checksummed); other strings pass through
 * unchanged so the pattern check reports them.
 */
export function checksumOrSame(s: string): string {
  return EVM_ADDRESS_RE.test(s) ? getAddress(s.toLowerCase()) : s;
}

/** Required EVM address, normalised to its EIP-55 checksum form. */
export function evmAddressParam(description: string): Param<string> {
  return stringParam({
    description,
    pattern: EVM_ADDRESS_RE,
    patternText: "^0x[0-9a-fA-F]{40}$",
    required: true,
    maxLength: 42,
    example: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    normalize: checksumOrSame,
  });
}

/** Required token address: a 0x address (EVM chains) or a base58 mint (Solana). */
export function tokenAddressParam(description: string, example: string): Param<string> {
  return stringParam({
    description,
    pattern: /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/,
    patternText: "^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$",
    required: true,
    maxLength: 44,
    example,
  });
}

/**
 * Cross-field check: a Solana chain needs a base58 mint, every other chain a 0x address.
 * Returns the address normalised for the chain (EIP-55 for EVM, unchanged for Solana);
 * throws a 422 `value_error` on `name` otherwise.
 */
export function checkAddressForChain(name: string, chain: string, value: string): string {
  if (chain === "solana") {
    if (SOLANA_ADDRESS_RE.test(value)) return value;
    const error = `chain 'solana' needs a base58 mint address (32-44 characters), got '${value}'`;
    return invalidParam(name, value, { type: "value_error", msg: `Value error, ${error}`, ctx: { error } });
  }
  if (EVM_ADDRESS_RE.test(value)) return getAddress(value.toLowerCase());
  const error = `chain '${chain}' needs a 0x-prefixed 20-byte hex address, got '${value}'`;
  return invalidParam(name, value, { type: "value_error", msg: `Value error, ${error}`, ctx: { error } });
}

/** Chains of /v1/token-safety (GoPlus); `eth` is Ethereum mainnet. */
export const SAFETY_CHAINS = ["base", "eth", "bsc", "polygon", "arbitrum", "optimism", "avalanche", "solana"] as const;
export type SafetyChain = (typeof SAFETY_CHAINS)[number];

export const safetyChainParam: Param<SafetyChain> = enumParam({
  description: "Chain of the token. Aliases: ethereum→eth, bnb/binance→bsc, matic/pol→polygon, arb→arbitrum, op→optimism, avax→avalanche, sol→solana.",
  values: SAFETY_CHAINS,
  default: "base",
  aliases: { ethereum: "eth", mainnet: "eth", bnb: "bsc", binance: "bsc", matic: "polygon", pol: "polygon", arb: "arbitrum", op: "optimism", avax: "avalanche", sol: "solana" },
});

/** Chains of /v1/whale-flow (DexScreener spelling); `ethereum` is mainnet. */
export const FLOW_CHAINS = ["base", "solana", "ethereum", "bsc", "polygon", "arbitrum", "optimism", "avalanche"] as const;
export type FlowChain = (typeof FLOW_CHAINS)[number];

export const flowChainParam: Param<FlowChain> = enumParam({
  description: "Chain of the token. Aliases: eth/mainnet→ethereum, bnb/binance→bsc, matic/pol→polygon, arb→arbitrum, op→optimism, avax→avalanche, sol→solana.",
  values: FLOW_CHAINS,
  default: "base",
  aliases: { eth: "ethereum", mainnet: "ethereum", bnb: "bsc", binance: "bsc", matic: "polygon", pol: "polygon", arb: "arbitrum", op: "optimism", avax: "avalanche", sol: "solana" },
});
