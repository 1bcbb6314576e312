/**
 * The facilitator that verifies and settles x402 payments: a remote one when
 * FACILITATOR_URL or CDP keys are set (lib/payments/x402/remote.ts), otherwise an in-process `x402Facilitator` whose signature
 * checks run locally and whose settlements are sent with FACILITATOR_PRIVATE_KEY to
 * SETTLEMENT_RPC_URL (default BASE_RPC_URL). Calls go through askFacilitator (timeouts,
 * zod-checked answers).
 */
import { createPublicClient, createWalletClient, encodeFunctionData, formatTransactionReceipt, hexToBytes, http, keccak256, publicActions, serializeTransaction, type Abi, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { FacilitatorClient } from "@x402/core/server";
import { remoteFacilitatorClient } from "@/lib/payments/x402/remote";
import { x402Facilitator } from "@x402/core/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { env } from "@/lib/config/env";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { askFacilitator, FacilitatorError, SettleAnswer, VerifyAnswer, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { gapWait, GAP_WAIT_MS, isNonceConflict, isNonceGap, SharedNonces } from "@/lib/payments/x402/nonces";
import { awaitInclusion, BlockClock } from "@/lib/payments/x402/inclusion";
import {
  NotSentError,
  SettlementUnknownError,
  noAnswer,
  authorizationOutcome,
  confirmSubmitted,
  settleVerified,
  signDigest,
  verifyLocally,
  VerifiedPayments,
  type AuthorizationOutcome,
  type LocalChain,
  type LocalReads,
} from "@/lib/payments/x402/evm-local";

export { FacilitatorError } from "@/lib/payments/x402/facilitator-call";

/** The in-process facilitator's own chain access (absent with a remote facilitator). */
interface Local {
  chain: LocalChain;
  read: LocalReads["read"];
  getCode(a: { address: Hex }): Promise<Hex | undefined>;
  verified: VerifiedPayments;
}

interface Built {
  client: FacilitatorClient;
  local: Local | null;
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
    chain: { id, name: cfg.X402_NETWORK, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpc] } } },
    transport: http(rpc, { timeout: cfg.PAYMENT_TIMEOUT_MS, retryCount: 0 }),
    pollingInterval: 200,
  }).extend(publicActions);
  const signer = fasterSigner(wallet, account.address, { rpcUrl: rpc, chainId: id, timeoutMs: cfg.PAYMENT_TIMEOUT_MS, privateKey: hexToBytes(cfg.FACILITATOR_PRIVATE_KEY as Hex) });
  const facilitator = new x402Facilitator();
  // The viem wallet client provides every method the EVM facilitator signer needs.
  registerExactEvmScheme(facilitator, { signer, networks: cfg.X402_NETWORK as `${string}:${string}` });
  const client = {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as FacilitatorClient;
  const s = signer as unknown as { submit: LocalChain["submit"]; getCode: Local["getCode"]; awaitReceipt: LocalChain["waitForTransactionReceipt"] };
  return {
    client,
    local: {
      chain: {
        submit: (a) => s.submit(a),
        waitForTransactionReceipt: (a) => s.awaitReceipt(a) as never,
        simulate: (a) => wallet.readContract(a as never).then(() => true, (err: unknown) => (noAnswer(err) ? null : false)),
      },
      read: (a) => wallet.readContract(a as never),
      getCode: (a) => s.getCode(a),
      verified: new VerifiedPayments(),
    },
  };
}

/**
 * The facilitator signer with fewer RPC round trips per payment:
 * - bytecode is remembered: a contract's for good (contracts do not disappear), an empty
 *   account's for 60 s (it may get code later; the facilitator's on-chain simulation of
 *   each authorization stays the final check either way);
 * - nonces are taken from the counter every instance shares (SharedNonces: the database
 *   and the chain's pending nonce); a nonce conflict (another instance or sender used it)
 *   takes a new one and signs again, a few times, and is never the payer's problem;
 * - the gas limit of a contract call is estimated once and reused with a 50 % margin:
 *   the verification simulated the very same call moments before;
 * - fee estimates are reused for two seconds;
 * - a settlement is signed here and sent together with the request for its receipt
 *   (`submit`), which a chain that includes transactions at once answers in one trip.
 */
