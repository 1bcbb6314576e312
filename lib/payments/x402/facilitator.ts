/**
 * The facilitator that verifies and settles x402 payments: a remote one when
 * FACILITATOR_URL is set, otherwise an in-process `x402Facilitator` whose signature
 * checks run locally and whose settlements are sent with FACILITATOR_PRIVATE_KEY to
 * SETTLEMENT_RPC_URL (default BASE_RPC_URL). Calls go through askFacilitator (timeouts,
 * zod-checked answers).
 */
import { createPublicClient, createWalletClient, http, publicActions, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import { x402Facilitator } from "@x402/core/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import {
  authorizationOutcome,
  prefetchSimulation,
  PrefetchedReads,
  readKey,
  settleVerified,
  VerifiedPayments,
  type AuthorizationOutcome,
  type LocalChain,
} from "@/lib/payments/x402/evm-local";

export { FacilitatorError } from "@/lib/payments/x402/facilitator-call";

export function chainIdOf(network: string): number {
  const m = network.match(/^eip155:(\d+)$/);
  if (!m) throw new Error(`not an EVM network: ${network}`);
  return Number(m[1]);
}

/** The in-process facilitator's own chain access (absent with a remote facilitator). */
interface Local {
  chain: LocalChain;
  reads: PrefetchedReads;
  read: Parameters<PrefetchedReads["start"]>[0];
  verified: VerifiedPayments;
}

interface Built {
  client: FacilitatorClient;
  local: Local | null;
}

function buildClient(): Built | null {
  const cfg = env();
  if (cfg.FACILITATOR_URL) return { client: new HTTPFacilitatorClient({ url: cfg.FACILITATOR_URL }), local: null };
  if (!cfg.FACILITATOR_PRIVATE_KEY) return null;
  const rpc = cfg.SETTLEMENT_RPC_URL ?? cfg.BASE_RPC_URL;
  const id = chainIdOf(cfg.X402_NETWORK);
  const account = privateKeyToAccount(cfg.FACILITATOR_PRIVATE_KEY as Hex);
  const wallet = createWalletClient({
    account,
    chain: { id, name: cfg.X402_NETWORK, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpc] } } },
    transport: http(rpc, { timeout: cfg.PAYMENT_TIMEOUT_MS, retryCount: 0 }),
    pollingInterval: 200,
  }).extend(publicActions);
  const reads = new PrefetchedReads();
  const signer = fasterSigner(wallet, account.address, reads);
  const facilitator = new x402Facilitator();
  // The viem wallet client provides every method the EVM facilitator signer needs.
  registerExactEvmScheme(facilitator, { signer, networks: cfg.X402_NETWORK as `${string}:${string}` });
  const client = {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as FacilitatorClient;
  const s = signer as unknown as { readContract: Local["read"]; writeContract: LocalChain["writeContract"] };
  return {
    client,
    local: {
      chain: { writeContract: (a) => s.writeContract(a), waitForTransactionReceipt: (a) => wallet.waitForTransactionReceipt(a) as never },
      reads,
      read: (a) => wallet.readContract(a as never),
      verified: new VerifiedPayments(),
    },
  };
}

/**
 * The facilitator signer with fewer RPC round trips per payment:
 * - bytecode is remembered: a contract's for good (contracts do not disappear), an empty
 *   account's for 60 s (it may get code later; the facilitator's on-chain simulation of
 *   each authorization stays the final check either way);
 * - nonces come from a local sequence (this process is the only sender for the key),
 *   re-read from the chain after any failed send;
 * - the gas limit of a contract call is estimated once and reused with a 50 % margin:
 *   the verification simulated the very same call moments before;
 * - fee estimates are reused for two seconds;
 * - a contract read started ahead (the verifier's simulation) is answered from that start.
 */
