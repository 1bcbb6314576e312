/**
 * Simulated EVM JSON-RPC nodes for Ethereum ("eth-rpc") and Base ("base-rpc").
 *
 * Blocks advance with wall-clock time (12 s on Ethereum, 2 s on Base) from real anchor
 * blocks. The base fee is a smooth, slowly varying function of the block number
 * (~5–40 gwei on Ethereum, ~0.005–0.05 gwei on Base) and each block's gasUsedRatio is
 * the one EIP-1559 implies for the next block's base fee, so fee history is internally
 * consistent. Accounts are deterministic per address: EOAs ("0x" code), smart wallets
 * (ERC-1967 proxy code) and contracts; nonces, ETH balances and Base USDC balances.
 * eth_call answers USDC `balanceOf`/`decimals`/`symbol`, `nameForAddr` on the ENSIP-19
 * L2ReverseRegistrar and legacy `name(bytes32)` on the Basenames L2Resolver.
 */
import {
  decodeFunctionData,
  encodeFunctionResult,
  erc20Abi,
  keccak256,
  concat,
  namehash,
  toBytes,
  type Hex,
} from "viem";
import { hash32, type World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimRequest, SimResponse } from "@/lib/upstream-sim/provider";

export type SimChain = "eth" | "base";

interface ChainModel {
  chain: SimChain;
  chainId: number;
  blockMs: number;
  anchorBlock: number;
  anchorMs: number;
  /** ln(gwei) around which the base fee oscillates, and the oscillation amplitude. */
  logMid: number;
  logAmp: number;
  /** Scale of priority tips, gwei. */
  tipGwei: number;
}

export const CHAINS: Record<SimChain, ChainModel> = {
  // Shapella block on mainnet; 12 s slots.
  eth: { chain: "eth", chainId: 1, blockMs: 12_000, anchorBlock: 17_034_870, anchorMs: 1_681_338_455_000, logMid: Math.log(Math.sqrt(5 * 40)), logAmp: 0.9, tipGwei: 1.5 },
  // Base genesis; 2 s blocks.
  base: { chain: "base", chainId: 8453, blockMs: 2_000, anchorBlock: 0, anchorMs: 1_686_789_347_000, logMid: Math.log(Math.sqrt(0.005 * 0.05)), logAmp: 0.9, tipGwei: 0.002 },
};

const GWEI = 1e9;
const unit = (s: string) => hash32(s) / 4294967296;

/** Latest block number at time `t` (ms). */
export function blockAt(chain: SimChain, t: number): number {
  const c = CHAINS[chain];
  return c.anchorBlock + Math.floor((t - c.anchorMs) / c.blockMs);
}

/** Base fee of block `n`, in wei. Smooth over hours, a few percent of per-block noise. */
export function baseFeeWei(world: World, chain: SimChain, n: number): bigint {
  const c = CHAINS[chain];
  const phase1 = unit(`${world.seed}:${chain}:phase1`) * 2 * Math.PI;
  const phase2 = unit(`${world.seed}:${chain}:phase2`) * 2 * Math.PI;
  const p1 = (6 * 3_600_000) / c.blockMs; // ~6 h swell
  const p2 = (47 * 60_000) / c.blockMs; // ~47 min ripple
  const x = 0.6 * Math.sin((2 * Math.PI * n) / p1 + phase1) + 0.4 * Math.sin((2 * Math.PI * n) / p2 + phase2);
  const noise = unit(`${world.seed}:${chain}:bf:${n}`) * 2 - 1;
  const gwei = Math.exp(c.logMid + c.logAmp * x + 0.03 * noise);
  return BigInt(Math.round(gwei * GWEI));
}

/** gasUsed/gasLimit of block `n`: what EIP-1559 needs to move the base fee to block n+1's. */
export function gasUsedRatio(world: World, chain: SimChain, n: number): number {
  const cur = Number(baseFeeWei(world, chain, n));
  const next = Number(baseFeeWei(world, chain, n + 1));
  const r = 0.5 + 4 * (next / cur - 1);
  return Math.round(Math.min(1, Math.max(0.01, r)) * 1e9) / 1e9;
}

/** Effective priority tip paid at percentile `p` (0..100) in block `n`, wei; increasing in p. */
export function tipWei(world: World, chain: SimChain, n: number, p: number): bigint {
  const c = CHAINS[chain];
  const blockFactor = 0.7 + 0.6 * unit(`${world.seed}:${chain}:tip:${n}`);
  return BigInt(Math.round(c.tipGwei * Math.exp(-3 + (4 * p) / 100) * blockFactor * GWEI));
}

/** The node's suggested tip (eth_maxPriorityFeePerGas) at block `n`. */
export function suggestedTipWei(world: World, chain: SimChain, n: number): bigint {
  return tipWei(world, chain, n, 60);
}

