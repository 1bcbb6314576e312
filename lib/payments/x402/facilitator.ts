/**
 * The facilitator that verifies and settles x402 payments: a remote one when
 * FACILITATOR_URL or CDP keys are set (lib/payments/x402/remote.ts), otherwise an in-process `x402Facilitator` whose signature
 * checks run locally and whose settlements are sent with FACILITATOR_PRIVATE_KEY to
 * SETTLEMENT_RPC_URL (default BASE_RPC_URL). Calls go through askFacilitator (timeouts,
 * zod-checked answers).
 *
 * In process, every transaction of the key goes through one sender (./sender.ts: nonces
 * shared by all instances), the official scheme's included: its transfers of contract
 * wallets' payments and its ERC-6492 wallet deployments. The official scheme answers our
 * own failures (an RPC node that does not answer, a transaction we could not send) as if
 * the payment were bad; what the chain did during the call is recorded (./chain-call.ts)
 * so such answers become ours (503) and the authorization stays usable.
 */
import { createPublicClient, createWalletClient, encodeFunctionData, hexToBytes, http, publicActions, TransactionNotFoundError, TransactionReceiptNotFoundError, webSocket, type Hex, type PublicClient, type Transport } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { FacilitatorClient } from "@x402/core/server";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { ApiError } from "@/lib/errors";
import { peekProcessState, processState } from "@/lib/process-state";
import { remoteFacilitatorClient } from "@/lib/payments/x402/remote";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { noteFee, noteNoAnswer, noteOurFailure, recordingChainCalls } from "@/lib/payments/x402/chain-call";
import { KeySender, RpcAnswerError, rpcCalls, type RpcAnswer } from "@/lib/payments/x402/sender";
import type { SendAhead } from "@/lib/payments/x402/send-ahead";
import type { LockNonceTake } from "@/lib/payments/ledger";
import { isWsUrl } from "@/lib/payments/x402/rpc-ws";
import { DbPendingSettlements } from "@/lib/payments/x402/pending-store";
import { reconcileBroadcasts, type ReconcileChain } from "@/lib/payments/x402/reconcile";
import {
  NotSentError,
  SettlementUnknownError,
  noAnswer,
  authorizationOutcome,
  confirmSubmitted,
  plainSignature,
  receiptFee,
  settleVerified,
  transferCall,
  transferSimulates,
  verifyLocally,
  walletSettlementCall,
  VerifiedPayments,
  type AuthorizationOutcome,
  type ContractCall,
  type LocalChain,
  type LocalReads,
} from "@/lib/payments/x402/evm-local";

const balanceOfAbi = [{ type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "account", type: "address" }], outputs: [{ type: "uint256" }] }] as const;

/** Whether an eth_call's answer is a successful call (data, no error). */
const succeeded = (a: RpcAnswer) => !a.error && typeof a.result === "string";

export { FacilitatorError } from "@/lib/payments/x402/facilitator-call";

/** The in-process facilitator's own chain access (absent with a remote facilitator). */
interface Local {
  chain: LocalChain;
  read: LocalReads["read"];
  call: NonNullable<LocalReads["call"]>;
  callWithBalance: NonNullable<LocalReads["callWithBalance"]>;
  gasOf(a: { address: Hex; abi: unknown; functionName: string; args?: readonly unknown[] }): Promise<bigint>;
  /** The key's gas estimate of a contract call, every time, without margin. */
  estimate(a: ContractCall): Promise<bigint>;
  getCode(a: { address: Hex }): Promise<Hex | undefined>;
  verified: VerifiedPayments;
  sender: KeySender;
  reconcile: ReconcileChain;
}

interface Built {
  client: FacilitatorClient;
  local: Local | null;
}

/** How often each instance sweeps for unfinished optimistic payments and nonce gaps. */
const SWEEP_MS = 5000;
/** The sweep repairs nonce gaps while this process has sent a transaction this recently. */
const SWEEP_REPAIR_AFTER_SEND_MS = 10 * 60_000;

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0]!;