function fasterSigner(
  wallet: ReturnType<typeof createWalletClient> & ReturnType<typeof publicActions>,
  address: Hex,
  node: { rpcUrl: string; chainId: number; timeoutMs: number; privateKey: Uint8Array },
) {
  const base = toFacilitatorEvmSigner({ ...wallet, address } as never) as Record<string, unknown> & {
    getCode(a: { address: `0x${string}` }): Promise<`0x${string}` | undefined>;
    writeContract(a: Record<string, unknown>): Promise<`0x${string}`>;
  };
  const code = new Map<string, { value: `0x${string}` | undefined; until: number }>();
  const gasLimits = new Map<string, bigint>();
  let fees: { at: number; v: Promise<Record<string, bigint>> } | null = null;
  let batches = true;
  /** Whether the node has EIP-7966's eth_sendRawTransactionSync (null until the first send asks). */
  let sync: boolean | null = null;
  const clock = new BlockClock();
  const nonces = new SharedNonces(`${node.chainId}:${address.toLowerCase()}`, async () => {
    const [pending, latest] = await Promise.all([
      wallet.getTransactionCount({ address, blockTag: "pending" }),
      wallet.getTransactionCount({ address, blockTag: "latest" }),
    ]);
    return { pending, latest };
  });

  const currentFees = () => {
    if (!fees || Date.now() - fees.at > 2000) {
      const v: Promise<Record<string, bigint>> = wallet.estimateFeesPerGas().then(
        (f): Record<string, bigint> =>
          f.maxFeePerGas !== undefined && f.maxPriorityFeePerGas !== undefined ? { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas } : {},
        (err: unknown): Record<string, bigint> => {
          // A chain without EIP-1559 fees answers with an error too; a node that did not answer is ours to retry.
          if (noAnswer(err)) throw new NotSentError(`fees could not be read (${firstLine(err)})`, "rpc_unreachable", err);
          return {};
        },
      );
      fees = { at: Date.now(), v };
      v.catch(() => (fees = null));
      return v;
    }
    return fees.v;
  };
  /** Takes a nonce; anything failing before the send is ours and nothing was sent. */
  const takeNonce = (fresh: boolean): Promise<number> =>
    nonces.take(fresh).catch((err: unknown) => {
      throw new NotSentError(`no transaction nonce could be allocated (${firstLine(err)})`, "nonce_unavailable", err);
    });
  const gasFor = async (a: Record<string, unknown>): Promise<bigint> => {
    const key = `${String(a.address).toLowerCase()}:${String(a.functionName)}:${Array.isArray(a.args) ? a.args.length : 0}`;
    const known = gasLimits.get(key);
    if (known) return known;
    const estimate = await wallet.estimateContractGas({ ...(a as Record<string, unknown>), account: wallet.account! } as never);
    const limit = (estimate * 3n) / 2n;
    gasLimits.set(key, limit);
    return limit;
  };

  const writeContract = async (a: Record<string, unknown>): Promise<`0x${string}`> => {
    const [f, gas] = await Promise.all([currentFees(), a.gas ? Promise.resolve(a.gas as bigint) : gasFor(a)]);
    for (let attempt = 0; ; attempt++) {
      const nonce = await takeNonce(attempt > 0);
      const gapUntil = Date.now() + Math.min(GAP_WAIT_MS, node.timeoutMs);
      try {
        for (let gap = 0; ; gap++) {
          try {
            return await base.writeContract({ ...f, gas, nonce, ...a });
          } catch (err) {
            // A lower nonce is still on its way: the same nonce, a moment later.
            if (isNonceGap(String((err as Error)?.message)) && Date.now() < gapUntil) await gapWait(gap);
            else throw err;
          }
        }
      } catch (err) {
        if (isNonceConflict(String((err as Error)?.message)) && attempt < NONCE_ATTEMPTS) continue;
        // Not sent, or maybe not: the nonce is handed out again (harmless if it was used).
        await nonces.giveBack(nonce).catch(() => undefined);
        throw err;
      }
    }
  };

  /**
   * Sends with eth_sendRawTransactionSync (EIP-7966: the node answers once the transaction
   * is included, with its receipt), asked once per process: null when the node does not
   * have the method (nothing was sent), else the answers in `submit`'s [send, receipt] shape.
   */
  const sendSync = async (raw: Hex, hash: Hex): Promise<RpcAnswer[] | null> => {
    const waitMs = Math.max(1000, node.timeoutMs - 1000);
    const [res] = (await rpcCalls(node.rpcUrl, node.timeoutMs, [["eth_sendRawTransactionSync", [raw, waitMs]]]))!;
    // Concurrent first sends all ask: any "no such method" answer settles it, and only a
    // real answer (a receipt, or code 4) proves the method exists.
    if (res!.error && /not (supported|found|available|implemented)|does not exist|unsupported|unknown method/i.test(res!.error.message)) {
      sync = false;
      return null;
    }
    if (!res!.error || res!.error.code === 4) sync = true;
    // Code 4: accepted but not included within the wait; the caller looks for the receipt.
    if (res!.error?.code === 4) return [{ id: 0, result: hash }, { id: 1 }];
    return [res!, { id: 1, result: res!.result }];
  };

  /** One look for a receipt, with the head's number for the block clock. */
  const look = async (hash: Hex) => {
    const calls: Array<[string, unknown[]]> = [
      ["eth_getTransactionReceipt", [hash]],
      ["eth_blockNumber", []],
    ];
    const answers = batches
      ? ((await rpcCalls(node.rpcUrl, node.timeoutMs, calls)) ?? ((batches = false), null))
      : null;
    const [r, h] = answers ?? (await Promise.all(calls.map(async (c) => (await rpcCalls(node.rpcUrl, node.timeoutMs, [c]))![0]!)));
    if (r!.error) throw new RpcAnswerError(r!.error.message, r!.error.code);
    return { receipt: r!.result ? formatTransactionReceipt(r!.result as never) : null, head: typeof h?.result === "string" ? Number(h.result) : null };
  };

  return {
    ...base,
    awaitReceipt: (a: { hash: Hex; timeout: number }) => awaitInclusion(clock, () => look(a.hash), a.timeout),
    getCode: async (a: { address: `0x${string}` }) => {
      const k = a.address.toLowerCase();
      const hit = code.get(k);
      if (hit && hit.until > Date.now()) return hit.value;
      const c = await base.getCode(a);
      code.set(k, { value: c, until: c && c !== "0x" ? Number.POSITIVE_INFINITY : Date.now() + 60_000 });
      return c;
    },
    writeContract,
    /**
     * Sends a contract call and asks for its receipt in the same JSON-RPC batch (the hash
     * is known once the transaction is signed): where the chain includes it at once the
     * receipt comes back with the send and a round trip is saved; otherwise it is null
     * and the caller polls. A node's error answer throws RpcAnswerError (the transaction
     * was refused, or mined reverted); no answer throws the transport's error.
     */
    submit: async (a: { address: Hex; abi: unknown; functionName: string; args: readonly unknown[] }) => {
      const [f, gas] = await Promise.all([currentFees(), gasFor(a)]).catch((err: unknown) => {
        throw err instanceof NotSentError ? err : new NotSentError(`the settlement could not be prepared (${firstLine(err)})`, noAnswer(err) ? "rpc_unreachable" : "transaction_refused", err);
      });
      if (f.maxFeePerGas === undefined || f.maxPriorityFeePerGas === undefined) {
        // A chain without EIP-1559 fees: let viem prepare the legacy transaction.
        return { hash: await writeContract(a), receipt: null };
      }
      const data = encodeFunctionData({ abi: a.abi as Abi, functionName: a.functionName, args: a.args as unknown[] });
      for (let attempt = 0; ; attempt++) {
        const nonce = await takeNonce(attempt > 0);
        const tx = { type: "eip1559", chainId: node.chainId, to: a.address, data, gas, nonce, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas } as const;
        const raw = serializeTransaction(tx, signDigest(keccak256(serializeTransaction(tx)), node.privateKey));
        const hash = keccak256(raw);
        const send: [string, unknown[]] = ["eth_sendRawTransaction", [raw]];
        let answers: RpcAnswer[] | null = null;
        const gapUntil = Date.now() + Math.min(GAP_WAIT_MS, node.timeoutMs);
        for (let gap = 0; ; gap++) {
          answers = null;
          try {
            if (sync !== false) answers = await sendSync(raw, hash);
            if (!answers) answers = batches ? await rpcCalls(node.rpcUrl, node.timeoutMs, [send, ["eth_getTransactionReceipt", [hash]]]) : null;
            if (!answers) {
              // The node does not take batches (it answered the batch with one error): send alone.
              batches = false;
              answers = await rpcCalls(node.rpcUrl, node.timeoutMs, [send]);
              if (!answers) throw Object.assign(new Error("the RPC node answered with something other than JSON-RPC"), { name: "HttpRequestError" });
            }
          } catch (err) {
            // Never reached the node, or no answer: the nonce may be a gap, so it is handed out
            // again (a second transaction on it is refused if this one did arrive).
            await nonces.giveBack(nonce).catch(() => undefined);
            throw err;
          }
          // A lower nonce of ours is still on its way (a node that does not queue refuses
          // this one meanwhile): send the same transaction again a moment later.
          const refusal = answers[0]!.error?.message;
          if (refusal && isNonceGap(refusal) && Date.now() < gapUntil) await gapWait(gap);
          else break;
        }
        const [sent, got] = answers!;
        if (sent!.error) {
          // Used by another sender (or a gap that did not close): take a new one.
          if (isNonceConflict(sent!.error.message) && attempt < NONCE_ATTEMPTS) continue;
          if (!isNonceConflict(sent!.error.message)) await nonces.giveBack(nonce).catch(() => undefined);
          throw new RpcAnswerError(sent!.error.message, sent!.error.code);
        }
        const receipt = got?.result ? formatTransactionReceipt(got.result as never) : null;
        return { hash, receipt };
      }
    },
  } as unknown as Parameters<typeof registerExactEvmScheme>[1]["signer"];
}