const hex = (v: bigint | number) => `0x${BigInt(v).toString(16)}`;

// ---------------------------------------------------------------- accounts

export const SIM_BASE_USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
export const SIM_L2_REVERSE_REGISTRAR = "0x0000000000d8e504002cc26e3ec46d81971c1664";
export const SIM_L2_RESOLVER = "0xc6d566a56a1aff6508b41f6c90ff131615583bcd";
const BASE_CONTRACTS = new Set([SIM_BASE_USDC, SIM_L2_REVERSE_REGISTRAR, SIM_L2_RESOLVER]);

/** ERC-1967 minimal proxy runtime code, as deployed for smart wallets. */
const PROXY_CODE =
  "0x363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3";

export interface SimAccount {
  kind: "eoa" | "smart_wallet" | "contract";
  code: Hex;
  /** Transactions sent (EOA) or contracts created + 1 (contract accounts). */
  nonce: number;
  balanceWei: bigint;
  /** Base only: USDC in base units (6 decimals). */
  usdcUnits: bigint;
  /** Transactions that touched the account without being sent by it. */
  incomingTxs: number;
  tokenTransfers: number;
}

function contractCode(addr: string): Hex {
  // Solidity-looking runtime code of a deterministic length.
  const len = 400 + (hash32(`code-len:${addr}`) % 3000);
  let body = "";
  for (let i = 0; body.length < len * 2; i++) body += hash32(`code:${addr}:${i}`).toString(16).padStart(8, "0");
  return `0x608060405234801561001057600080fd5b50${body.slice(0, len * 2)}` as Hex;
}

/** Deterministic account state of `address` (lower-case) on `chain`. */
export function simAccount(world: World, chain: SimChain, address: string): SimAccount {
  const a = address.toLowerCase();
  const r = (k: string) => unit(`${world.seed}:${chain}:${k}:${a}`);
  let kind: SimAccount["kind"];
  if (BASE_CONTRACTS.has(a)) kind = chain === "base" ? "contract" : "eoa";
  else {
    // The kind ignores the chain: an EOA key is an EOA everywhere.
    const k = hash32(`${world.seed}:kind:${a}`) % 10;
    kind = k === 0 ? "smart_wallet" : k === 1 ? "contract" : "eoa";
  }
  const code: Hex = kind === "eoa" ? "0x" : kind === "smart_wallet" ? (PROXY_CODE as Hex) : contractCode(a);
  const active = r("active") >= 0.15;
  const nonce = kind === "eoa" ? (active ? Math.floor(Math.exp(r("nonce") * Math.log(20_000))) : 0) : 1;
  const eth = r("bal0") < 0.1 ? 0 : 10 ** (-4 + r("bal") * 5.7);
  const balanceWei = BigInt(Math.round(eth * 1e9)) * 1_000_000_000n + BigInt(Math.floor(r("wei") * 1e9));
  const usdc = chain !== "base" || r("usdc0") < 0.3 ? 0 : 10 ** (r("usdc") * 6.3);
  const incomingTxs = kind === "smart_wallet" ? 5 + Math.floor(r("in") * 3000) : Math.floor(r("in") * (nonce + 20));
  const tokenTransfers = Math.floor(r("tt") * (nonce + incomingTxs) * 1.5);
  return { kind, code, nonce, balanceWei: eth === 0 ? 0n : balanceWei, usdcUnits: BigInt(Math.round(usdc * 1e6)), incomingTxs, tokenTransfers };
}

// ---------------------------------------------------------------- basenames

const NAMES = [
  "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia",
  "peggy", "rupert", "sybil", "trent", "victor", "walter", "yara", "zoe", "jesse", "brian", "maria", "kenji",
  "amara", "lucas", "nadia", "omar", "priya", "sofia", "tariq", "wen", "xavier", "based", "onchain", "builder",
];

export interface SimBasename {
  name: string;
  /** "registrar" answers nameForAddr; "legacy" only the old L2Resolver record. */
  where: "registrar" | "legacy";
}

/** Primary basename of an address (deterministic from its hash), or null. */
export function simBasename(world: World, address: string): SimBasename | null {
  const a = address.toLowerCase();
  const h = hash32(`${world.seed}:basename:${a}`);
  const slot = h % 6;
  if (slot > 1) return null;
  const word = NAMES[(h >>> 4) % NAMES.length]!;
  const suffix = (h >>> 12) % 3 === 0 ? String((h >>> 16) % 100) : "";
  return { name: `${word}${suffix}.base.eth`, where: slot === 0 ? "registrar" : "legacy" };
}

/** keccak256(namehash("80002105.reverse") ‖ keccak256(hex address without 0x)). */
export function reverseNode(address: string): Hex {
  return keccak256(concat([namehash("80002105.reverse"), keccak256(toBytes(address.toLowerCase().slice(2)))]));
}