/** A transport that records requests the node did not answer for the call under way (./chain-call.ts). */
function recorded(inner: Transport): Transport {
  return ((opts: Parameters<Transport>[0]) => {
    const t = inner(opts);
    return {
      ...t,
      request: (async (args: unknown, o: unknown) => {
        try {
          return await (t.request as (a: unknown, o: unknown) => Promise<unknown>)(args, o);
        } catch (err) {
          if (noAnswer(err)) noteNoAnswer(err);
          throw err;
        }
      }) as typeof t.request,
    };
  }) as Transport;
}

/** viem's transport to the settlement node: its WebSocket endpoint when SETTLEMENT_RPC_URL is one (see ./rpc-ws.ts), else HTTP. */
function nodeTransport(url: string, timeout: number): Transport {
  return isWsUrl(url) ? webSocket(url, { timeout, retryCount: 0, reconnect: true, keepAlive: true }) : http(url, { timeout, retryCount: 0 });
}

function buildClient(): Built | null {
  const cfg = env();
  const remote = remoteFacilitatorClient();
  if (remote) return { client: remote, local: null };
  if (!cfg.FACILITATOR_PRIVATE_KEY) return null;
  const rpc = cfg.SETTLEMENT_RPC_URL ?? cfg.BASE_RPC_URL;
  const id = evmChainId(cfg.X402_NETWORK);
  if (id === null) throw new Error(`not an EVM network: ${cfg.X402_NETWORK}`);
  const account = privateKeyToAccount(cfg.FACILITATOR_PRIVATE_KEY as Hex);
  const wallet = createWalletClient({
    account,
    chain: { id, name: cfg.X402_NETWORK, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: isWsUrl(rpc) ? { http: [], webSocket: [rpc] } : { http: [rpc] } } },
    transport: recorded(nodeTransport(rpc, cfg.PAYMENT_TIMEOUT_MS)),
    pollingInterval: 200,
  }).extend(publicActions);
  const sender = new KeySender(wallet as never, { rpcUrl: rpc, chainId: id, timeoutMs: cfg.PAYMENT_TIMEOUT_MS, privateKey: hexToBytes(cfg.FACILITATOR_PRIVATE_KEY as Hex), address: account.address });
  const signer = officialSigner(wallet, sender, cfg.PAYMENT_TIMEOUT_MS);
  const facilitator = new x402Facilitator();
  // Registered by hand rather than with registerExactEvmScheme, which cannot pass the
  // pending-settlement store: a settle retried on another instance then reconciles
  // against the transaction this one broadcast instead of sending a second one. Payments
  // reach the facilitator as x402 v2 only (lib/payments/x402/codec.ts maps v1 clients).
  facilitator.register(cfg.X402_NETWORK as `${string}:${string}`, new ExactEvmScheme(signer as never, { eip6492AllowedFactories: cfg.X402_EIP6492_FACTORIES, pendingSettlementStore: new DbPendingSettlements() }));
  const client = {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as FacilitatorClient;
  /** The gas limit of a settlement call (see KeySender.gasFor); NotSentError when it cannot be estimated. */
  const gasOf = (a: { address: Hex; abi: unknown; functionName: string; args?: readonly unknown[] }) =>
    sender.gasFor(a, () => wallet.estimateContractGas({ ...(a as Record<string, unknown>), account } as never)).catch((err: unknown) => {
      throw new NotSentError(`the settlement could not be prepared (${firstLine(err)})`, noAnswer(err) ? "rpc_unreachable" : "transaction_refused", err);
    });
  const chain: LocalChain = {
    submit: async (a, broadcast, ahead) => {
      const gas = await gasOf(a);
      const { hash, receipt } = await sender.send({ to: a.address, data: KeySender.callData(a), gas }, undefined, broadcast, ahead);
      return { hash, receipt: receipt as never };
    },
    waitForTransactionReceipt: (a) => sender.awaitReceipt(a.hash, a.timeout, a.patient) as never,
    simulate: (a) => wallet.readContract(a as never).then(() => true, (err: unknown) => (noAnswer(err) ? null : false)),
  };
  const reader = wallet as unknown as PublicClient;
  let batches = true;
  const local: Local = {
    chain,
    gasOf,
    estimate: (a) => wallet.estimateContractGas({ ...(a as Record<string, unknown>), account } as never),
    read: (a) => wallet.readContract(a as never),
    // Never rejects: a node without an answer is a failed simulation here (and recorded for the call, ./chain-call.ts).
    call: (to, data) =>
      rpcCalls(rpc, cfg.PAYMENT_TIMEOUT_MS, [["eth_call", [{ to, data }, "latest"]]]).then(
        (answers) => !!answers && succeeded(answers[0]!),
        () => false,
      ),
    // One request for both, a batch; a node that does not take batches gets the simulation
    // alone from then on (the balance is then read on its own, lib/payments/x402/hold.ts).
    callWithBalance: async (to, data, owner) => {
      if (batches) {
        const answers = await rpcCalls(rpc, cfg.PAYMENT_TIMEOUT_MS, [
          ["eth_call", [{ to, data }, "latest"]],
          ["eth_call", [{ to, data: encodeFunctionData({ abi: balanceOfAbi, functionName: "balanceOf", args: [owner] }) }, "latest"]],
        ]).catch(() => undefined);
        if (answers === undefined) return { ok: false, balance: null };
        if (answers) {
          const [sim, bal] = answers;
          return { ok: succeeded(sim!), balance: succeeded(bal!) && /^0x[0-9a-fA-F]{1,64}$/.test(bal!.result as string) ? BigInt(bal!.result as string) : null };
        }
        batches = false;
      }
      return { ok: await local.call(to, data), balance: null };
    },
    getCode: (a) => signer.getCode(a),
    verified: new VerifiedPayments(),
    sender,
    reconcile: {
      outcome: (p, r) => authorizationOutcome(reader, p, r),
      simulate: (p, r) => transferSimulates(reader, p, r),
      txState: async (tx) => {
        const t = await wallet.getTransaction({ hash: tx as Hex }).catch((err: unknown) => {
          if (noAnswer(err)) throw err;
          return null;
        });
        return !t ? "unknown" : t.blockNumber === null ? "pending" : "included";
      },
      resend: async (p, r) => (await settleVerified(chain, p, r, cfg.PAYMENT_TIMEOUT_MS, false)) ?? { success: false, transaction: "", network: r.network, errorReason: "not_a_plain_signature" },
      // After the response or in the sweep: nobody waits for it.
      confirm: (p, r, tx) => confirmSubmitted(chain, p, r, tx as Hex, null, cfg.PAYMENT_TIMEOUT_MS, true),
      fee: async (tx) => {
        const r = await wallet.getTransactionReceipt({ hash: tx as Hex }).catch(() => null);
        return r ? r.gasUsed * r.effectiveGasPrice : null;
      },
    },
  };
  startSweep(local);
  return { client, local };
}

