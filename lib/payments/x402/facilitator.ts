/**
 * The facilitator that verifies and settles x402 payments: a remote one when
 * FACILITATOR_URL is set, otherwise an in-process `x402Facilitator` whose signature
 * checks run locally and whose settlements are sent with FACILITATOR_PRIVATE_KEY to
 * SETTLEMENT_RPC_URL (default BASE_RPC_URL). Calls go through askFacilitator (timeouts,
 * zod-checked answers).
 */
import { createWalletClient, http, publicActions, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import { x402Facilitator } from "@x402/core/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";

export { FacilitatorError } from "@/lib/payments/x402/facilitator-call";

export function chainIdOf(network: string): number {
  const m = network.match(/^eip155:(\d+)$/);
  if (!m) throw new Error(`not an EVM network: ${network}`);
  return Number(m[1]);
}

function buildClient(): FacilitatorClient | null {
  const cfg = env();
  if (cfg.FACILITATOR_URL) return new HTTPFacilitatorClient({ url: cfg.FACILITATOR_URL });
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
  const signer = fasterSigner(wallet, account.address);
  const facilitator = new x402Facilitator();
  // The viem wallet client provides every method the EVM facilitator signer needs.
  registerExactEvmScheme(facilitator, { signer, networks: cfg.X402_NETWORK as `${string}:${string}` });
  return {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as FacilitatorClient;
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
 * - fee estimates are reused for two seconds.
 */
function fasterSigner(wallet: ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>, address: `0x${string}`) {
  const base = toFacilitatorEvmSigner({ ...wallet, address } as never) as Record<string, unknown> & {
    getCode(a: { address: `0x${string}` }): Promise<`0x${string}` | undefined>;
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
type Holder = { [KEY]?: FacilitatorClient | null };

/** The configured facilitator, or null when this instance cannot settle EVM payments. */
export function facilitator(): FacilitatorClient | null {
  const g = globalThis as Holder;
  if (g[KEY] === undefined) g[KEY] = buildClient();
  return g[KEY];
}

function facilitatorOrThrow(): FacilitatorClient {
  const f = facilitator();
  if (!f) throw new FacilitatorError("no facilitator configured");
  return f;
}

export function verifyWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedVerify> {
  return askFacilitator("verify", VerifyAnswer, facilitatorOrThrow(), (f) => f.verify(payload, req), req.network);
}

export function settleWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle> {
  return askFacilitator("settle", SettleAnswer, facilitatorOrThrow(), (f) => f.settle(payload, req), req.network);
}