/** Reverse nodes of every address the simulated nodes have seen (a real chain knows all). */
const seenNodes = new WeakMap<World, Map<string, string>>();
function remember(world: World, address: string): void {
  let m = seenNodes.get(world);
  if (!m) seenNodes.set(world, (m = new Map()));
  if (m.size > 100_000) m.clear();
  m.set(reverseNode(address), address.toLowerCase());
}

const nameForAddrAbi = [
  { type: "function", name: "nameForAddr", stateMutability: "view", inputs: [{ name: "addr", type: "address" }], outputs: [{ name: "name", type: "string" }] },
] as const;
const resolverAbi = [
  { type: "function", name: "name", stateMutability: "view", inputs: [{ name: "node", type: "bytes32" }], outputs: [{ name: "", type: "string" }] },
] as const;

// ---------------------------------------------------------------- JSON-RPC

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

function addressArg(v: unknown, i: number): string {
  if (typeof v !== "string" || !ADDRESS_RE.test(v)) {
    const len = typeof v === "string" ? v.replace(/^0x/, "").length : 0;
    throw new RpcFailure(-32602, `invalid argument ${i}: hex string has length ${len}, want 40 for common.Address`);
  }
  return v.toLowerCase();
}

function blockArg(chain: SimChain, v: unknown, i: number, now: number): number {
  const latest = blockAt(chain, now);
  if (v === undefined || v === "latest" || v === "pending" || v === "safe" || v === "finalized") return latest;
  if (v === "earliest") return 0;
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) {
    const n = Number(BigInt(v));
    if (n > latest) throw new RpcFailure(-32602, `invalid argument ${i}: block ${n} not found`);
    return n;
  }
  throw new RpcFailure(-32602, `invalid argument ${i}: hex string without 0x prefix`);
}

const revert = () => new RpcFailure(3, "execution reverted", "0x");

function ethCall(world: World, chain: SimChain, params: unknown[], now: number): Hex {
  const call = params[0] as { to?: unknown; data?: unknown; input?: unknown } | undefined;
  if (!call || typeof call !== "object") throw new RpcFailure(-32602, "missing value for required argument 0");
  const to = addressArg(call.to, 0);
  blockArg(chain, params[1], 1, now);
  const data = (call.data ?? call.input ?? "0x") as string;
  if (typeof data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new RpcFailure(-32602, "invalid argument 0: json: cannot unmarshal hex string");
  const account = simAccount(world, chain, to);
  if (account.kind === "eoa") return "0x"; // a call to an account without code succeeds with no data
  if (chain === "base" && to === SIM_BASE_USDC) {
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: erc20Abi, data: data as Hex });
    } catch {
      throw revert();
    }
    switch (decoded.functionName) {
      case "balanceOf": {
        const owner = decoded.args[0].toLowerCase();
        remember(world, owner);
        return encodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", result: simAccount(world, "base", owner).usdcUnits });
      }
      case "decimals":
        return encodeFunctionResult({ abi: erc20Abi, functionName: "decimals", result: 6 });
      case "symbol":
        return encodeFunctionResult({ abi: erc20Abi, functionName: "symbol", result: "USDC" });
      case "name":
        return encodeFunctionResult({ abi: erc20Abi, functionName: "name", result: "USD Coin" });
      case "totalSupply":
        return encodeFunctionResult({ abi: erc20Abi, functionName: "totalSupply", result: 4_120_000_000_000_000n });
      default:
        throw revert();
    }
  }
  if (chain === "base" && to === SIM_L2_REVERSE_REGISTRAR) {
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: nameForAddrAbi, data: data as Hex });
    } catch {
      throw revert();
    }
    const who = decoded.args[0].toLowerCase();
    remember(world, who);
    const bn = simBasename(world, who);
    return encodeFunctionResult({ abi: nameForAddrAbi, functionName: "nameForAddr", result: bn?.where === "registrar" ? bn.name : "" });
  }
  if (chain === "base" && to === SIM_L2_RESOLVER) {
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: resolverAbi, data: data as Hex });
    } catch {
      throw revert();
    }
    const who = seenNodes.get(world)?.get(decoded.args[0].toLowerCase());
    const bn = who ? simBasename(world, who) : null;
    // Everyone with a basename once had a legacy record; the registrar is the newer home.
    return encodeFunctionResult({ abi: resolverAbi, functionName: "name", result: bn?.name ?? "" });
  }
  throw revert();
}

