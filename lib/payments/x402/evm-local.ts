/**
 * What the in-process EVM facilitator adds around the official `exact` scheme
 * (`@x402/evm/exact/facilitator`), for EIP-3009 authorizations:
 *
 * - A plain-ECDSA authorization from an account without code is verified here first: the
 *   official verifier's checks of recipient, amount and validity window, and the very
 *   on-chain simulation it runs, in which the token contract checks the signature itself
 *   (so it is not recovered here as well: a successful simulation of the exact transfer
 *   settlement sends proves it). This check can only answer "valid", and only when every
 *   step passed, the simulation included; anything else goes to the official verifier,
 *   which decides and explains the refusal.
 * - Settlement of an authorization this process verified moments ago sends the transfer
 *   directly. The official settle verifies everything again first (a second signature
 *   recovery) and then sends the identical transaction; the token contract checks the
 *   signature, validity window and nonce itself, so skipping the repeat cannot move
 *   anything the authorization does not allow. Anything else (ERC-6492 wrappers, contract
 *   wallets, a payment this process did not verify) takes the official path.
 * - The outcome of an authorization is read from the chain (`authorizationState`, then
 *   the `AuthorizationUsed` log and its transaction) when a settlement's own result was
 *   not learned.
 */
import * as secp256k1 from "tiny-secp256k1";
import { bytesToHex, encodeFunctionData, type Abi, getAddress, hexToBytes, isAddressEqual, isErc6492Signature, keccak256, parseAbi, parseAbiItem, parseErc6492Signature, parseEventLogs, parseSignature, type Hex, type Log, type PublicClient } from "viem";
import { eip3009ABI } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { CheckedSettle, CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import type { SendAhead } from "@/lib/payments/x402/send-ahead";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { brand } from "@/lib/errors/brand";

interface Eip3009 {
  signature: Hex;
  authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

/** The settlement was attempted but its result was not learned; the transfer may or may not happen. */
export class SettlementUnknownError extends Error {
  constructor(
    message: string,
    readonly transaction: Hex | null,
  ) {
    super(message);
    this.name = "SettlementUnknownError";
  }
}
brand(SettlementUnknownError, "SettlementUnknownError");

/**
 * Why a settlement failed on the service's side (its key, nonce, gas, RPC node), never
 * because of the payment: the payer keeps an authorization that can be presented again.
 */
export type OurSettlementReason = "rpc_unreachable" | "nonce_unavailable" | "nonce_conflict" | "nonce_gap" | "transaction_refused" | "transaction_reverted" | "ledger_unavailable";

/**
 * The settlement transaction was definitely not sent (or sent and refused for a reason of
 * ours): nothing moved. `fee`: what transactions of ours mined meanwhile cost the key (a
 * transfer that reverted for a reason of ours, a wallet deployment), counted as a failed
 * settlement's fee, never against the payer. `transaction`: the one mined transaction that
 * fee is, when it is one (a transfer that reverted for a reason of ours): the service's
 * own fee is recorded under it, so whoever takes the payment over knows it is ours.
 */
export class NotSentError extends Error {
  fee?: bigint;
  transaction?: string;
  constructor(
    message: string,
    readonly reason: OurSettlementReason,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = "NotSentError";
  }
}
brand(NotSentError, "NotSentError");

const eip3009Of = (payload: PaymentPayload): Eip3009 => payload.payload as unknown as Eip3009;
/** A plain 65-byte ECDSA signature (not ERC-6492-wrapped, not a contract wallet's). */
const isPlainEcdsa = (sig: string) => /^0x[0-9a-fA-F]{130}$/.test(sig);

/** The arguments of `transferWithAuthorization(..., v, r, s)` exactly as the official scheme builds them. */
function transferArgs(p: Eip3009) {
  const a = p.authorization;
  const sig = parseSignature(p.signature);
  return [getAddress(a.from), getAddress(a.to), BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, sig.v ?? BigInt(sig.yParity), sig.r, sig.s] as const;
}

type ReadContract = (a: { address: Hex; abi: unknown; functionName: string; args?: readonly unknown[] }) => Promise<unknown>;

export interface LocalReads {
  read: ReadContract;
  getCode(a: { address: Hex }): Promise<Hex | undefined>;
  /** An eth_call of `data` on `to` at the latest block: true when it succeeds, false otherwise (never rejects; faster than `read` for the simulation). */
  call?(to: Hex, data: Hex): Promise<boolean>;
  /**
   * The same call with `owner`'s balance of token `to` read in the same request to the
   * node (`balance` null: it did not say); never rejects either.
   */
  callWithBalance?(to: Hex, data: Hex, owner: Hex): Promise<{ ok: boolean; balance: bigint | null }>;
  /** Runs once the simulation's request is on its way (reads the settlement will need go out behind it). */
  afterSimulationSent?(): void;
}

/**
 * The official verifier's checks (`verifyEIP3009` of `@x402/evm`) for a plain-ECDSA
 * authorization from an account without code: domain, signature, recipient, validity
 * window, amount, asset deployed, on-chain simulation. Valid, or null for "ask the
 * official verifier" — never a refusal of its own.
 */
export async function verifyLocally(chain: LocalReads, payload: PaymentPayload, req: PaymentRequirements, opts: { balance?: boolean } = {}): Promise<(CheckedVerify & { payerBalance?: bigint | null }) | null> {
  const p = eip3009Of(payload);
  if (!p?.authorization || !isPlainEcdsa(p.signature)) return null;
  if (payload.accepted?.scheme !== "exact" || req.scheme !== "exact" || payload.accepted.network !== req.network) return null;
  const name = req.extra?.name;
  const version = req.extra?.version;
  const chainId = evmChainId(req.network);
  if (typeof name !== "string" || typeof version !== "string" || chainId === null) return null;
  const a = p.authorization;
  let asset: Hex, from: Hex, call: TransferCall;
  try {
    from = getAddress(a.from);
    call = transferCall(payload, req);
    asset = call.address;
  } catch {
    return null;
  }
  // The simulation goes out first; the checks below run while it travels. It is the very
  // transfer settlement sends: the token contract itself checks the signature (against its
  // own EIP-712 domain, so also that the payer signed the domain the requirement names),
  // the validity window, the nonce and the balance. A payer with code signs by ERC-1271,
  // and a token without code proves nothing: those take the official path.
  // With `opts.balance`, the payer's balance (issue 30's funds check, lib/payments/x402/hold.ts)
  // travels in the simulation's own request: no second round trip, and no second request
  // queued behind the simulation at the node.
  let balance: bigint | null | undefined;
  const simulated =
    opts.balance && chain.callWithBalance
      ? chain.callWithBalance(asset, encodedCall(call), from).then((r) => {
          balance = r.balance;
          return r.ok;
        })
      : chain.call
        ? chain.call(asset, encodedCall(call))
        : chain.read(call).then(
            () => true,
            () => false,
          );
  chain.afterSimulationSent?.();
  const [payerCode, assetCode] = await Promise.all([chain.getCode({ address: from }), chain.getCode({ address: asset })]);
  if (payerCode && payerCode !== "0x") return null;
  if (!assetCode || assetCode === "0x") return null;
  if (getAddress(a.to) !== getAddress(req.payTo)) return null;
  const now = Math.floor(Date.now() / 1000);
  if (BigInt(a.validBefore) < BigInt(now + 6) || BigInt(a.validAfter) > BigInt(now) || BigInt(a.value) !== BigInt(req.amount)) return null;
  if (!(await simulated)) return null;
  return { isValid: true, payer: a.from, ...(balance !== undefined && { payerBalance: balance }) };
}

/**
 * A transaction hash signed with libsecp256k1 (RFC 6979 nonces and low s, like viem's
 * signer, so the signature is the same; a fraction of the JavaScript signer's CPU time).
 */
export function signDigest(hash: Hex, privateKey: Uint8Array): { r: Hex; s: Hex; yParity: 0 | 1 } {
  const { signature, recoveryId } = secp256k1.signRecoverable(hexToBytes(hash), privateKey);
  return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32, 64)), yParity: recoveryId as 0 | 1 };
}

