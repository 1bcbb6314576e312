/**
 * An EVM browser wallet (EIP-1193: window.ethereum or an EIP-6963 announcement, through
 * wagmi) as a payer: its USDC balance, read through the wallet's own RPC, and the official
 * x402 exact EVM client scheme over its typed-data signature.
 */
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { ClientEvmSigner } from "@x402/evm";

export interface Eip1193 {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** USDC (or any ERC-20) balance of `owner`, read through the wallet's own RPC. */
export async function tokenBalance(provider: Eip1193, asset: Address, owner: Address): Promise<bigint> {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  const out = (await provider.request({ method: "eth_call", params: [{ to: asset, data }, "latest"] })) as Hex;
  return decodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", data: out });
}

/** The exact EVM client scheme signing with `signTypedData` (the connected wallet's). */
export function evmScheme(address: Address, signTypedData: ClientEvmSigner["signTypedData"]): ExactEvmScheme {
  return new ExactEvmScheme({ address, signTypedData });
}