/**
 * The official scheme's signer, over the viem wallet client: bytecode remembered (a
 * contract's for good, an empty account's for 60 s), and every transaction (its
 * transfers and ERC-6492 deployments) sent by the shared sender, never by viem with a
 * nonce of its own. A failure there that is ours is recorded for the call under way.
 */
function officialSigner(wallet: ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>, sender: KeySender, timeoutMs: number) {
  const address = sender.node.address;
  const base = toFacilitatorEvmSigner({ ...wallet, address } as never) as Record<string, unknown> & {
    getCode(a: { address: Hex }): Promise<Hex | undefined>;
  };
  const code = new Map<string, { value: Hex | undefined; until: number }>();

  /** Whose failure a failed send is: ours is recorded (and rethrown either way). */
  const sending = async (to: Hex, data: Hex, run: () => Promise<Hex>): Promise<Hex> => {
    try {
      return await run();
    } catch (err) {
      const ours = await classifySendFailure(err, () => wallet.call({ account: address, to, data }));
      if (ours) noteOurFailure(ours);
      throw err;
    }
  };

  return {
    ...base,
    getCode: async (a: { address: Hex }) => {
      const k = a.address.toLowerCase();
      const hit = code.get(k);
      if (hit && hit.until > Date.now()) return hit.value;
      const c = await base.getCode(a);
      code.set(k, { value: c, until: c && c !== "0x" ? Number.POSITIVE_INFINITY : Date.now() + 60_000 });
      return c;
    },
    writeContract: async (a: { address: Hex; abi: unknown; functionName: string; args?: readonly unknown[]; dataSuffix?: Hex; gas?: bigint }) => {
      const data = KeySender.callData(a);
      return sending(a.address, data, async () => {
        const gas = a.gas ?? (await sender.gasFor(a, () => wallet.estimateContractGas({ ...(a as Record<string, unknown>), account: wallet.account! } as never)));
        return (await sender.send({ to: a.address, data, gas })).hash;
      });
    },
    sendTransaction: async (a: { to: Hex; data?: Hex; value?: bigint }) => {
      const data = a.data ?? "0x";
      return sending(a.to, data, async () => {
        const gas = await sender.estimateGas({ to: a.to, data, value: a.value });
        return (await sender.send({ to: a.to, data, value: a.value, gas })).hash;
      });
    },
    // What each mined transaction cost (the wallet deployment and the transfer, reverted or
    // not) is noted for the settlement under way (settleOfficially).
    waitForTransactionReceipt: async (a: { hash: Hex }) => {
      const r = await sender.awaitReceipt(a.hash, timeoutMs);
      noteFee(a.hash, receiptFee(r));
      return r;
    },
  };
}