/**
 * Payments this process verified, by signature and requirement, for a few minutes: only
 * these may be settled without verifying again.
 */
export class VerifiedPayments {
  private readonly seen = new Map<string, number>();
  private static key(payload: PaymentPayload, req: PaymentRequirements): string {
    return `${eip3009Of(payload).signature?.toLowerCase()}|${req.network}|${req.asset.toLowerCase()}|${req.payTo.toLowerCase()}|${req.amount}`;
  }
  add(payload: PaymentPayload, req: PaymentRequirements): void {
    const now = Date.now();
    if (this.seen.size > 10_000) for (const [k, t] of this.seen) if (t < now) this.seen.delete(k);
    this.seen.set(VerifiedPayments.key(payload, req), now + 5 * 60_000);
  }
  /** True once per verification: a payment is settled at most once on this path. */
  take(payload: PaymentPayload, req: PaymentRequirements): boolean {
    const k = VerifiedPayments.key(payload, req);
    const t = this.seen.get(k);
    this.seen.delete(k);
    return t !== undefined && t >= Date.now();
  }
}

type Receipt = { status: "success" | "reverted"; logs: Log[]; gasUsed?: bigint; effectiveGasPrice?: bigint };

/** What a settlement's transaction cost the key (wei), when its receipt says. */
export const receiptFee = (r: Receipt): bigint | undefined => (r.gasUsed !== undefined && r.effectiveGasPrice !== undefined ? r.gasUsed * r.effectiveGasPrice : undefined);

