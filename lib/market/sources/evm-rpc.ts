/**
 * JSON-RPC 2.0 client for EVM chains (POST, one call per request) over our `fetchJson`,
 * so timeouts, parsing and status tracking match every other upstream. Two providers:
 * Ethereum (`ETH_RPC_URL`) and Base (`BASE_RPC_URL`).
 *
 * Quantities arrive as hex strings and are validated with zod before becoming bigints;
 * a JSON-RPC `error` object becomes an `UpstreamError` of kind "upstream_error".
 * ABI work (USDC balanceOf, basename reverse lookups) uses viem's pure helpers only:
 * the HTTP stays here.
 */
import { z } from "zod";
import { decodeFunctionResult, encodeFunctionData, erc20Abi, keccak256, namehash, concat, toBytes, type Address, type Hex } from "viem";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, upstreamFailure, type Provider, type Query } from "@/lib/market/upstream";

/**
 * Splits an RPC URL into the part used as base URL and its query string: keyed RPC
 * URLs sometimes carry the key as a query parameter, which must be redacted.
 */
function rpcProvider(name: string, url: () => string): Provider & { path: () => string; query: () => Query } {
  const parse = () => new URL(url());
  // fetchJson joins base URL and path with a "/", so the last path segment travels as
  // the path: the request goes to exactly the configured URL (no trailing slash added).
  const split = () => {
    const u = parse();
    const cut = u.pathname.lastIndexOf("/");
    return { base: `${u.origin}${u.pathname.slice(0, cut)}`, path: u.pathname.slice(cut) || "/" };
  };
  return {
    name,
    baseUrl: () => split().base,
    path: () => split().path,
    query: () => Object.fromEntries(parse().searchParams),
    get secretParams() {
      return [...parse().searchParams.keys()];
    },
  };
}

/** Ethereum mainnet JSON-RPC endpoint. */
export const ethRpc = rpcProvider("eth-rpc", () => env().ETH_RPC_URL);
/** Base mainnet JSON-RPC endpoint. */
export const baseRpc = rpcProvider("base-rpc", () => env().BASE_RPC_URL);
export type RpcProvider = typeof ethRpc;

/** Seconds between blocks, used to size cache lifetimes per chain. */
const BLOCK_MS: Record<string, number> = { "eth-rpc": 12_000, "base-rpc": 2_000 };
const blockTtl = (p: RpcProvider) => BLOCK_MS[p.name] ?? 5_000;

const HexQuantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a hex quantity")
  .transform((s) => BigInt(s));
const HexData = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, "expected hex data")
  .transform((s) => s.toLowerCase() as Hex);

const RpcErrorObject = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

function envelope<S extends z.ZodType>(result: S) {
  // An error answer first: some nodes also send `result: null` next to `error`.
  return z.union([
    z.object({ jsonrpc: z.literal("2.0").optional(), id: z.unknown(), error: RpcErrorObject }),
    z.object({ jsonrpc: z.literal("2.0").optional(), id: z.unknown(), result }),
  ]);
}

let nextId = 1;

/**
 * One JSON-RPC call. The result is checked with `result`; an `error` member becomes an
 * UpstreamError ("upstream_error") naming the method and the node's code and message.
 */
export async function rpcCall<S extends z.ZodType>(provider: RpcProvider, method: string, params: unknown[], result: S): Promise<z.infer<S>> {
  const body = { jsonrpc: "2.0", id: nextId++, method, params };
  const res = await fetchJson(provider, provider.path(), provider.query(), envelope(result), { method: "POST", body });
  if ("error" in res) {
    upstreamFailure(provider, `JSON-RPC error ${res.error.code} on ${method}: ${res.error.message.slice(0, 200)}`);
  }
  return (res as { result: z.infer<S> }).result;
}

/** eth_gasPrice in wei (legacy gas price: base fee plus the node's suggested tip). */
export function gasPrice(p: RpcProvider): Promise<bigint> {
  return cached(`${p.name}:eth_gasPrice`, blockTtl(p), () => rpcCall(p, "eth_gasPrice", [], HexQuantity));
}