/**
 * A failed send of the official path as ours (NotSentError, SettlementUnknownError) or
 * null (the payer's: the node refused a call that no longer succeeds). A refusal of a
 * call that still simulates is ours (gas, fees, the key's funds, the node).
 */
async function classifySendFailure(err: unknown, simulate: () => Promise<unknown>): Promise<Error | null> {
  if (err instanceof NotSentError || err instanceof SettlementUnknownError) return err;
  if (noAnswer(err)) return new NotSentError(`the RPC node did not answer (${firstLine(err)})`, "rpc_unreachable", err);
  const still = await simulate().then(
    () => true,
    (e: unknown) => (noAnswer(e) ? null : false),
  );
  if (still === false) return null;
  const what = err instanceof RpcAnswerError ? `the node refused the transaction: ${firstLine(err)}` : firstLine(err);
  return new NotSentError(`the settlement failed on the service's side (${what})`, still === null ? "rpc_unreachable" : "transaction_refused", err);
}

/** Every few seconds: unfinished optimistic payments (reconcile.ts) and nonce gaps, in any instance. */
function startSweep(local: Local): void {
  processState("x402.sweep", () => {
    let running = false;
    const timer = setInterval(() => {
      // Only while the database is open: a closed one (shutdown, tests) is not reopened for this.
      if (running || peekProcessState("db") === undefined) return;
      running = true;
      void (async () => {
        try {
          await reconcileBroadcasts(local.reconcile);
          if (Date.now() - local.sender.lastSendAt < SWEEP_REPAIR_AFTER_SEND_MS) await local.sender.repair();
        } catch (err) {
          log.warn("payment.sweep_failed", { message: firstLine(err) });
        } finally {
          running = false;
        }
      })();
    }, SWEEP_MS);
    timer.unref();
    return timer;
  });
}

const built = (): Built | null => processState("x402.facilitator", buildClient);