export interface LocalChain {
  /**
   * Sends a contract call; the receipt when the node already has it, else null. `broadcast`:
   * answer as soon as the node accepted it (no receipt asked for, never a send that waits
   * for inclusion).
   */
  submit(a: { address: Hex; abi: unknown; functionName: string; args: readonly unknown[] }, broadcast?: boolean, ahead?: SendAhead | null): Promise<{ hash: Hex; receipt: Receipt | null }>;
  /** `patient`: nobody waits for the answer (see InclusionWatcher). */
  waitForTransactionReceipt(a: { hash: Hex; timeout: number; patient?: boolean }): Promise<Receipt>;
  /** Runs the call on the chain's latest state: true when it succeeds, false when it reverts, null without an answer. */
  simulate(a: { address: Hex; abi: unknown; functionName: string; args: readonly unknown[] }): Promise<boolean | null>;
}

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const authorizationUsedEvent = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");

/** Whether the receipt carries the token's Transfer of exactly the authorized amount to the authorized recipient. */
function transferred(logs: Log[], asset: Hex, a: Eip3009["authorization"]): boolean {
  const events = parseEventLogs({ abi: [transferEvent], eventName: "Transfer", logs: logs.filter((l) => isAddressEqual(l.address, asset)) });
  return events.some((e) => isAddressEqual(e.args.from, a.from) && isAddressEqual(e.args.to, a.to) && e.args.value === BigInt(a.value));
}

/** The settlement's contract call for a plain-ECDSA authorization: `transferWithAuthorization(..., v, r, s)` on the requirement's asset. */
export function transferCall(payload: PaymentPayload, req: PaymentRequirements): TransferCall {
  const hit = transferCalls.get(payload);
  if (hit && hit.asset === req.asset) return hit.call;
  const call = { address: getAddress(req.asset), abi: eip3009ABI, functionName: "transferWithAuthorization", args: transferArgs(eip3009Of(payload)) } as const;
  transferCalls.set(payload, { asset: req.asset, call });
  ownCalls.add(call);
  return call;
}

type TransferCall = { readonly address: Hex; readonly abi: typeof eip3009ABI; readonly functionName: "transferWithAuthorization"; readonly args: ReturnType<typeof transferArgs> };

/**
 * A payment's transfer call, built once per payload: a paid call encodes it for the
 * simulation, for the broadcast prepared during verification and for the send that
 * claims that broadcast; with the call object and its encoding kept (encodedCall), the
 * ABI encoding runs once instead of three times, one of them after the handler.
 */
const transferCalls = new WeakMap<PaymentPayload, { asset: string; call: TransferCall }>();
/** The call objects transferCall built (never changed after): only these have their encoding kept. */
const ownCalls = new WeakSet<object>();
const encodedCalls = new WeakMap<object, Hex>();

/** A contract call's data; encoded once for a call built by transferCall, every time for anyone else's (the x402 scheme's objects are not ours to assume immutable). */
export function encodedCall(a: { abi: unknown; functionName: string; args?: readonly unknown[] }): Hex {
  const kept = encodedCalls.get(a);
  if (kept !== undefined) return kept;
  const data = encodeFunctionData({ abi: a.abi as Abi, functionName: a.functionName, args: (a.args ?? []) as unknown[] });
  if (ownCalls.has(a)) encodedCalls.set(a, data);
  return data;
}

