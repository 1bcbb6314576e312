/**
 * What happened on the chain during one verification or settlement of the in-process
 * facilitator, to tell whose failure a refusal is.
 *
 * The official x402 EVM scheme turns every error of its signer into an answer: an RPC
 * node that does not answer during verification reads as "simulation failed" or "invalid
 * signature", a transaction our side could not send as "transaction failed". Both would
 * reach the payer as a bad payment (402) although the payment is fine. The signer's
 * transport and its senders note here what they saw (AsyncLocalStorage follows the
 * scheme's calls), and the facilitator turns such an answer into ours: 503, the
 * authorization stays usable.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { processState } from "@/lib/process-state";
import type { TakeStatement } from "@/lib/payments/x402/nonces";

export interface ChainCall {
  /** The first request to the node that got no answer (timeout, refused or cut connection, HTTP error). */
  noAnswer: unknown;
  /** A failure on our side while sending (NotSentError, or SettlementUnknownError when it may have been sent). */
  ours: Error | null;
  /** A transaction the node refused to send after its preflight simulation failed (Solana): nothing reached the chain. */
  refused: unknown;
  /**
   * What the transactions whose receipts the call saw cost the key (wei; undefined when it
   * saw none): the official scheme's ERC-6492 wallet deployment and its transfer, mined
   * whether they succeeded or reverted.
   */
  fee?: bigint;
  /** The transactions counted in `fee`. */
  feeOf?: Set<string>;
}

// One store per process: Next bundles this module more than once.
const storage = () => processState("x402.chain-call", () => new AsyncLocalStorage<ChainCall>());

/** Runs `fn` with a fresh record of what the chain did; returns both. */
export async function recordingChainCalls<T>(fn: () => Promise<T>): Promise<{ call: ChainCall; result: T }> {
  const call: ChainCall = { noAnswer: null, ours: null, refused: null };
  const result = await storage().run(call, fn);
  return { call, result };
}

/** Notes a request the node did not answer (no-op outside recordingChainCalls). */
export function noteNoAnswer(err: unknown): void {
  const c = storage().getStore();
  if (c && c.noAnswer === null) c.noAnswer = err;
}

/** Notes a transaction the node refused in its preflight simulation (never sent). */
export function noteRefused(err: unknown): void {
  const c = storage().getStore();
  if (c && c.refused === null) c.refused = err;
}

/** Notes what a transaction of the call cost the key, from its receipt (no-op outside recordingChainCalls). */
export function noteFee(hash: string, fee: bigint | undefined): void {
  const c = storage().getStore();
  if (!c || fee === undefined || c.feeOf?.has(hash)) return;
  (c.feeOf ??= new Set()).add(hash);
  c.fee = (c.fee ?? 0n) + fee;
}

/** Notes a failure of ours while sending a transaction. */
export function noteOurFailure(err: Error): void {
  const c = storage().getStore();
  if (c) c.ours ??= err;
}

/**
 * Called with a settlement transaction's hash after it is signed and before it is sent
 * (confirmed mode: the payment row records it first, lib/payments/ledger.ts markSent). A
 * hook that throws stops the send: nothing went out.
 *
 * `inTake`, when present, is the same record made by the statement that takes the
 * transaction's nonce (ledger.ts, takeMarkingSent): for a transaction `hash` signed on
 * nonce `nonce` ahead of the take, written only when the take gives that nonce. The sender
 * then does not call the hook for that transaction.
 */
export type BeforeSend = ((hash: string) => Promise<void>) & { inTake?: (hash: string, nonce: number) => TakeStatement };

const hooks = () => processState("x402.before-send", () => new AsyncLocalStorage<BeforeSend>());

/** Runs `fn` (a settlement) with `hook` called before each of its transactions goes out. */
export function withBeforeSend<T>(hook: BeforeSend, fn: () => Promise<T>): Promise<T> {
  return hooks().run(hook, fn);
}

/** The hook of the settlement under way, if any. */
export function beforeSendHook(): BeforeSend | undefined {
  return hooks().getStore();
}