/** The configured facilitator, or null when this instance cannot settle EVM payments. */
export function facilitator(): FacilitatorClient | null {
  return built()?.client ?? null;
}

function builtOrThrow(): Built {
  const b = built();
  if (!b) throw new FacilitatorError("no facilitator configured");
  return b;
}

/**
 * Verifies a payment. `opts.balance`: the payer's balance of the asset is wanted too (a payer
 * with payments in flight): the in-process check reads it with its simulation and answers it
 * as `payerBalance` (absent when another verifier judged the payment).
 */
export async function verifyWithFacilitator(payload: PaymentPayload, req: PaymentRequirements, opts: { readAhead?: boolean; balance?: boolean } = {}): Promise<CheckedVerify & { payerBalance?: bigint | null }> {
  const { client, local } = builtOrThrow();
  if (!local) return askFacilitator("verify", VerifyAnswer, client, (f) => f.verify(payload, req), req.network);
  // What settling it will read from the chain is read now, during the simulation's round
  // trip (asked right behind the simulation, so the node answers the simulation first).
  let prepared = false;
  const prepare = () => {
    if (prepared) return;
    prepared = true;
    // A payment that prepares its broadcast ahead (sendAhead) uses the fees and nonces held.
    if (opts.readAhead !== false) local.sender.prepare();
  };
  const { call, result: v } = await recordingChainCalls(async () => {
    // Plain-ECDSA payments from accounts without code are checked here (valid or "don't know").
    const fast = await verifyLocally({ ...local, afterSimulationSent: prepare }, payload, req, { balance: opts.balance }).catch(() => null);
    prepare();
    if (fast) return fast;
    return askFacilitator("verify", VerifyAnswer, client, (f) => f.verify(payload, req), req.network);
  });
  // The official verifier reads a node that did not answer as a failed simulation or a bad
  // signature: the payment was not judged, so it is not refused (503, not 402).
  if (!v.isValid && call.noAnswer) throw new FacilitatorError(`the chain could not be reached to verify the payment (${firstLine(call.noAnswer)})`);
  if (v.isValid) local.verified.add(payload, req);
  return v;
}

/**
 * Settles a verified payment. Throws SettlementUnknownError (in-process) or
 * FacilitatorError (timeout, unreachable) when the outcome was not learned, NotSentError
 * when our side failed before any funds moved.
 */
export async function settleWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle & { fee?: bigint }> {
  const { client, local } = builtOrThrow();
  if (local?.verified.take(payload, req)) {
    const direct = await settleVerified(local.chain, payload, req, env().PAYMENT_TIMEOUT_MS);
    if (direct) return direct;
  }
  return local ? settleOfficially(client, payload, req) : settleRemotely(client, payload, req);
}

/**
 * The official scheme in process: its answer, unless it failed because of us (recorded
 * while it ran): then NotSentError (nothing sent, or refused while the transfer still
 * simulates) or SettlementUnknownError (it may have been sent).
 */