/** Whether an authorization's signature is a plain 65-byte ECDSA one (the local settlement path takes only these). */
export const plainSignature = (payload: PaymentPayload): boolean => isPlainEcdsa(eip3009Of(payload).signature ?? "");

/**
 * Settles an authorization this process verified (see VerifiedPayments); returns null when
 * the payment must take the official path instead. Throws SettlementUnknownError when the
 * transaction may have been broadcast but its receipt was not obtained.
 */
export async function settleVerified(
  chain: LocalChain,
  payload: PaymentPayload,
  req: PaymentRequirements,
  timeoutMs: number,
  /** false: return as soon as the node accepted the transaction (optimistic mode); `broadcast` is then true unless it was already included. */
  wait = true,
  /** A nonce taken ahead for this send (optimistic mode), if any. */
  ahead?: SendAhead | null,
): Promise<(CheckedSettle & { broadcast?: boolean; fee?: bigint }) | null> {
  const p = eip3009Of(payload);
  if (!isPlainEcdsa(p.signature)) return null;
  const a = p.authorization;
  const base = { network: req.network, payer: a.from };
  // The official settle refuses within 6 s of validBefore; so does this one (the transaction would revert).
  if (BigInt(a.validBefore) < BigInt(Math.floor(Date.now() / 1000) + 6)) {
    return { ...base, success: false, transaction: "", errorReason: "invalid_exact_evm_payload_authorization_valid_before" };
  }
  const call = transferCall(payload, req);
  const asset = call.address;
  let tx: Hex;
  let receipt: Receipt | null;
  try {
    ({ hash: tx, receipt } = await chain.submit(call, !wait, ahead));
  } catch (err) {
    if (err instanceof NotSentError || err instanceof SettlementUnknownError) throw err;
    const message = firstLine(err);
    // Without an answer the transaction may have been sent.
    if (noAnswer(err)) throw new SettlementUnknownError(`the settlement transaction may have been sent (${message})`, null);
    // The node answered with an error: it refused the transaction (or, in automine mode,
    // mined it reverted); either way no transfer. Whose fault it is, the chain tells.
    await blamePayer(chain, call, "transaction_refused", message);
    return { ...base, success: false, transaction: "", errorReason: "invalid_exact_evm_transaction_failed", errorMessage: message };
  }
  if (!receipt && !wait) return { ...base, success: true, transaction: tx, broadcast: true };
  return confirmSubmitted(chain, payload, req, tx, receipt, timeoutMs);
}

/**
 * The outcome of a submitted settlement transaction: waits for its receipt (unless given;
 * `patient` when nobody waits for the answer) and checks the transfer. Throws
 * SettlementUnknownError without a receipt, NotSentError when it reverted although the
 * transfer still simulates (ours).
 */
export async function confirmSubmitted(chain: LocalChain, payload: PaymentPayload, req: PaymentRequirements, tx: Hex, receipt: Receipt | null, timeoutMs: number, patient = false): Promise<CheckedSettle & { fee?: bigint }> {
  const a = eip3009Of(payload).authorization;
  const base = { network: req.network, payer: a.from };
  // The call its settlement sent (built once per payload, see transferCall).
  const call = transferCall(payload, req);
  const asset = call.address;
  try {
    receipt ??= await chain.waitForTransactionReceipt({ hash: tx, timeout: timeoutMs, patient });
  } catch (err) {
    throw new SettlementUnknownError(`no receipt for settlement transaction ${tx} (${firstLine(err)})`, tx);
  }
  const fee = receiptFee(receipt);
  if (receipt.status !== "success") {
    await blamePayer(chain, call, "transaction_reverted", `settlement transaction ${tx} reverted`, fee, tx);
    return { ...base, success: false, transaction: tx, errorReason: "invalid_exact_evm_transaction_failed", fee };
  }
  if (!transferred(receipt.logs, asset, a)) return { ...base, success: false, transaction: tx, errorReason: "invalid_exact_evm_transfer_event_mismatch", fee };
  return { ...base, success: true, transaction: tx, fee };
}