/** How many times a settlement takes a new nonce after a nonce conflict before giving up (as our failure). */
const NONCE_ATTEMPTS = 5;

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0]!;

/** A JSON-RPC error answer: the node received the request and refused it. */
class RpcAnswerError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = "RpcAnswerError";
  }
}

type RpcAnswer = { id: number; result?: unknown; error?: { code: number; message: string } };

/**
 * JSON-RPC calls in one request (a batch when more than one); answers in call order. Null
 * when a batch was answered with a single object (the node refused the batch as such and
 * ran nothing). No answer, or one that is not JSON, throws an HttpRequestError.
 */
async function rpcCalls(url: string, timeoutMs: number, calls: Array<[string, unknown[]]>): Promise<RpcAnswer[] | null> {
  const requests = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
  let answers: unknown;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(requests.length === 1 ? requests[0] : requests),
      signal: AbortSignal.timeout(timeoutMs),
    });
    answers = await res.json();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === "TimeoutError") throw e;
    // A refused connection carried nothing: certainly not sent.
    if (e.cause?.code === "ECONNREFUSED") throw new NotSentError(`the RPC node is unreachable (${e.cause.code})`, "rpc_unreachable", err);
    throw Object.assign(new Error(`the RPC node did not answer (${e.message})`), { name: "HttpRequestError" });
  }
  if (requests.length === 1) answers = [answers];
  else if (!Array.isArray(answers)) return null;
  const byId = new Map((answers as RpcAnswer[]).map((a) => [a?.id, a]));
  return calls.map((_, id) => byId.get(id) ?? { id, error: { code: -32603, message: "no answer for this call" } });
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
  if (local) {
    // Plain-ECDSA payments from accounts without code are checked here (valid or "don't know").
    const fast = await verifyLocally(local, payload, req).catch(() => null);
    if (fast) {
      local.verified.add(payload, req);
      return fast;
    }
  }
  const v = await askFacilitator("verify", VerifyAnswer, client, (f) => f.verify(payload, req), req.network);
  if (v.isValid) local?.verified.add(payload, req);
  return v;
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
  return settleRemotely(client, payload, req);
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
export async function broadcastWithFacilitator(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettle & { broadcast?: boolean }> {
  const { client, local } = builtOrThrow();
  if (local?.verified.take(payload, req)) {
    const sent = await settleVerified(local.chain, payload, req, env().PAYMENT_TIMEOUT_MS, false);
    if (sent) return sent;
  }
  return settleRemotely(client, payload, req);
}

/** Waits for a broadcast settlement (broadcastWithFacilitator) to be included and checks its transfer. */
export async function confirmBroadcastOnChain(payload: PaymentPayload, req: PaymentRequirements, tx: string): Promise<CheckedSettle> {
  const { local } = builtOrThrow();
  if (!local) throw new FacilitatorError("no in-process facilitator");
  return confirmSubmitted(local.chain, payload, req, tx as Hex, null, env().PAYMENT_TIMEOUT_MS);
}

/** Whether this instance settles EVM payments itself (optimistic mode needs it). */
export function settlesInProcess(): boolean {
  return !!built()?.local;
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