/** eth_maxPriorityFeePerGas in wei (the node's suggested tip). */
export function maxPriorityFeePerGas(p: RpcProvider): Promise<bigint> {
  return cached(`${p.name}:eth_maxPriorityFeePerGas`, blockTtl(p), () => rpcCall(p, "eth_maxPriorityFeePerGas", [], HexQuantity));
}

/** eth_blockNumber. */
export function blockNumber(p: RpcProvider): Promise<bigint> {
  return cached(`${p.name}:eth_blockNumber`, blockTtl(p), () => rpcCall(p, "eth_blockNumber", [], HexQuantity));
}

/** A hex quantity kept as its (validated, lower-case) wire string. */
const HexQuantityString = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a hex quantity")
  .transform((s) => s.toLowerCase() as Hex);

const FeeHistoryRaw = z.object({
  oldestBlock: HexQuantity,
  baseFeePerGas: z.array(HexQuantityString).min(1),
  gasUsedRatio: z.array(z.number().min(0).max(2)),
  reward: z.array(z.array(HexQuantityString)).optional(),
});

export interface FeeHistory {
  oldestBlock: bigint;
  /** Hex wei; blockCount + 1 entries: the last is the base fee of the next (pending) block. */
  baseFeePerGas: Hex[];
  gasUsedRatio: number[];
  /** Per block, the tip (hex wei) at each requested percentile; empty without percentiles. */
  reward: Hex[][];
}

/**
 * eth_feeHistory for the `blockCount` blocks ending at `newest`, with effective tips at
 * `percentiles` (increasing, 0..100). Shapes are cross-checked: a node answering with
 * mismatched array lengths is a parse error, not a silent misalignment.
 */
export function feeHistory(p: RpcProvider, blockCount: number, newest: string, percentiles: number[]): Promise<FeeHistory> {
  const countHex = `0x${blockCount.toString(16)}`;
  return cached(`${p.name}:eth_feeHistory:${countHex}:${newest}:${percentiles.join(",")}`, blockTtl(p), async () => {
    const raw = await rpcCall(p, "eth_feeHistory", [countHex, newest, percentiles], FeeHistoryRaw);
    const n = raw.gasUsedRatio.length;
    const reward = raw.reward ?? [];
    const shapeOk =
      n > 0 &&
      raw.baseFeePerGas.length === n + 1 &&
      (percentiles.length === 0 || (reward.length === n && reward.every((r) => r.length === percentiles.length)));
    if (!shapeOk) upstreamFailure(p, `eth_feeHistory answered inconsistent array lengths (${n} blocks)`);
    return { oldestBlock: raw.oldestBlock, baseFeePerGas: raw.baseFeePerGas, gasUsedRatio: raw.gasUsedRatio, reward };
  });
}

/** eth_getTransactionCount at `latest`: the nonce, i.e. transactions SENT by an EOA. */
export function transactionCount(p: RpcProvider, address: Address): Promise<bigint> {
  const a = address.toLowerCase();
  return cached(`${p.name}:eth_getTransactionCount:${a}`, 15_000, () => rpcCall(p, "eth_getTransactionCount", [a, "latest"], HexQuantity));
}

/** eth_getCode at `latest` ("0x" for an account without code). */
export function getCode(p: RpcProvider, address: Address): Promise<Hex> {
  const a = address.toLowerCase();
  return cached(`${p.name}:eth_getCode:${a}`, 60_000, () => rpcCall(p, "eth_getCode", [a, "latest"], HexData));
}

/** eth_getBalance at `latest`, in wei. */
export function getBalance(p: RpcProvider, address: Address): Promise<bigint> {
  const a = address.toLowerCase();
  return cached(`${p.name}:eth_getBalance:${a}`, 15_000, () => rpcCall(p, "eth_getBalance", [a, "latest"], HexQuantity));
}

