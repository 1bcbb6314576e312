/**
 * The facilitator that verifies and settles x402 payments: a remote one when
 * FACILITATOR_URL is set, otherwise an in-process `x402Facilitator` whose signature
 * checks run locally and whose settlements are sent with FACILITATOR_PRIVATE_KEY to
 * SETTLEMENT_RPC_URL (default BASE_RPC_URL). Calls go through askFacilitator (timeouts,
 * zod-checked answers).
 */
import { createWalletClient, http, nonceManager, publicActions, type Hex } from "viem";
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
  // A local nonce manager saves eth_getTransactionCount on every settlement (this
  // process is the only sender for the facilitator key).
  const account = privateKeyToAccount(cfg.FACILITATOR_PRIVATE_KEY as Hex, { nonceManager });
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
 * The facilitator signer with fewer RPC round trips per settlement: contract bytecode is
 * remembered once seen (contracts do not disappear; empty code is re-read, since a smart
 * wallet may get deployed), and fee estimates are reused for two seconds instead of
 * fetching the latest block for every transaction.
 */
function fasterSigner(wallet: ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>, address: `0x${string}`) {
  const base = toFacilitatorEvmSigner({ ...wallet, address } as never) as Record<string, unknown> & {
    getCode(a: { address: `0x${string}` }): Promise<`0x${string}` | undefined>;
    writeContract(a: Record<string, unknown>): Promise<`0x${string}`>;
  };
  const code = new Map<string, `0x${string}`>();
  let fees: { at: number; v: Promise<Record<string, bigint>> } | null = null;
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
  return {
    ...base,
    getCode: async (a: { address: `0x${string}` }) => {
      const k = a.address.toLowerCase();
      const hit = code.get(k);
      if (hit) return hit;
      const c = await base.getCode(a);
      if (c && c !== "0x") code.set(k, c);
      return c;
    },
    writeContract: async (a: Record<string, unknown>) => base.writeContract({ ...(await currentFees()), ...a }),
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