function feeHistory(world: World, chain: SimChain, params: unknown[], now: number) {
  const [countRaw, newestRaw, pctRaw] = params;
  let count: number;
  if (typeof countRaw === "number" && Number.isInteger(countRaw)) count = countRaw;
  else if (typeof countRaw === "string" && /^0x[0-9a-fA-F]+$/.test(countRaw)) count = Number.parseInt(countRaw, 16);
  else throw new RpcFailure(-32602, "invalid argument 0: hex string without 0x prefix");
  count = Math.min(count, 1024);
  const newest = blockArg(chain, newestRaw, 1, now);
  const pct = pctRaw === undefined || pctRaw === null ? [] : pctRaw;
  if (!Array.isArray(pct) || pct.some((p, i) => typeof p !== "number" || p < 0 || p > 100 || (i > 0 && p < (pct[i - 1] as number)))) {
    throw new RpcFailure(-32602, `invalid reward percentile: ${JSON.stringify(pctRaw)}`);
  }
  if (count === 0) return { oldestBlock: "0x0" };
  const oldest = Math.max(0, newest - count + 1);
  const blocks = Array.from({ length: newest - oldest + 1 }, (_, i) => oldest + i);
  return {
    oldestBlock: hex(oldest),
    ...(pct.length ? { reward: blocks.map((n) => (pct as number[]).map((p) => hex(tipWei(world, chain, n, p)))) } : {}),
    baseFeePerGas: [...blocks, newest + 1].map((n) => hex(baseFeeWei(world, chain, n))),
    gasUsedRatio: blocks.map((n) => gasUsedRatio(world, chain, n)),
    ...(chain === "eth"
      ? {
          baseFeePerBlobGas: [...blocks, newest + 1].map(() => "0x1"),
          blobGasUsedRatio: blocks.map((n) => Math.round(unit(`${world.seed}:blob:${n}`) * 6) / 6),
        }
      : {}),
  };
}

function dispatch(world: World, chain: SimChain, method: string, params: unknown[], now: number): unknown {
  const latest = blockAt(chain, now);
  switch (method) {
    case "eth_chainId":
      return hex(CHAINS[chain].chainId);
    case "net_version":
      return String(CHAINS[chain].chainId);
    case "eth_blockNumber":
      return hex(latest);
    case "eth_gasPrice":
      return hex(baseFeeWei(world, chain, latest + 1) + suggestedTipWei(world, chain, latest));
    case "eth_maxPriorityFeePerGas":
      return hex(suggestedTipWei(world, chain, latest));
    case "eth_feeHistory":
      return feeHistory(world, chain, params, now);
    case "eth_getTransactionCount": {
      const a = addressArg(params[0], 0);
      blockArg(chain, params[1], 1, now);
      remember(world, a);
      return hex(simAccount(world, chain, a).nonce);
    }
    case "eth_getBalance": {
      const a = addressArg(params[0], 0);
      blockArg(chain, params[1], 1, now);
      remember(world, a);
      return hex(simAccount(world, chain, a).balanceWei);
    }
    case "eth_getCode": {
      const a = addressArg(params[0], 0);
      blockArg(chain, params[1], 1, now);
      remember(world, a);
      return simAccount(world, chain, a).code;
    }
    case "eth_call":
      return ethCall(world, chain, params, now);
    default:
      throw new RpcFailure(-32601, `the method ${method} does not exist/is not available`);
  }
}

function answer(world: World, chain: SimChain, msg: unknown, now: number): unknown {
  const m = msg as { id?: unknown; method?: unknown; params?: unknown };
  const id = m && typeof m === "object" && "id" in m ? m.id : null;
  if (!m || typeof m !== "object" || typeof m.method !== "string") {
    return { jsonrpc: "2.0", id, error: { code: -32600, message: "invalid request" } };
  }
  const params = Array.isArray(m.params) ? m.params : m.params === undefined ? [] : null;
  if (params === null) return { jsonrpc: "2.0", id, error: { code: -32602, message: "non-array args" } };
  try {
    return { jsonrpc: "2.0", id, result: dispatch(world, chain, m.method, params, now) };
  } catch (err) {
    if (err instanceof RpcFailure) {
      return { jsonrpc: "2.0", id, error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } };
    }
    throw err;
  }
}

function rpcSim(name: string, envVar: string, chain: SimChain): SimProvider {
  return {
    name,
    envVar,
    handle(req: SimRequest, world: World): SimResponse | null {
      if (req.path !== "/") return null;
      if (req.method !== "POST") return { status: 405, body: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "only POST is supported" } } };
      if (typeof req.body !== "object" || req.body === null) {
        return { body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } } };
      }
      if (Array.isArray(req.body)) return { body: req.body.map((m) => answer(world, chain, m, req.now)) };
      return { body: answer(world, chain, req.body, req.now) };
    },
  };
}

/** Ethereum mainnet node. */
export const ethRpcSim = rpcSim("eth-rpc", "ETH_RPC_URL", "eth");
/** Base mainnet node. */
export const baseRpcSim = rpcSim("base-rpc", "BASE_RPC_URL", "base");
