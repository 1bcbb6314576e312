/**
 * The facilitator that verifies and settles Solana payments: the remote FACILITATOR_URL
 * when set, otherwise an in-process `x402Facilitator` with @x402/svm's exact scheme. The
 * in-process one checks the transaction offline (instruction layout, transferChecked
 * amount, mint, destination token account, fee payer safety, signatures) and calls the
 * RPC only to simulate, send and confirm; its fee payer (SOLANA_FEE_PAYER_SECRET) adds the
 * last signature and pays the network fee. Every RPC request has a timeout; verify and
 * settle go through askFacilitator (timeouts, zod-checked answers).
 */
import { createDefaultRpcTransport, createKeyPairSignerFromBytes, createSolanaRpcFromTransport, type RpcTransport } from "@solana/kit";
import type { FacilitatorClient } from "@x402/core/server";
import { remoteFacilitatorClient } from "@/lib/payments/x402/remote";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";
import { env } from "@/lib/config/env";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { localFeePayer, remoteFeePayer, svmMode, svmNetwork } from "@/lib/payments/svm/config";
import { processState, resetProcessState } from "@/lib/process-state";

export type SvmVerify = CheckedVerify;
export type SvmSettle = CheckedSettle;

/** An RPC client whose every request is aborted after PAYMENT_TIMEOUT_MS. */
function rpcWithTimeout(url: string) {
  const ms = env().PAYMENT_TIMEOUT_MS;
  const base = createDefaultRpcTransport({ url });
  const transport = (<TResponse>(cfg: Parameters<RpcTransport>[0]) => {
    const timeout = AbortSignal.timeout(ms);
    return base<TResponse>({ ...cfg, signal: cfg.signal ? AbortSignal.any([cfg.signal, timeout]) : timeout });
  }) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}

async function buildLocal(): Promise<FacilitatorClient> {
  const key = localFeePayer();
  const rpcUrl = env().SOLANA_RPC_URL;
  if (!key || !rpcUrl) throw new FacilitatorError("no Solana fee payer or RPC configured");
  const network = svmNetwork() as `${string}:${string}`;
  const signer = await createKeyPairSignerFromBytes(key.bytes);
  const facilitator = new x402Facilitator();
  // A network → RPC map (not `defaultRpcUrl`) so that our timeout transport is used.
  registerExactSvmScheme(facilitator, { signer: toFacilitatorSvmSigner(signer, { [network]: rpcWithTimeout(rpcUrl) } as never), networks: network });
  return {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as FacilitatorClient;
}

const KEY = "x402.svm.facilitator";
function holder() {
  return processState<{ local?: Promise<FacilitatorClient>; remote?: FacilitatorClient }>(KEY, () => ({}));
}

function remoteClient(): FacilitatorClient {
  const h = holder();
  return (h.remote ??= remoteFacilitatorClient()!);
}

async function client(): Promise<FacilitatorClient> {
  const mode = svmMode();
  if (mode === "remote") return remoteClient();
  if (mode === "local") {
    const h = holder();
    h.local ??= buildLocal().catch((err) => {
      delete h.local; // let a later call try again
      throw err;
    });
    return h.local;
  }
  throw new FacilitatorError("Solana payments are not configured");
}

/** The fee payer clients must name in the transaction (requirement `extra.feePayer`), or null when Solana is not offered. */
export function svmFeePayer(): string | null {
  const mode = svmMode();
  if (mode === "local") return localFeePayer()!.address;
  if (mode === "remote") return remoteFeePayer(() => remoteClient().getSupported());
  return null;
}

/** Forget the facilitator clients (tests change the environment between cases). */
export function resetSvmFacilitatorForTests(): void {
  resetProcessState(KEY);
}

export function verifySvm(payload: PaymentPayload, req: PaymentRequirements): Promise<SvmVerify> {
  return askFacilitator("verify", VerifyAnswer, client(), (f) => f.verify(payload, req), req.network);
}

export function settleSvm(payload: PaymentPayload, req: PaymentRequirements): Promise<SvmSettle> {
  return askFacilitator("settle", SettleAnswer, client(), (f) => f.settle(payload, req), req.network);
}
