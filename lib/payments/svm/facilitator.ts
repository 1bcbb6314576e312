/**
 * The facilitator that verifies and settles Solana payments: the remote FACILITATOR_URL
 * when set, otherwise an in-process `x402Facilitator` with @x402/svm's exact scheme. The
 * in-process one checks the transaction offline (instruction layout, transferChecked
 * amount, mint, destination token account, fee payer safety, signatures) and calls the
 * RPC only to simulate, send and confirm; its fee payer (SOLANA_FEE_PAYER_SECRET) adds the
 * last signature and pays the network fee. Every RPC request has a timeout; verify and
 * settle go through askFacilitator (timeouts, zod-checked answers).
 */
import { createDefaultRpcTransport, createKeyPairSignerFromBytes, createSolanaRpcFromTransport, getBase58Decoder, getCompiledTransactionMessageDecoder, signBytes, type Blockhash, type RpcTransport, type Signature, type Transaction } from "@solana/kit";
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

/**
 * The id the payment's transaction will have once the in-process facilitator adds its
 * signature (its fee payer's, deterministic for these message bytes), or null with a
 * remote facilitator: recorded before the transaction is sent, so reconciliation can
 * look it up whatever happens to the process sending it.
 */
export async function svmFeePayerSignature(tx: Transaction): Promise<string | null> {
  const key = svmMode() === "local" ? localFeePayer() : null;
  if (!key) return null;
  const signer = await createKeyPairSignerFromBytes(key.bytes);
  return getBase58Decoder().decode(await signBytes(signer.keyPair.privateKey, tx.messageBytes));
}

/**
 * What the cluster did with transaction `signature` (reconciliation, without the
 * transaction): landed, failed, or not seen; `expired` when not seen and `expiresAt`
 * (seconds) is past, so its blockhash can no longer be used; null without a clear answer.
 */
export async function svmSignatureOutcome(signature: string, expiresAt: number | null): Promise<"landed" | "failed" | "absent" | "expired" | null> {
  const rpcUrl = env().SOLANA_RPC_URL;
  if (!rpcUrl) return null;
  try {
    const { value } = await rpcWithTimeout(rpcUrl).getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
    const status = value[0];
    if (status) {
      if (status.err) return "failed";
      return status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized" ? "landed" : null;
    }
    return expiresAt !== null && expiresAt < Date.now() / 1000 ? "expired" : "absent";
  } catch {
    return null;
  }
}

/**
 * What the ledger says about a payment transaction: "landed" (executed successfully and
 * confirmed), "failed" (executed and failed, or it can never land because its blockhash
 * expired), "absent" (not seen and still able to land). Throws when it cannot tell (no
 * RPC, no known signature, only processed so far, or the node did not answer).
 *
 * The transaction's id is its first signature, the fee payer's. In-process, that key is
 * ours and Ed25519 signatures are deterministic, so the id is known before (and whether
 * or not) the facilitator sent it; with a remote facilitator only the signature it
 * reported (`knownSignature`) can be looked up.
 */
export async function svmTransactionState(tx: Transaction, knownSignature: string | null): Promise<{ state: "landed" | "failed" | "absent"; signature: string }> {
  const rpcUrl = env().SOLANA_RPC_URL;
  if (!rpcUrl) throw new Error("no SOLANA_RPC_URL to read the payment's outcome from");
  let signature = knownSignature;
  const key = svmMode() === "local" ? localFeePayer() : null;
  if (!signature && key) {
    const signer = await createKeyPairSignerFromBytes(key.bytes);
    signature = getBase58Decoder().decode(await signBytes(signer.keyPair.privateKey, tx.messageBytes));
  }
  if (!signature) throw new Error("the payment's transaction signature is not known");
  const rpc = rpcWithTimeout(rpcUrl);
  const { value } = await rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (status) {
    if (status.err) return { state: "failed", signature };
    if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") return { state: "landed", signature };
    throw new Error(`transaction ${signature} is only ${status.confirmationStatus ?? "processed"} so far`);
  }
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const valid = await rpc.isBlockhashValid(message.lifetimeToken as Blockhash, { commitment: "confirmed" }).send();
  return { state: valid.value ? "absent" : "failed", signature };
}