async function settleOfficially(client: FacilitatorClient, payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle & { fee?: bigint }> {
  const { call, result } = await recordingChainCalls(() => settleRemotely(client, payload, req));
  // Every mined transaction's fee, also those the answer does not name (a wallet deployment
  // before a transfer that failed, a deployment that reverted: no transaction in the answer).
  const s = call.fee === undefined ? result : { ...result, fee: call.fee };
  if (s.success) return s;
  if (call.ours) throw withFee(call.ours, call.fee);
  if (call.noAnswer && !s.transaction) throw withFee(new NotSentError(`the chain could not be reached to settle the payment (${firstLine(call.noAnswer)})`, "rpc_unreachable", call.noAnswer), call.fee);
  return s;
}

/** A failure of ours after transactions of the settlement were mined: what they cost rides along (counted, never charged to the payer). */
function withFee(err: Error, fee: bigint | undefined): Error {
  if (fee !== undefined && err instanceof NotSentError) err.fee = (err.fee ?? 0n) + fee;
  return err;
}

/** A facilitator's "broadcast, not final yet" answer (x402 from 2.24: `settlement_pending` with the transaction). */
const isPending = (s: CheckedSettle) => !s.success && s.errorReason === "settlement_pending" && !!s.transaction;

/**
 * Settles through the facilitator client as the x402 resource server does from 2.24 on: a
 * `settlement_pending` answer carrying the broadcast transaction is asked once more with
 * the identical payment (the facilitator reconciles it against that transaction, it never
 * sends a second one). Still pending: the outcome is unknown, so the payment row keeps the
 * transaction (SettlementUnknownError → "unknown") and the same payment presented again
 * is answered from the chain, served once.
 */
async function settleRemotely(client: FacilitatorClient, payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle> {
  const ask = () => askFacilitator("settle", SettleAnswer, client, (f) => f.settle(payload, req), req.network);
  const first = await ask();
  if (!isPending(first)) return first;
  const second = await ask();
  if (!isPending(second)) return second;
  throw new SettlementUnknownError(`the facilitator reports the settlement still pending (transaction ${second.transaction})`, second.transaction as Hex);
}

/**
 * Optimistic mode: settles like settleWithFacilitator but answers once the node accepted
 * the transfer (`broadcast: true`, confirm it with confirmBroadcastOnChain), for a payment
 * this process verified locally; any other payment is settled and confirmed as usual.
 */
export async function broadcastWithFacilitator(payload: PaymentPayload, req: PaymentRequirements, ahead?: SendAhead | null): Promise<CheckedSettle & { broadcast?: boolean }> {
  try {
    const { client, local } = builtOrThrow();
    if (local?.verified.take(payload, req)) {
      const sent = await settleVerified(local.chain, payload, req, env().PAYMENT_TIMEOUT_MS, false, ahead);
      if (sent) return sent;
    }
    return await (local ? settleOfficially(client, payload, req) : settleRemotely(client, payload, req));
  } finally {
    ahead?.free(); // unless the broadcast claimed it
  }
}

/**
 * An optimistic payment's broadcast prepared now, while the payment is verified (nonce
 * taken, transaction signed; see SendAhead), or null when it would not be sent by this
 * process's own sender (a remote facilitator, a signature the local path does not take).
 * `nonce`, when given, must go to the payment's lockPayment: the nonce is taken in the
 * lock's own statement (only when the lock reserved an optimistic share); the broadcast
 * is signed meanwhile on the nonce this process expects, again if the take gives another.
 * `verifying`: the payment's verification, under way (the signature waits for it or for
 * the nonce, see KeySender.sendAhead).
 */
export function sendAhead(payload: PaymentPayload, req: PaymentRequirements, verifying?: Promise<unknown>): { ahead: SendAhead; nonce: LockNonceTake | null } | null {
  try {
    const local = builtOrThrow().local;
    if (!local || !plainSignature(payload)) return null;
    const call = transferCall(payload, req);
    const inLock = local.sender.nonces.takeInLock();
    const ahead = local.sender.sendAhead(async () => ({ to: call.address, data: KeySender.callData(call), gas: await local.gasOf(call) }), inLock?.lease, verifying);
    return { ahead, nonce: inLock?.take ?? null };
  } catch {
    return null;
  }
}

/** Waits for a broadcast settlement (broadcastWithFacilitator) to be included and checks its transfer. */
export async function confirmBroadcastOnChain(payload: PaymentPayload, req: PaymentRequirements, tx: string): Promise<CheckedSettle> {
  const { local } = builtOrThrow();
  if (!local) throw new FacilitatorError("no in-process facilitator");
  return local.reconcile.confirm(payload, req, tx);
}

/**
 * Finishes a delivered optimistic payment whose own confirmation failed (sent again while
 * the authorization pays, resolved from the chain otherwise; see reconcile.ts).
 */
export async function reconcileOptimisticPayment(paymentId: string): Promise<void> {
  const { local } = builtOrThrow();
  if (local) await reconcileBroadcasts(local.reconcile, { paymentId });
}

/**
 * What a payment taken over from a dead attempt needs to wait for that attempt's
 * transaction instead of sending a second one (lib/payments/x402/hold.ts): the node's
 * view of a transaction and the wait for its receipt. Empty with a remote facilitator
 * (its own pending-settlement store does that job).
 */
export function evmKnownTransactions(): { txState?: (tx: string) => Promise<"pending" | "included" | "unknown">; confirm?: (p: PaymentPayload, r: PaymentRequirements, tx: string) => Promise<CheckedSettle> } {
  let local: Local | null | undefined;
  try {
    local = built()?.local;
  } catch {
    return {}; // no in-process facilitator could be built: verification says why
  }
  if (!local) return {};
  const timeout = env().PAYMENT_TIMEOUT_MS;
  return {
    txState: (tx) => local.reconcile.txState(tx),
    confirm: (p, r, tx) => confirmSubmitted(local.chain, p, r, tx as Hex, null, timeout),
  };
}

/** Whether this instance settles EVM payments itself (optimistic mode needs it). */
export function settlesInProcess(): boolean {
  return !!built()?.local;
}

/** A reader of the settlement chain, for outcomes and simulations (in-process or remote facilitator alike). */
const reader = () =>
  processState("x402.reader", () => {
    const cfg = env();
    const rpc = cfg.SETTLEMENT_RPC_URL ?? cfg.BASE_RPC_URL;
    return createPublicClient({ transport: nodeTransport(rpc, cfg.PAYMENT_TIMEOUT_MS) }) as PublicClient;
  });

/** Reads an authorization's outcome on the settlement chain. */
export function evmAuthorizationOutcome(payload: PaymentPayload, req: PaymentRequirements): Promise<AuthorizationOutcome> {
  return authorizationOutcome(reader(), payload, req);
}

/** `owner`'s balance of token `asset` on the settlement chain now (null: the node did not answer). */
export async function evmTokenBalance(asset: string, owner: string): Promise<bigint | null> {
  try {
    return (await reader().readContract({ address: asset as Hex, abi: balanceOfAbi, functionName: "balanceOf", args: [owner as Hex] })) as bigint;
  } catch {
    return null;
  }
}

/** What transaction `tx` cost the key (wei, from its receipt); null when the node does not say. */
export async function evmTransactionFee(tx: string): Promise<bigint | null> {
  return evmMinedFee(tx).catch(() => null);
}

/**
 * What transaction `tx` cost the key, from its receipt: null when the node has no receipt
 * for it (not mined); throws when the node does not answer, so a caller that must not
 * take silence for "not mined" (the recovery pass) can tell the two apart.
 */
export async function evmMinedFee(tx: string): Promise<bigint | null> {
  try {
    const r = await reader().getTransactionReceipt({ hash: tx as Hex });
    return r.gasUsed * r.effectiveGasPrice;
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/** Whether the settlement chain's node knows transaction `tx` (mined or pending); throws when it cannot say. */
export async function evmTransactionSeen(tx: string): Promise<boolean> {
  try {
    await reader().getTransaction({ hash: tx as Hex });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}

/**
 * The bound on what settling a payment may cost the key in gas: X402_MAX_GAS_SHARE of its
 * price, the gas (limit × max fee per gas) valued at X402_GAS_TOKEN_USD. `now` decides from
 * what the sender holds, without a request (undefined when it holds too little: then the
 * call is never optimistic, whose nonce is taken with its lock, and `check` decides after
 * verification, before the send takes a nonce). In-process facilitator only (a remote one
 * pays its own gas); undefined otherwise. A contract wallet's payment (ERC-1271, ERC-6492:
 * the official scheme's path) is judged by `check` alone, at the gas of what that path
 * sends: the transfer with the wallet's signature (its isValidSignature runs in it), and
 * for a wallet not deployed yet its deployment too.
 */
export function evmGasBound(payload: PaymentPayload, req: PaymentRequirements): { now(): ApiError | null | undefined; check(): Promise<void> } | undefined {
  let local: Local | null | undefined;
  try {
    local = built()?.local;
  } catch {
    return undefined;
  }
  if (!local) return undefined;
  const cfg = env();
  const priceUsd = Number(req.amount) / 1e6;
  const limitUsd = priceUsd * cfg.X402_MAX_GAS_SHARE;
  const judge = (wei: bigint, deploys = false): ApiError | null => {
    const costUsd = (Number(wei) / 1e18) * cfg.X402_GAS_TOKEN_USD;
    if (costUsd <= limitUsd) return null;
    log.warn("payment.gas_too_expensive", { network: req.network, cost_wei: wei.toString(), cost_usd: costUsd, limit_usd: limitUsd, wallet_deployment: deploys });
    return new ApiError(
      "payment_invalid",
      `Settling this payment would cost the service up to ${wei} wei in gas${deploys ? " (deploying the payer's wallet, then the transfer)" : ""} (about $${costUsd.toPrecision(3)} at $${cfg.X402_GAS_TOKEN_USD} per native token), more than ${Math.round(cfg.X402_MAX_GAS_SHARE * 100)} % of its price ($${priceUsd}). Nothing was sent and nothing was charged; present the same payment again when the network's fees are lower, or pay another way.`,
      { retryAfterSeconds: 30, extra: { reason: "gas_too_expensive" } },
    );
  };
  if (!plainSignature(payload)) return walletGasBound(local, payload, req, judge);
  let call: ReturnType<typeof transferCall>;
  try {
    call = transferCall(payload, req);
  } catch {
    return undefined; // not a transfer the local path sends: verification says why
  }
  const l = local;
  return {
    now: () => {
      const held = l.sender.costHeld(call);
      return held === null ? undefined : judge(held);
    },
    check: async () => {
      // Unknown cost (the node did not answer): the settlement itself finds out and answers as ours.
      const wei = await l.sender.cost(l.gasOf(call)).catch(() => null);
      const refused = wei === null ? null : judge(wei);
      if (refused) throw refused;
    },
  };
}

/**
 * evmGasBound for a contract wallet's payment: the gas of what the official scheme will
 * send (walletSettlementCall), estimated from the key with a 50 % margin (what the sender
 * gives a call carrying signature bytes; a deployment gets 25 %), at the fees the send will
 * use. Estimated per payment: a wallet's isValidSignature and deployment cost what that
 * wallet's code makes them cost. A call that does not estimate (it reverts) is let through:
 * the official settlement verifies it again and refuses it without sending; a node that
 * does not answer likewise (the settlement finds out and answers as ours).
 */
function walletGasBound(local: Local, payload: PaymentPayload, req: PaymentRequirements, judge: (wei: bigint, deploys: boolean) => ApiError | null) {
  return {
    now: () => undefined,
    check: async () => {
      const from = (payload.payload as { authorization?: { from?: string } }).authorization?.from;
      if (typeof from !== "string") return;
      const code = await local.getCode({ address: from as Hex }).catch(() => null);
      if (code === null) return;
      const settles = walletSettlementCall(payload, req, code);
      if (!settles) return;
      const wei = await local.sender.cost(local.estimate(settles.call).then((g) => (g * 3n) / 2n)).catch(() => null);
      const refused = wei === null ? null : judge(wei, settles.deploys);
      if (refused) throw refused;
    },
  };
}

/** Whether the authorization's transfer would still succeed now (null: the chain did not answer). */
export function evmTransferSimulates(payload: PaymentPayload, req: PaymentRequirements): Promise<boolean | null> {
  return transferSimulates(reader(), payload, req);
}