function fasterSigner(wallet: ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>, address: `0x${string}`, reads: PrefetchedReads) {
  const base = toFacilitatorEvmSigner({ ...wallet, address } as never) as Record<string, unknown> & {
    getCode(a: { address: `0x${string}` }): Promise<`0x${string}` | undefined>;
    readContract(a: { address: `0x${string}`; functionName: string; args?: readonly unknown[] }): Promise<unknown>;
    writeContract(a: Record<string, unknown>): Promise<`0x${string}`>;
  };
  const code = new Map<string, { value: `0x${string}` | undefined; until: number }>();
  const gasLimits = new Map<string, bigint>();
  let fees: { at: number; v: Promise<Record<string, bigint>> } | null = null;
  let nextNonce: Promise<number> | null = null;

  const currentFees = () => {
    if (!fees || Date.now() - fees.at > 2000) {
      const v: Promise<Record<string, bigint>> = wallet.estimateFeesPerGas().then(
        (f): Record<string, bigint> =>
          f.maxFeePerGas !== undefined && f.maxPriorityFeePerGas !== undefined ? { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas } : {},
        (): Record<string, bigint> => ({}),
      );
      fees = { at: Date.now(), v };
      return v;
    }
    return fees.v;
  };
  const takeNonce = (): Promise<number> => {
    const current = nextNonce ?? wallet.getTransactionCount({ address, blockTag: "pending" });
    nextNonce = current.then((n) => n + 1);
    return current;
  };
  const gasFor = async (a: Record<string, unknown>): Promise<bigint> => {
    const key = `${String(a.address).toLowerCase()}:${String(a.functionName)}:${Array.isArray(a.args) ? a.args.length : 0}`;
    const known = gasLimits.get(key);
    if (known) return known;
    const estimate = await wallet.estimateContractGas({ ...(a as Record<string, unknown>), account: wallet.account! } as never);
    const limit = (estimate * 3n) / 2n;
    gasLimits.set(key, limit);
    return limit;
  };

  return {
    ...base,
    // A simulation started by verifyWithFacilitator is handed to the verifier that asks for it.
    readContract: (a: { address: `0x${string}`; functionName: string; args?: readonly unknown[] }) =>
      reads.take(readKey(a.address, a.functionName, a.args ?? [])) ?? base.readContract(a),
    getCode: async (a: { address: `0x${string}` }) => {
      const k = a.address.toLowerCase();
      const hit = code.get(k);
      if (hit && hit.until > Date.now()) return hit.value;
      const c = await base.getCode(a);
      code.set(k, { value: c, until: c && c !== "0x" ? Number.POSITIVE_INFINITY : Date.now() + 60_000 });
      return c;
    },
    writeContract: async (a: Record<string, unknown>) => {
      const [f, gas] = await Promise.all([currentFees(), a.gas ? Promise.resolve(a.gas as bigint) : gasFor(a)]);
      const nonce = await takeNonce();
      try {
        return await base.writeContract({ ...f, gas, nonce, ...a });
      } catch (err) {
        nextNonce = null; // re-read from the chain: the failed transaction may or may not have been broadcast
        throw err;
      }
    },
  } as unknown as Parameters<typeof registerExactEvmScheme>[1]["signer"];
}

const KEY = Symbol.for("echo.x402.facilitator");
type Holder = { [KEY]?: Built | null };

function built(): Built | null {
  const g = globalThis as Holder;
  if (g[KEY] === undefined) g[KEY] = buildClient();
  return g[KEY];
}

/** The configured facilitator, or null when this instance cannot settle EVM payments. */
export function facilitator(): FacilitatorClient | null {
  return built()?.client ?? null;
}

function builtOrThrow(): Built {
  const b = built();
  if (!b) throw new FacilitatorError("no facilitator configured");
  return b;
}

export async function verifyWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedVerify> {
  const { client, local } = builtOrThrow();
  const prefetched = local ? prefetchSimulation(local.reads, local.read, payload, req) : null;
  // One turn of the event loop lets the request reach the socket before the verifier's
  // signature recovery (synchronous CPU work) starts.
  if (prefetched) await new Promise((r) => setImmediate(r));
  try {
    const v = await askFacilitator("verify", VerifyAnswer, client, (f) => f.verify(payload, req), req.network);
    if (v.isValid) local?.verified.add(payload, req);
    return v;
  } finally {
    if (prefetched) local!.reads.drop(prefetched);
  }
}

/**
 * Settles a verified payment. Throws SettlementUnknownError (in-process) or
 * FacilitatorError (timeout, unreachable) when the outcome was not learned.
 */
export async function settleWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle> {
  const { client, local } = builtOrThrow();
  if (local?.verified.take(payload, req)) {
    const direct = await settleVerified(local.chain, payload, req, env().PAYMENT_TIMEOUT_MS);
    if (direct) return direct;
  }
  return askFacilitator("settle", SettleAnswer, client, (f) => f.settle(payload, req), req.network);
}

const READER = Symbol.for("echo.x402.reader");
type ReaderHolder = { [READER]?: PublicClient };

/** Reads an authorization's outcome on the settlement chain (in-process or remote facilitator alike). */
export function evmAuthorizationOutcome(payload: PaymentPayload, req: PaymentRequirements): Promise<AuthorizationOutcome> {
  const g = globalThis as ReaderHolder;
  if (!g[READER]) {
    const cfg = env();
    const rpc = cfg.SETTLEMENT_RPC_URL ?? cfg.BASE_RPC_URL;
    g[READER] = createPublicClient({ transport: http(rpc, { timeout: cfg.PAYMENT_TIMEOUT_MS, retryCount: 0 }) });
  }
  return authorizationOutcome(g[READER], payload, req);
}