/**
 * After a refused or reverted settlement (nothing moved): when the same transfer still
 * simulates successfully, the payment is fine and the failure was ours (gas, fees, the
 * key's funds, the node), so NotSentError is thrown and the payer keeps the authorization.
 * Returns when the payment itself fails (funds moved away, authorization used or expired).
 */
async function blamePayer(chain: LocalChain, call: Parameters<LocalChain["simulate"]>[0], reason: OurSettlementReason, message: string, fee?: bigint, tx?: Hex): Promise<void> {
  const ok = await chain.simulate(call).catch(() => null);
  if (ok === false) return;
  const err = new NotSentError(`the settlement failed on the service's side (${message})`, ok === null ? "rpc_unreachable" : reason);
  err.fee = fee;
  if (tx) err.transaction = tx;
  throw err;
}

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0]!;

/** True when the error chain shows the node never answered (timeout, connection or HTTP failure). */
export function noAnswer(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (["TimeoutError", "HttpRequestError", "SocketClosedError", "WebSocketRequestError", "AbortError"].includes(e.name ?? "")) return true;
  }
  return false;
}

/** What the chain says about an EIP-3009 authorization. */
export type AuthorizationOutcome = { kind: "transferred"; transaction: Hex | null } | { kind: "unused" } | { kind: "void" };

/** How far back to look for the AuthorizationUsed log of a payment retried after an unknown outcome. */
const LOG_LOOKBACK_BLOCKS = 10_000n;
const authorizationCanceledEvent = parseAbiItem("event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)");

/**
 * Reads the outcome of an authorization: unused (it can still be settled), transferred (by
 * whichever transaction, as long as that transaction moved exactly the authorized amount
 * from the payer to the authorized recipient) or void (cancelled by the payer, or used by
 * another authorization with the same nonce). The token keys authorization state by
 * (payer, nonce) only: a payer can spend the nonce it signed for us in a transfer of its
 * own (to itself, any amount) and front-run our settlement; the AuthorizationUsed log then
 * exists but we were never paid. So the Transfer that the same call emitted right after
 * the log (FiatToken: _markAuthorizationAsUsed, then _transfer) must be ours. Throws when
 * the authorization is used but its transaction cannot be read yet (a node may expose the
 * new state a moment before the block's logs): the outcome is then still unknown, never
 * "not paid".
 */
export async function authorizationOutcome(client: PublicClient, payload: PaymentPayload, req: PaymentRequirements, attempts = 4): Promise<AuthorizationOutcome> {
  const a = eip3009Of(payload).authorization;
  const asset = getAddress(req.asset);
  const authorizer = getAddress(a.from);
  const used = (await client.readContract({ address: asset, abi: eip3009ABI, functionName: "authorizationState", args: [authorizer, a.nonce] })) as boolean;
  if (!used) return { kind: "unused" };
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 250 * i));
    const latest = await client.getBlockNumber();
    const range = { address: asset, args: { authorizer, nonce: a.nonce }, fromBlock: latest > LOG_LOOKBACK_BLOCKS ? latest - LOG_LOOKBACK_BLOCKS : 0n, toBlock: "latest" as const };
    const [usedLogs, canceledLogs] = await Promise.all([client.getLogs({ ...range, event: authorizationUsedEvent }), client.getLogs({ ...range, event: authorizationCanceledEvent })]);
    const log = usedLogs[0];
    if (log) return (await paidUs(client, log, asset, a, req)) ? { kind: "transferred", transaction: log.transactionHash } : { kind: "void" };
    if (canceledLogs.length) return { kind: "void" };
  }
  throw new Error("the authorization is used on chain but its transaction was not found yet");
}

/**
 * Whether the transaction that used the authorization (its AuthorizationUsed log `used`)
 * transferred exactly the authorized value from the payer to the requirement's recipient
 * in the Transfer log that directly follows it.
 */
async function paidUs(client: PublicClient, used: Log, asset: Hex, a: Eip3009["authorization"], req: PaymentRequirements): Promise<boolean> {
  if (!isAddressEqual(a.to as Hex, req.payTo as Hex) || BigInt(a.value) !== BigInt(req.amount)) return false;
  const receipt = await client.getTransactionReceipt({ hash: used.transactionHash! });
  const next = receipt.logs.find((l) => l.logIndex === used.logIndex! + 1);
  return next !== undefined && isAddressEqual(next.address, asset) && transferred([next], asset, a);
}

