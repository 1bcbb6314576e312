/**
 * The facilitator that verifies and settles Solana payments: the remote FACILITATOR_URL
 * when set, otherwise an in-process `x402Facilitator` with @x402/svm's exact scheme. The
 * in-process one checks the transaction offline (instruction layout, transferChecked
 * amount, mint, destination token account, fee payer safety, signatures) and calls the
 * RPC only to simulate, send and confirm; its fee payer (SOLANA_FEE_PAYER_SECRET) adds the
 * last signature and pays the network fee. Every RPC request has a timeout; verify and
 * settle go through askFacilitator (timeouts, zod-checked answers).
 */
import {
  address,
  createDefaultRpcTransport,
  createKeyPairSignerFromBytes,
  createSolanaRpcFromTransport,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  isSolanaError,
  signBytes,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type RpcTransport,
  type Signature,
  type Transaction,
} from "@solana/kit";
import type { FacilitatorClient } from "@x402/core/server";
import { remoteFacilitatorClient } from "@/lib/payments/x402/remote";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { env } from "@/lib/config/env";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { localFeePayer, remoteFeePayer, svmMode, svmNetwork } from "@/lib/payments/svm/config";
import { processState, resetProcessState } from "@/lib/process-state";
import { noteNoAnswer, noteRefused, recordingChainCalls } from "@/lib/payments/x402/chain-call";
import { svmFeeCaps } from "@/lib/payments/svm/fees";

export type SvmVerify = CheckedVerify;
export type SvmSettle = CheckedSettle;

/**
 * An RPC client whose every request is aborted after PAYMENT_TIMEOUT_MS. A request the
 * node did not answer (connection refused or cut, timeout, HTTP error: the transport
 * throws; a JSON-RPC error is an answer) is noted for the verification or settlement
 * under way (../x402/chain-call.ts): @x402/svm reads it as a failed simulation, which
 * would blame the payer for our outage.
 */
function rpcWithTimeout(url: string) {
  const ms = env().PAYMENT_TIMEOUT_MS;
  const base = createDefaultRpcTransport({ url });
  const transport = (async <TResponse>(cfg: Parameters<RpcTransport>[0]) => {
    const timeout = AbortSignal.timeout(ms);
    try {
      return await base<TResponse>({ ...cfg, signal: cfg.signal ? AbortSignal.any([cfg.signal, timeout]) : timeout });
    } catch (err) {
      noteNoAnswer(err);
      throw err;
    }
  }) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}

const rpcOf = (url: string) => processState(`x402.svm.rpc:${url}`, () => rpcWithTimeout(url));

/** The reason of a settlement the RPC node refused to send (its preflight simulation failed): nothing reached the cluster, no fee was paid. */
export const PREFLIGHT_REFUSED = "invalid_exact_svm_transaction_refused_by_preflight";

async function buildLocal(): Promise<FacilitatorClient> {
  const key = localFeePayer();
  const rpcUrl = env().SOLANA_RPC_URL;
  if (!key || !rpcUrl) throw new FacilitatorError("no Solana fee payer or RPC configured");
  const network = svmNetwork() as `${string}:${string}`;
  const signer = await createKeyPairSignerFromBytes(key.bytes);
  const rpc = rpcOf(rpcUrl);
  // A network → RPC map (not `defaultRpcUrl`) so that our timeout transport is used.
  const base = toFacilitatorSvmSigner(signer, { [network]: rpc } as never);
  const facilitator = new x402Facilitator();
  // Registered by hand (registerExactSvmScheme takes no options): the compute budget and
  // signatures a payment may make the fee payer pay for are capped (./fees.ts). Payments
  // reach the facilitator as x402 v2 only (lib/payments/x402/codec.ts maps v1 clients).
  facilitator.register(
    network,
    new ExactSvmScheme(
      {
        ...base,
        // With the node's preflight: a transaction that would fail (the payer's funds spent
        // by another payment meanwhile) is refused by the node instead of landing failed at
        // the fee payer's expense. @x402/svm sends with skipPreflight.
        sendTransaction: async (tx: string) => {
          try {
            return await rpc.sendTransaction(tx as Base64EncodedWireTransaction, { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed" }).send();
          } catch (err) {
            if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) noteRefused(err);
            throw err;
          }
        },
      } as typeof base,
      undefined,
      svmFeeCaps(),
    ),
  );
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

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0]!;

/**
 * Verifies a payment. In process, a refusal while the RPC node did not answer (its
 * simulation could not run) judged nothing: FacilitatorError (503, the payment stays
 * usable), never the payer's fault.
 */
export async function verifySvm(payload: PaymentPayload, req: PaymentRequirements): Promise<SvmVerify> {
  const { call, result: v } = await recordingChainCalls(() => askFacilitator("verify", VerifyAnswer, client(), (f) => f.verify(payload, req), req.network));
  if (!v.isValid && call.noAnswer) throw new FacilitatorError(`the Solana RPC could not be reached to verify the payment (${firstLine(call.noAnswer)})`);
  return v;
}

/**
 * Settles a payment. A send the node refused in its preflight simulation is answered as
 * PREFLIGHT_REFUSED (nothing was sent: never a transaction that "may land").
 */
export async function settleSvm(payload: PaymentPayload, req: PaymentRequirements): Promise<SvmSettle> {
  const { call, result: s } = await recordingChainCalls(() => askFacilitator("settle", SettleAnswer, client(), (f) => f.settle(payload, req), req.network));
  if (!s.success && !s.transaction && call.refused) return { ...s, errorReason: PREFLIGHT_REFUSED, errorMessage: firstLine(call.refused) };
  return s;
}

/** The balance (base units) of SPL token account `account` now; null when the node did not answer or it is not a token account. */
export async function svmTokenAccountBalance(account: string): Promise<bigint | null> {
  const rpcUrl = env().SOLANA_RPC_URL;
  if (!rpcUrl) return null;
  try {
    const { value } = await rpcOf(rpcUrl).getTokenAccountBalance(address(account), { commitment: "confirmed" }).send();
    return BigInt(value.amount);
  } catch {
    return null;
  }
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
    const { value } = await rpcOf(rpcUrl).getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
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
  const rpc = rpcOf(rpcUrl);
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