/** eth_call at `latest`; returns the raw return data. Reverts arrive as JSON-RPC errors. */
export function ethCall(p: RpcProvider, call: { to: Address; data: Hex }): Promise<Hex> {
  const to = call.to.toLowerCase();
  const data = call.data.toLowerCase();
  return cached(`${p.name}:eth_call:${to}:${data}`, 15_000, () => rpcCall(p, "eth_call", [{ to, data }, "latest"], HexData));
}

/** Native USDC on Base (6 decimals). */
export const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/** ENSIP-19 reverse registrar for Base primary names. */
export const BASE_L2_REVERSE_REGISTRAR: Address = "0x0000000000D8e504002cC26E3Ec46D81971C1664";
/** Basenames L2Resolver holding the pre-ENSIP-19 reverse records. */
export const BASE_L2_RESOLVER: Address = "0xC6d566A56A1aFf6508b41f6c90ff131615583BCD";
/** Reverse namespace of Base: 0x80000000 | 8453 as upper-case hex (ENSIP-11 coin type). */
export const BASE_REVERSE_NAMESPACE = "80002105.reverse";

const nameForAddrAbi = [
  { type: "function", name: "nameForAddr", stateMutability: "view", inputs: [{ name: "addr", type: "address" }], outputs: [{ name: "name", type: "string" }] },
] as const;
const resolverNameAbi = [
  { type: "function", name: "name", stateMutability: "view", inputs: [{ name: "node", type: "bytes32" }], outputs: [{ name: "", type: "string" }] },
] as const;

/** Decodes ABI return data; undecodable data (e.g. "0x" from an account without code) is a parse failure. */
function decodeOrFail<T>(p: RpcProvider, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    return upstreamFailure(p, `could not decode ${what}: ${(err as Error).message.split("\n")[0]}`);
  }
}

/** ERC-20 `balanceOf(owner)` in the token's base units. */
export async function erc20BalanceOf(p: RpcProvider, token: Address, owner: Address): Promise<bigint> {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  const ret = await ethCall(p, { to: token, data });
  return decodeOrFail(p, "balanceOf result", () => decodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", data: ret }));
}

/**
 * Legacy reverse node of an address in Base's namespace:
 * keccak256(namehash("80002105.reverse") ‖ keccak256(lower-case hex address without 0x)).
 */
export function baseReverseNode(address: Address): Hex {
  const label = keccak256(toBytes(address.slice(2).toLowerCase()));
  return keccak256(concat([namehash(BASE_REVERSE_NAMESPACE), label]));
}

export interface BasenameLookup {
  /** Primary name, or null when none is set. */
  name: string | null;
  /** Which contract answered with the name. */
  source: "l2_reverse_registrar" | "l2_resolver_legacy" | null;
}

/**
 * Base primary name of `address`: ENSIP-19 `nameForAddr` on the L2ReverseRegistrar, then
 * the legacy L2Resolver `name(node)` when the registrar has no record. Reverse records
 * are claims by the address owner; they are not forward-verified here.
 */
export async function basename(address: Address): Promise<BasenameLookup> {
  const p = baseRpc;
  const data = encodeFunctionData({ abi: nameForAddrAbi, functionName: "nameForAddr", args: [address] });
  const ret = await ethCall(p, { to: BASE_L2_REVERSE_REGISTRAR, data });
  const primary = decodeOrFail(p, "nameForAddr result", () => decodeFunctionResult({ abi: nameForAddrAbi, functionName: "nameForAddr", data: ret }));
  if (primary) return { name: primary, source: "l2_reverse_registrar" };
  const legacyData = encodeFunctionData({ abi: resolverNameAbi, functionName: "name", args: [baseReverseNode(address)] });
  const legacyRet = await ethCall(p, { to: BASE_L2_RESOLVER, data: legacyData });
  // An unset record decodes to ""; empty return data means no resolver code: no name either.
  if (legacyRet === "0x") return { name: null, source: null };
  const legacy = decodeOrFail(p, "L2Resolver name result", () => decodeFunctionResult({ abi: resolverNameAbi, functionName: "name", data: legacyRet }));
  return legacy ? { name: legacy, source: "l2_resolver_legacy" } : { name: null, source: null };
}