/** Multicall3 at its canonical address (what the official verifier simulates a deployment with). */
const MULTICALL3: Hex = "0xcA11bde05977b3631167028862bE2a173976CA11";
const tryAggregateAbi = parseAbi(["function tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls) returns ((bool success, bytes returnData)[])"]);

/** A contract call: what a gas estimate is asked for. */
export type ContractCall = { address: Hex; abi: unknown; functionName: string; args: readonly unknown[] };

/**
 * What the official scheme sends to settle a contract wallet's authorization (an ERC-1271
 * signature, or an ERC-6492 wrapper), as one call whose gas estimate bounds what settling
 * costs the key: the transfer with the signature bytes; for an ERC-6492 wallet not deployed
 * yet (`payerCode` empty), its deployment and then the transfer, in one Multicall3 call that
 * reverts when either fails (an estimate of the transfer alone would fail before the
 * deployment). `deploys`: the settlement deploys the wallet first. Null for a plain
 * signature (the local path's transfer) or a payload that is not an EIP-3009 authorization.
 */
export function walletSettlementCall(payload: PaymentPayload, req: PaymentRequirements, payerCode: Hex | undefined): { call: ContractCall; deploys: boolean } | null {
  const p = eip3009Of(payload);
  if (!p?.authorization || typeof p.signature !== "string" || isPlainEcdsa(p.signature)) return null;
  return settlementCall(payload, req, payerCode, true);
}

/**
 * The transfer of an authorization as one contract call, for any signature: v, r, s for a
 * plain one (also inside an ERC-6492 wrapper of a deployed wallet), the bytes otherwise;
 * an ERC-6492 wallet not deployed yet (`payerCode` empty) is deployed first in the same
 * Multicall3 call (`requireSuccess`: it reverts when either fails; else it answers each
 * call's success). Throws on a malformed authorization.
 */
function settlementCall(payload: PaymentPayload, req: PaymentRequirements, payerCode: Hex | undefined, requireSuccess: boolean): { call: ContractCall; deploys: boolean } {
  const p = eip3009Of(payload);
  const a = p.authorization;
  const asset = getAddress(req.asset);
  const head = [getAddress(a.from), getAddress(a.to), BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce] as const;
  let signature = p.signature;
  if (isErc6492Signature(signature)) {
    const wrapped = parseErc6492Signature(signature);
    signature = wrapped.signature;
    if (wrapped.address && wrapped.data && (!payerCode || payerCode === "0x")) {
      const transfer = encodeFunctionData({ abi: eip3009ABI, functionName: "transferWithAuthorization", args: [...head, signature] });
      const calls = [
        { target: wrapped.address, callData: wrapped.data },
        { target: asset, callData: transfer },
      ];
      return { call: { address: MULTICALL3, abi: tryAggregateAbi, functionName: "tryAggregate", args: [requireSuccess, calls] }, deploys: true };
    }
  }
  if (isPlainEcdsa(signature)) {
    const sig = parseSignature(signature);
    return { call: { address: asset, abi: eip3009ABI, functionName: "transferWithAuthorization", args: [...head, sig.v ?? BigInt(sig.yParity), sig.r, sig.s] }, deploys: false };
  }
  return { call: { address: asset, abi: eip3009ABI, functionName: "transferWithAuthorization", args: [...head, signature] }, deploys: false };
}

/**
 * Whether the authorization's transfer would still succeed now (an eth_call of the very
 * transfer, for any payer: a plain ECDSA signature, a contract wallet's ERC-1271 bytes, or
 * an ERC-6492 wrapper whose wallet is deployed in the same simulated call): true, false
 * (it reverts: the payment itself fails), or null (the node did not answer).
 */
export async function transferSimulates(client: Pick<PublicClient, "readContract" | "getCode">, payload: PaymentPayload, req: PaymentRequirements): Promise<boolean | null> {
  const p = eip3009Of(payload);
  const read = client.readContract as unknown as ReadContract;
  try {
    const code = isErc6492Signature(p.signature) ? await client.getCode({ address: getAddress(p.authorization.from) }) : undefined;
    const { call, deploys } = settlementCall(payload, req, code, false);
    const results = await read(call);
    return deploys ? (results as ReadonlyArray<{ success: boolean }>)[1]?.success === true : true;
  } catch (err) {
    return noAnswer(err) ? null : false;
  }
}
