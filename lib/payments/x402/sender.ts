/**
 * Every transaction the facilitator key sends (settlements, smart-wallet deployments,
 * gap fillers) goes through here: one path for fees, gas, nonces from the counter every
 * instance shares (./nonces.ts), signing, sending and waiting for inclusion.
 *
 * - Fee estimates are reused for two seconds, and read ahead (with the key's nonces on the
 *   node) while a payment is verified (prepare()), so a settlement's send only takes its
 *   nonce from the shared counter and goes out; a contract call's gas limit is estimated
 *   once per function and reused with a 50 % margin (verification simulated the very
 *   same call moments before).
 * - A transaction is signed here (libsecp256k1) and sent with eth_sendRawTransactionSync
 *   (EIP-7966) where the node has it, else batched with the request for its receipt, which
 *   a chain that includes transactions at once answers in one trip. An optimistic
 *   settlement's transaction is only broadcast: sent alone, answered once the node took it.
 * - A nonce conflict (another sender has the nonce) takes a new nonce, read fresh from
 *   the chain, a few times; `nonce too high` (a lower nonce still on its way) resends the
 *   same transaction within the lease's send window. When the node did not accept the
 *   transaction its lease is ended with the reason, so the nonce is reused only when the
 *   chain proves it unused.
 * - Waiting for a receipt looks at the chain on its block rhythm (./inclusion.ts), one
 *   request for every transaction waited for in this process. A wait
 *   that takes longer than a couple of blocks sends the same signed transaction again if
 *   the node no longer knows it (dropped), and fills a gap below it (a nonce whose
 *   holder died or gave up) with a zero-value transaction to itself.
 */
import { formatTransactionReceipt, keccak256, serializeTransaction, concatHex, type Hex, type TransactionReceipt } from "viem";
import { log } from "@/lib/log";
import { noteServiceTransaction, recordServiceFee } from "@/lib/payments/fees";
import { NotSentError, SettlementUnknownError, encodedCall, noAnswer, signDigest } from "@/lib/payments/x402/evm-local";
import { BlockClock, InclusionWatcher } from "@/lib/payments/x402/inclusion";
import { beforeSendHook, noteNoAnswer, type BeforeSend } from "@/lib/payments/x402/chain-call";
import { postJson } from "@/lib/payments/x402/rpc-http";
import { isWsUrl, wsRpc } from "@/lib/payments/x402/rpc-ws";
import { gapWait, isAlreadyKnown, isNonceGap, isNonceUsed, SharedNonces, type Lease } from "@/lib/payments/x402/nonces";
import { SendAhead, type OutgoingTx, type Prepared } from "@/lib/payments/x402/send-ahead";
import { failpoint } from "@/lib/failpoints";
import { brand } from "@/lib/errors/brand";

export type { OutgoingTx } from "@/lib/payments/x402/send-ahead";

/** How many times a transaction takes a new nonce after a nonce conflict before giving up (as our failure). */
const NONCE_ATTEMPTS = 5;
/** How long a lease's holder may keep resending a transaction refused as `nonce too high`. */
const SEND_WINDOW_MS = 4000;
/** Timeout of a plain send (the node answers at once when it accepts or refuses). */
const SEND_TIMEOUT_MS = 5000;
/**
 * The longest eth_sendRawTransactionSync is asked to wait for inclusion (less when the RPC
 * timeout, PAYMENT_TIMEOUT_MS, is shorter: 500 ms less than it, and the method is not used
 * at all below 1000 ms). Base's nodes refuse a wait over 6000 ms; past this one the
 * settlement looks for the receipt itself (code 4), as for any other node.
 */
const SYNC_WAIT_MS = 5000;
/** How much sooner than the request's timeout the node is asked to give up waiting (code 4). */
const SYNC_MARGIN_MS = 500;
/** The shortest wait worth asking for: with a shorter RPC timeout the method is not used. */
const SYNC_MIN_WAIT_MS = 500;
/** JSON-RPC's "invalid params": the node refused the request's parameters before running it. */
const INVALID_PARAMS = -32602;
/**
 * The forms of eth_sendRawTransactionSync's parameters, in the order tried: the wait in
 * milliseconds as a JSON number (EIP-7966's text, viem, Base), as a hex quantity (go-ethereum
 * reads it as hexutil.Uint64, Arbitrum Nitro), or left out, the node's own default (anvil
 * takes the transaction alone).
 */
const SYNC_FORMS: ReadonlyArray<{ name: string; params(raw: Hex, waitMs: number): unknown[] }> = [
  { name: "number", params: (raw, ms) => [raw, ms] },
  { name: "hex", params: (raw, ms) => [raw, `0x${ms.toString(16)}`] },
  { name: "none", params: (raw) => [raw] },
];
/** How nodes answer a method they do not have (Hardhat: "Method eth_sendRawTransactionSync is not supported"). */
export const NO_SUCH_METHOD = /not (supported|found|available|implemented)|does not exist|unsupported|unknown method/i;
/** How long signed transactions are kept for sending again if the node drops them. */
const KEEP_SIGNED_MS = 5 * 60_000;
/** How long a gap filler's receipt is waited for, to record what it cost (then the recovery pass prices it, lib/payments/recovery.ts). */
export const FILLER_RECEIPT_MS = 5 * 60_000;

export interface SenderNode {
  rpcUrl: string;
  chainId: number;
  timeoutMs: number;
  privateKey: Uint8Array;
  address: Hex;
}

/** The reads the sender needs from a viem public client. */
export interface SenderReads {
  getTransactionCount(a: { address: Hex; blockTag: "pending" | "latest" }): Promise<number>;
  estimateFeesPerGas(): Promise<{ maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }>;
  getGasPrice(): Promise<bigint>;
  estimateGas(a: { account: Hex; to: Hex; data: Hex; value?: bigint }): Promise<bigint>;
}

type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint };
export type Receipt = TransactionReceipt;

/** A JSON-RPC error answer: the node received the request and refused it. */
export class RpcAnswerError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = "RpcAnswerError";
  }
}
brand(RpcAnswerError, "RpcAnswerError");

export type RpcAnswer = { id: number; result?: unknown; error?: { code: number; message: string } };

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0]!;

/**
 * JSON-RPC calls in one request (a batch when more than one), over HTTP or, for a ws:// or
 * wss:// URL, the process's WebSocket to the node (./rpc-ws.ts); answers in call order. Null
 * when a batch was answered with a single object (the node refused the batch as such and
 * ran nothing). No answer, or one that is not JSON, throws an HttpRequestError; a refused
 * connection (nothing was sent) a NotSentError.
 */
export async function rpcCalls(url: string, timeoutMs: number, calls: Array<[string, unknown[]]>): Promise<RpcAnswer[] | null> {
  const requests = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
  let answers: unknown;
  try {
    const body = requests.length === 1 ? requests[0] : requests;
    answers = await (isWsUrl(url) ? wsRpc(url).request(body, timeoutMs) : postJson(url, body, timeoutMs));
  } catch (err) {
    noteNoAnswer(err);
    const e = err as Error & { code?: string; cause?: { code?: string } };
    if (e.name === "TimeoutError") throw e;
    // A refused connection carried nothing: certainly not sent.
    const code = e.code ?? e.cause?.code;
    if (code === "ECONNREFUSED") throw new NotSentError(`the RPC node is unreachable (${code})`, "rpc_unreachable", err);
    throw e.name === "HttpRequestError" ? e : Object.assign(new Error(`the RPC node did not answer (${e.message})`), { name: "HttpRequestError" });
  }
  if (requests.length === 1) answers = [answers];
  else if (!Array.isArray(answers)) return null;
  const byId = new Map((answers as RpcAnswer[]).map((a) => [a?.id, a]));
  return calls.map((_, id) => byId.get(id) ?? { id, error: { code: -32603, message: "no answer for this call" } });
}

/**
 * Fees from a batch of [eth_getBlockByNumber latest, eth_maxPriorityFeePerGas,
 * eth_gasPrice], exactly as viem's estimateFeesPerGas computes them for a chain without
 * fee overrides: the latest base fee × 1.2 plus the node's priority fee (or, when the node
 * lacks eth_maxPriorityFeePerGas, its gas price minus the base fee, at least 0); a chain
 * without a base fee gets its plain gas price. Throws when the batch does not say.
 */
export function feesFromBatch(block: RpcAnswer, priority: RpcAnswer, gasPrice: RpcAnswer): Fees {
  const base = (block.result as { baseFeePerGas?: string } | null)?.baseFeePerGas;
  const price = !gasPrice.error && typeof gasPrice.result === "string" ? BigInt(gasPrice.result) : null;
  if (block.error || !block.result) throw new Error("no block in the answer");
  if (typeof base !== "string") {
    if (price === null) throw new Error("no gas price in the answer");
    return { gasPrice: price };
  }
  const baseFee = BigInt(base);
  let tip: bigint;
  if (!priority.error && typeof priority.result === "string") tip = BigInt(priority.result);
  else if (price !== null) tip = price > baseFee ? price - baseFee : 0n;
  else throw new Error("no priority fee in the answer");
  return { maxFeePerGas: (baseFee * 12n) / 10n + tip, maxPriorityFeePerGas: tip };
}

type Delivery = { kind: "accepted"; receipt: Receipt | null } | { kind: "used" | "gap" | "refused"; message: string; code: number };

/** The most a transaction may pay per unit of gas with these fees. */
const feePerGas = (f: Fees): bigint => ("gasPrice" in f ? f.gasPrice : f.maxFeePerGas);

/** The facilitator key's transactions. */
export class KeySender {
  readonly nonces: SharedNonces;
  private fees: { at: number; v: Promise<Fees> } | null = null;
  /** The fees last read, and when (what costHeld values gas at without a request). */
  private feesSeen: { at: number; fees: Fees } | null = null;
  private readonly gasLimits = new Map<string, bigint>();
  private batches = true;
  /** Whether the node has EIP-7966's eth_sendRawTransactionSync (null until the first send asks). */
  private sync: boolean | null = null;
  /**
   * How eth_sendRawTransactionSync's wait is passed, the first form still to try (see
   * SYNC_FORMS): nodes read that parameter differently, and refuse the forms they do not
   * read as invalid params, before taking the transaction.
   */
  private syncForm = 0;
  /** The form the node has read (answered with anything but invalid params), once one has. */
  private syncRead: number | null = null;
  private readonly inclusion: InclusionWatcher<Receipt>;
  /** When each waiting transaction was last nudged (sent again if dropped, gap below repaired). */
  private readonly nudged = new Map<Hex, number>();
  /** Signed transactions the node accepted, by hash, to send again if it drops them. */
  private readonly signed = new Map<Hex, { raw: Hex; at: number }>();
  private repairing: Promise<void> | null = null;
  private lastRepair = 0;
  /** When this process last had a transaction accepted (the sweep only runs after recent ones). */
  lastSendAt = 0;

  constructor(
    private readonly reads: SenderReads,
    readonly node: SenderNode,
  ) {
    const address = node.address;
    this.nonces = new SharedNonces(
      `${node.chainId}:${address.toLowerCase()}`,
      async () => {
        const [pending, latest] = await Promise.all([reads.getTransactionCount({ address, blockTag: "pending" }), reads.getTransactionCount({ address, blockTag: "latest" })]);
        return { pending, latest };
      },
      { sendWindowMs: Math.min(SEND_WINDOW_MS, node.timeoutMs), sendTimeoutMs: Math.min(SEND_TIMEOUT_MS, node.timeoutMs) },
    );
    this.inclusion = new InclusionWatcher<Receipt>(new BlockClock(), (hashes) => this.look(hashes as Hex[]), (hash, startedAt) => this.stillWaiting(hash as Hex, startedAt));
  }

  /**
   * Prepares a transaction for a send that will probably follow within a moment (an
   * optimistic payment's broadcast, prepared while the payment is verified): its nonce
   * taken from the shared counter without waiting for a read of the chain (by `leasing`,
   * a take run elsewhere, when given: null when it took none), signed with the fees held;
   * see SendAhead. `signWhen`: what else the call is waiting for meanwhile (the payment's
   * verification), see below.
   */
  sendAhead(txOf: () => Promise<OutgoingTx>, leasing: Promise<Lease | null> = this.nonces.take(false, true), signWhen: Promise<unknown> = new Promise((r) => setImmediate(r))): SendAhead {
    const txing = txOf();
    const feeing = this.feeFields(AHEAD_FEES_MAX_AGE_MS);
    // The signature is the longest CPU step of a paid call (0.6 ms after an idle stretch on
    // this machine), so it is made while the call waits for something else, and at the
    // first of two moments: when the take (a database round trip) answers, with its
    // nonce, or when `signWhen` settles first (the verification's simulation answered
    // while the take is still out), with the nonce the take will probably give; a wrong
    // guess is signed again below. Not sooner: signed right after the call's requests went
    // out, as until 2026-11-25, it competed for the CPU with the node and the database
    // answering them (2 cores): the paid call took about 0.3 ms longer in paired runs.
    const guess = this.nonces.guessNext();
    let leased = false;
    const answered = () => {
      leased = true;
      if (guess !== null) this.nonces.guessDone();
    };
    void leasing.then(answered, answered);
    const early =
      guess === null
        ? null
        : Promise.race([
            leasing.then(
              () => null,
              () => null,
            ),
            Promise.all([txing, feeing, signWhen.catch(() => undefined)]).then(
              ([tx, fees]) => (leased ? null : { nonce: guess, tx, fees, ...this.sign(tx, fees, guess) }),
              () => null,
            ),
          ]);
    const prepared = (async (): Promise<Prepared | null> => {
      const [tx, fees, lease] = await Promise.allSettled([txing, feeing, leasing]);
      if (lease.status === "fulfilled" && !lease.value) return null;
      if (tx.status === "fulfilled" && fees.status === "fulfilled" && lease.status === "fulfilled") {
        const signed = await early;
        if (signed && signed.nonce === lease.value!.nonce && signed.tx === tx.value && signed.fees === fees.value) return { lease: lease.value!, tx: tx.value, raw: signed.raw, hash: signed.hash };
        return { lease: lease.value!, tx: tx.value, ...this.sign(tx.value, fees.value, lease.value!.nonce) };
      }
      if (lease.status === "fulfilled") await this.nonces.end(lease.value!, "free");
      const failed = [tx, fees, lease].find((r) => r.status === "rejected") as PromiseRejectedResult;
      log.warn("settlement.send_ahead_failed", { sender: this.nonces.key, message: firstLine(failed.reason) });
      return null;
    })();
    return new SendAhead(
      prepared,
      (lease) => this.nonces.end(lease, "free"),
      (lease) => this.nonces.maySend(lease),
    );
  }

  /**
   * Reads what the next send needs from the chain ahead of it, while a payment is being
   * verified: the fees (when the ones held are over a second old) and the key's nonces on
   * the node (when the ones held are too old to take a nonce with, see SharedNonces), so
   * the send itself only takes its nonce from the shared counter and goes out. Both in one
   * JSON-RPC batch: separate requests at the same moment as the verification's simulation
   * doubled its time on a local node (2.3 → 5.5 ms), one batch adds 1 ms.
   */
  prepare(): void {
    const fees = !this.fees || Date.now() - this.fees.at > 1000;
    const nonces = !this.nonces.chainFresh();
    if (!fees && !nonces) return;
    if (!this.batches) {
      if (fees) void this.feeFields(1000).catch(() => undefined);
      if (nonces) void this.nonces.chainNonces(false).catch(() => undefined);
      return;
    }
    const address = this.node.address;
    const calls: Array<[string, unknown[]]> = [];
    if (nonces) calls.push(["eth_getTransactionCount", [address, "pending"]], ["eth_getTransactionCount", [address, "latest"]]);
    if (fees) calls.push(["eth_getBlockByNumber", ["latest", false]], ["eth_maxPriorityFeePerGas", []], ["eth_gasPrice", []]);
    const answers = rpcCalls(this.node.rpcUrl, this.node.timeoutMs, calls).then((a) => {
      if (a) return a;
      this.batches = false;
      throw new Error("the node does not take batches");
    });
    answers.catch(() => undefined);
    if (nonces) {
      this.nonces.prime(
        answers.then(([p, l]) => {
          if (p!.error || l!.error || typeof p!.result !== "string" || typeof l!.result !== "string") throw new Error("no nonce in the answer");
          return { pending: Number(p!.result), latest: Number(l!.result) };
        }),
      );
    }
    if (fees) {
      const at = nonces ? 2 : 0;
      // Read the usual way (below) when the batch did not give them.
      void this.feeFields(1000, () => answers.then((a) => feesFromBatch(a[at]!, a[at + 1]!, a[at + 2]!)).catch(() => this.readFees())).catch(() => undefined);
    }
  }

  /** What viem's estimateFeesPerGas answers for a chain without fee overrides, else a legacy gas price. */
  private readFees(): Promise<Fees> {
    return this.reads.estimateFeesPerGas().then(
      async (f): Promise<Fees> =>
        f.maxFeePerGas !== undefined && f.maxPriorityFeePerGas !== undefined ? { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas } : { gasPrice: await this.reads.getGasPrice() },
      async (err: unknown): Promise<Fees> => {
        // A chain without EIP-1559 fees answers with an error too; a node that did not answer is ours to retry.
        if (noAnswer(err)) throw err;
        return { gasPrice: await this.reads.getGasPrice() };
      },
    );
  }

  /** EIP-1559 fees where the chain has them, else a legacy gas price; reused for 2 s (`maxAgeMs`). */
  private feeFields(maxAgeMs = 2000, read: () => Promise<Fees> = () => this.readFees()): Promise<Fees> {
    if (this.fees && Date.now() - this.fees.at <= maxAgeMs) return this.fees.v;
    const guarded = read().catch((err: unknown) => {
      throw new NotSentError(`fees could not be read (${firstLine(err)})`, noAnswer(err) ? "rpc_unreachable" : "transaction_refused", err);
    });
    this.fees = { at: Date.now(), v: guarded };
    guarded.then(
      (fees) => (this.feesSeen = { at: Date.now(), fees }),
      () => (this.fees = null),
    );
    return guarded;
  }

  /**
   * What sending contract call `a` would cost at most (gas limit × max fee per gas, wei),
   * from what this process holds: null when it does not hold the call's gas limit or fees
   * read in the last `maxAgeMs`. No request.
   */
  costHeld(a: { address: Hex; functionName: string; args?: readonly unknown[] }, maxAgeMs = 10_000): bigint | null {
    const key = KeySender.gasKey(a);
    const gas = key ? this.gasLimits.get(key) : undefined;
    const seen = this.feesSeen;
    if (gas === undefined || !seen || Date.now() - seen.at > maxAgeMs) return null;
    return gas * feePerGas(seen.fees);
  }

  /** What a transaction with gas limit `gas` (see gasFor) would cost at most (wei) at the max fee per gas now. */
  async cost(gas: Promise<bigint>): Promise<bigint> {
    const [g, fees] = await Promise.all([gas, this.feeFields()]);
    return g * feePerGas(fees);
  }

  /** The key gasFor keeps a call's limit under; null for calls carrying dynamic bytes (estimated every time). */
  private static gasKey(a: { address: Hex; functionName: string; args?: readonly unknown[] }): string | null {
    const args = Array.isArray(a.args) ? a.args : [];
    if (args.some((v) => typeof v === "string" && /^0x/i.test(v) && v.length > 66)) return null;
    return `${a.address.toLowerCase()}:${a.functionName}:${args.length}`;
  }

  /**
   * The gas limit of a contract call, 50 % margin: estimated once per function, except for
   * calls carrying dynamic bytes (a contract wallet's ERC-1271 / ERC-6492 signature), whose
   * cost depends on the wallet that checks them; one shared limit would let a cheap
   * wallet's estimate starve a costlier wallet's transfer, which would then revert out of
   * gas at our expense on every retry.
   */
  async gasFor(a: { address: Hex; abi: unknown; functionName: string; args?: readonly unknown[] }, estimate: () => Promise<bigint>): Promise<bigint> {
    const key = KeySender.gasKey(a);
    if (!key) return ((await estimate()) * 3n) / 2n;
    const known = this.gasLimits.get(key);
    if (known) return known;
    const limit = ((await estimate()) * 3n) / 2n;
    this.gasLimits.set(key, limit);
    return limit;
  }

  /** Encodes a contract call (with the optional data suffix the x402 scheme may ask for). */
  static callData(a: { abi: unknown; functionName: string; args?: readonly unknown[]; dataSuffix?: Hex }): Hex {
    const data = encodedCall(a);
    return a.dataSuffix ? concatHex([data, a.dataSuffix]) : data;
  }

  /** Gas for a plain transaction (a smart-wallet deployment), with a 25 % margin. */
  async estimateGas(tx: { to: Hex; data: Hex; value?: bigint }): Promise<bigint> {
    return ((await this.reads.estimateGas({ account: this.node.address, ...tx })) * 5n) / 4n;
  }

  /**
   * Sends a transaction with a nonce from the shared counter (or the given lease: a gap
   * filler); resolves once the node accepted it, with the receipt when the node already
   * has one. Throws NotSentError (nothing was sent, or the nonce kept being taken),
   * SettlementUnknownError (it may have been sent) or RpcAnswerError (the node refused it:
   * whose fault that is, a simulation tells). `broadcast`: only send (optimistic mode: no
   * receipt asked for in the same request, and never eth_sendRawTransactionSync, which
   * answers only once the transaction is included).
   */
  async send(tx: OutgoingTx, given?: Lease, broadcast = false, ahead?: SendAhead | null, noteGiven?: (hash: Hex) => Promise<void>): Promise<{ hash: Hex; receipt: Receipt | null; nonce: number }> {
    let again: Lease | null = null;
    let refeed = false;
    for (let attempt = 0; ; attempt++) {
      const pre = !given && attempt === 0 && ahead ? await ahead.claim(tx) : null;
      // A confirmed settlement's payment row records the transaction before it goes out
      // (gap fillers, sent with a given lease, belong to no payment): on a first try, in the
      // nonce take's own statement when the transaction could be signed ahead of it.
      const hook = given ? undefined : beforeSendHook();
      const marked = !given && !pre && !again && attempt === 0 && hook?.inTake ? await this.takeRecording(tx, hook.inTake) : null;
      const lease: Lease =
        given ??
        again ??
        pre?.lease ??
        marked?.lease ??
        (await this.nonces.take(attempt > 0).catch((err: unknown) => {
          throw new NotSentError(`no transaction nonce could be allocated (${firstLine(err)})`, "nonce_unavailable", err);
        }));
      again = null;
      // A transaction signed ahead goes out as it is; fees are only read for one signed now.
      const { raw, hash } = pre?.signed ?? marked?.signed ?? this.sign(tx, await this.feeFields(refeed ? 0 : undefined), lease.nonce);
      // A transaction with a given lease (a gap filler) belongs to no payment: its caller's `noteGiven` records it.
      const note = hook ?? noteGiven;
      if (note && !marked?.signed) {
        try {
          await note(hash);
        } catch (err) {
          await this.nonces.end(lease, "free");
          throw new NotSentError(`the ${hook ? "payment's" : "transaction's"} record could not be written before sending (${firstLine(err)})`, "ledger_unavailable", err);
        }
      }
      const delivering = this.deliver(raw, hash, lease, broadcast);
      ahead?.onSigned?.(hash); // after the send went out: it is the longer of the two
      const d = await delivering;
      if (d.kind === "accepted") {
        this.lastSendAt = Date.now();
        this.keep(hash, raw);
        if (!given) failpoint("after_broadcast");
        // Fees and nonces for the next transaction signed ahead, read after this call's
        // answer has gone out rather than during the next one's verification.
        if (ahead) setTimeout(() => this.prepare(), 20).unref();
        return { hash, receipt: d.receipt, nonce: lease.nonce };
      }
      if (d.kind === "used") {
        // Another transaction has this nonce (another sender, or one we could not see):
        // take a new one, reading the chain fresh.
        await this.nonces.end(lease, "used");
        log.warn("settlement.nonce_conflict", { sender: this.nonces.key, nonce: lease.nonce, attempt, message: d.message });
        if (given || attempt >= NONCE_ATTEMPTS) throw new NotSentError(`the transaction kept meeting nonce conflicts (${d.message})`, "nonce_conflict");
        continue;
      }
      if (d.kind === "refused" && pre?.signed && !refeed && isFeeRefusal(d.message)) {
        // Signed ahead with fees held for a while, and the chain's fees rose since: the
        // same nonce (unused: the node refused it) with fees read now.
        log.warn("settlement.fees_refreshed", { sender: this.nonces.key, nonce: lease.nonce, message: d.message });
        refeed = true;
        again = lease;
        continue;
      }
      // Refused: the node did not take it, so the nonce is unused.
      await this.nonces.end(lease, "free");
      if (d.kind === "gap") {
        void this.repair();
        throw new NotSentError(`a lower nonce of the facilitator key has not reached the node (${d.message})`, "nonce_gap");
      }
      throw new RpcAnswerError(d.message, d.code);
    }
  }

  /**
   * Takes the nonce of a confirmed settlement's transaction with the payment's record of it
   * in the same statement (`inTake`, see BeforeSend): the transaction is signed first on the
   * nonce the take will probably give (SharedNonces.guessNext), and the record is written
   * only if the take gives that very nonce. `signed` is null when it gave another (or the
   * take's first statement took nothing): the caller signs on the lease's nonce and records
   * the transaction on its own, as without this. Null when no guess can be made yet.
   */
  private async takeRecording(tx: OutgoingTx, inTake: NonNullable<BeforeSend["inTake"]>): Promise<{ lease: Lease; signed: { raw: Hex; hash: Hex } | null } | null> {
    const fees = await this.feeFields();
    const guess = this.nonces.guessNext();
    if (guess === null) return null;
    let gave: string | null = null;
    try {
      const signed = this.sign(tx, fees, guess);
      const lease = await this.nonces.take(false, false, async (args) => {
        const rows = await inTake(signed.hash, guess)(args);
        gave = rows[0]?.nonce ?? null;
        return rows;
      });
      return { lease, signed: gave === String(guess) && lease.nonce === guess ? signed : null };
    } catch (err) {
      throw new NotSentError(`no transaction nonce could be allocated (${firstLine(err)})`, "nonce_unavailable", err);
    } finally {
      this.nonces.guessDone();
    }
  }

  private sign(tx: OutgoingTx, fees: Fees, nonce: number): { raw: Hex; hash: Hex } {
    const base = { chainId: this.node.chainId, to: tx.to, data: tx.data, value: tx.value ?? 0n, gas: tx.gas, nonce };
    const unsigned = "gasPrice" in fees ? ({ ...base, type: "legacy", gasPrice: fees.gasPrice } as const) : ({ ...base, type: "eip1559", ...fees } as const);
    const sig = signDigest(keccak256(serializeTransaction(unsigned)), this.node.privateKey);
    const raw = serializeTransaction(unsigned, { ...sig, v: BigInt(27 + sig.yParity) });
    return { raw, hash: keccak256(raw) };
  }

  private keep(hash: Hex, raw: Hex): void {
    const now = Date.now();
    if (this.signed.size > 1000) for (const [h, s] of this.signed) if (now - s.at > KEEP_SIGNED_MS) this.signed.delete(h);
    this.signed.set(hash, { raw, at: now });
  }

  /**
   * Sends one signed transaction, again while the node answers `nonce too high` and the
   * lease's window is open. Without an answer the lease is released (the transaction may
   * have arrived: the nonce is reused only once the chain shows it missing).
   */
  private async deliver(raw: Hex, hash: Hex, lease: Lease, broadcast: boolean): Promise<Delivery> {
    let last: Delivery = { kind: "gap", message: "the lease's send window had closed before the first send", code: 0 };
    for (let gap = 0; this.nonces.maySend(lease); gap++) {
      let answers: RpcAnswer[];
      try {
        answers = await this.post(raw, hash, broadcast);
      } catch (err) {
        if (err instanceof NotSentError) {
          await this.nonces.end(lease, "free");
          throw err;
        }
        await this.nonces.end(lease, "released");
        throw new SettlementUnknownError(`the transaction may have been sent (${firstLine(err)})`, hash);
      }
      const [sent, got] = answers;
      const e = sent!.error;
      if (!e || isAlreadyKnown(e.message)) return { kind: "accepted", receipt: !e && got?.result ? formatTransactionReceipt(got.result as never) : null };
      if (isNonceGap(e.message)) {
        // A lower nonce of ours is still on its way (a node that does not queue refuses this
        // one meanwhile): the same transaction again, a moment later.
        last = { kind: "gap", message: e.message, code: e.code };
        await gapWait(gap);
        continue;
      }
      // A node that runs a transaction as it takes it (Hardhat or anvil automining) answers
      // one that reverted with an error although it mined it, and the key paid its gas: the
      // receipt says so (asked in the same batch, and once more now when that found none: a
      // refusal is rare, and a node may answer a batch's calls out of order). Then it was
      // accepted, and its nonce is used: the settlement reads the revert from the receipt
      // and records its fee.
      const mined = got?.result ? formatTransactionReceipt(got.result as never) : await this.minedReceipt(hash);
      if (mined) return { kind: "accepted", receipt: mined };
      if (isNonceUsed(e.message)) return { kind: "used", message: e.message, code: e.code };
      return { kind: "refused", message: e.message, code: e.code };
    }
    return last;
  }

  /** The receipt of `hash` if the node has one now (null otherwise, also without an answer). */
  private async minedReceipt(hash: Hex): Promise<Receipt | null> {
    try {
      const [r] = (await rpcCalls(this.node.rpcUrl, this.nonces.timing.sendTimeoutMs, [["eth_getTransactionReceipt", [hash]]]))!;
      return r && !r.error && r.result ? formatTransactionReceipt(r.result as never) : null;
    } catch {
      return null;
    }
  }

  /** One send: [send answer, receipt answer (null result while not included, absent for a broadcast)]. */
  private async post(raw: Hex, hash: Hex, broadcast: boolean): Promise<RpcAnswer[]> {
    const send: [string, unknown[]] = ["eth_sendRawTransaction", [raw]];
    const timeout = this.nonces.timing.sendTimeoutMs;
    if (broadcast) {
      const alone = await rpcCalls(this.node.rpcUrl, timeout, [send]);
      if (!alone) throw Object.assign(new Error("the RPC node answered with something other than JSON-RPC"), { name: "HttpRequestError" });
      return alone;
    }
    if (this.sync !== false) {
      const answers = await this.sendSync(raw, hash);
      if (answers) return answers;
    }
    const batched = this.batches ? await rpcCalls(this.node.rpcUrl, timeout, [send, ["eth_getTransactionReceipt", [hash]]]) : null;
    if (batched) return batched;
    // The node does not take batches (it answered the batch with one error): send alone.
    this.batches = false;
    const alone = await rpcCalls(this.node.rpcUrl, timeout, [send]);
    if (!alone) throw Object.assign(new Error("the RPC node answered with something other than JSON-RPC"), { name: "HttpRequestError" });
    return alone;
  }

  /**
   * Sends with eth_sendRawTransactionSync (EIP-7966: the node answers once the transaction
   * is included, with its receipt), asked once per process: null when the node does not
   * have the method (nothing was sent), else the answers in post()'s shape. The node takes
   * the transaction when the request arrives, so its pending nonce counts it from then on.
   *
   * Nodes that have the method read its optional wait differently (SYNC_FORMS): a form a
   * node does not read is refused as invalid params (-32602), and a node never takes a
   * transaction it answers so, so the same transaction goes out again in the next form,
   * until one is read; that form is kept. Once a form is read, invalid params in it refuse
   * the transaction itself (one the node cannot decode). A node that reads none of the
   * forms is sent to without the method.
   */
  private async sendSync(raw: Hex, hash: Hex): Promise<RpcAnswer[] | null> {
    // The node must answer (code 4 past the wait) before this request times out.
    const waitMs = Math.min(SYNC_WAIT_MS, this.node.timeoutMs - SYNC_MARGIN_MS);
    if (waitMs < SYNC_MIN_WAIT_MS) {
      this.sync = false;
      return null;
    }
    for (;;) {
      const form = this.syncRead ?? this.syncForm;
      if (form >= SYNC_FORMS.length) {
        this.sync = false;
        return null;
      }
      const [res] = (await rpcCalls(this.node.rpcUrl, this.node.timeoutMs, [["eth_sendRawTransactionSync", SYNC_FORMS[form]!.params(raw, waitMs)]]))!;
      const e = res!.error;
      // Concurrent first sends all ask: any "no such method" answer settles it, and only a
      // real answer (a receipt, or code 4) proves the method exists.
      if (e && NO_SUCH_METHOD.test(e.message)) {
        this.sync = false;
        return null;
      }
      if (e?.code === INVALID_PARAMS) {
        // In a form the node reads, invalid params are about the transaction itself (anvil
        // answers a transaction it cannot decode so): refused, the next form would be too.
        if (this.syncRead === form) return [res!, { id: 1 }];
        // Concurrent sends may have moved past this form already.
        if (this.syncRead === null && this.syncForm === form) {
          this.syncForm = form + 1;
          log.info("settlement.sync_send_form", { sender: this.nonces.key, refused: SYNC_FORMS[form]!.name, message: e.message });
        }
        continue;
      }
      // Any other answer means the node read the parameters.
      this.syncRead = form;
      if (!e || e.code === 4) this.sync = true;
      // Code 4: accepted but not included within the wait; the caller looks for the receipt.
      if (e?.code === 4) return [{ id: 0, result: hash }, { id: 1 }];
      return [res!, { id: 1, result: res!.result }];
    }
  }

  /** One look for receipts, with the head's number for the block clock: one batch where the node takes batches. */
  private async look(hashes: Hex[]): Promise<{ receipts: Array<Receipt | null | Error>; head: number | null }> {
    const calls: Array<[string, unknown[]]> = [["eth_blockNumber", []], ...hashes.map((h): [string, unknown[]] => ["eth_getTransactionReceipt", [h]])];
    const timeout = this.node.timeoutMs;
    const answers = this.batches ? ((await rpcCalls(this.node.rpcUrl, timeout, calls)) ?? ((this.batches = false), null)) : null;
    const [h, ...rs] = answers ?? (await Promise.all(calls.map(async (c) => (await rpcCalls(this.node.rpcUrl, timeout, [c]))![0]!)));
    const receipts = rs.map((r, i) => {
      if (r!.error) return new RpcAnswerError(r!.error.message, r!.error.code);
      if (!r!.result) return null;
      this.signed.delete(hashes[i]!);
      this.nudged.delete(hashes[i]!);
      return formatTransactionReceipt(r!.result as never);
    });
    return { receipts, head: typeof h?.result === "string" ? Number(h.result) : null };
  }

  /**
   * Waits for a transaction's receipt (TimeoutError after `timeoutMs`: the outcome is then
   * unknown, never "not paid"), looking on the chain's block rhythm (./inclusion.ts).
   * `patient`: nobody waits for the answer (an optimistic payment's confirmation after its
   * response, the sweep). A wait longer than a couple of blocks nudges the chain once a
   * second: the transaction is sent again if the node dropped it, and a gap below it is
   * filled (repair()).
   */
  awaitReceipt(hash: Hex, timeoutMs: number, patient = false): Promise<Receipt> {
    return this.inclusion.wait(hash, timeoutMs, !patient);
  }

  private stillWaiting(hash: Hex, startedAt: number): void {
    const slowAfter = Math.max(3000, 2 * (this.inclusion.clock.interval ?? 1000));
    const now = Date.now();
    if (now - startedAt <= slowAfter || now - (this.nudged.get(hash) ?? 0) <= 1000) return;
    if (this.nudged.size > 1000) for (const [h, at] of this.nudged) if (now - at > KEEP_SIGNED_MS) this.nudged.delete(h);
    this.nudged.set(hash, now);
    void this.nudge(hash);
  }

  /** Sends a waiting transaction again if the node no longer has it, and repairs a gap below it. */
  private async nudge(hash: Hex): Promise<void> {
    const kept = this.signed.get(hash);
    if (kept) {
      try {
        const [known] = (await rpcCalls(this.node.rpcUrl, this.nonces.timing.sendTimeoutMs, [["eth_getTransactionByHash", [hash]]]))!;
        if (known && !known.error && known.result === null) {
          const [again] = (await rpcCalls(this.node.rpcUrl, this.nonces.timing.sendTimeoutMs, [["eth_sendRawTransaction", [kept.raw]]]))!;
          log.warn("settlement.rebroadcast", { transaction: hash, answer: again?.error ? firstLine(again.error.message) : "accepted" });
          // Its nonce went to another transaction: this one can never be included.
          if (again?.error && isNonceUsed(again.error.message)) this.signed.delete(hash);
        }
      } catch (err) {
        log.warn("settlement.rebroadcast_failed", { transaction: hash, message: firstLine(err) });
      }
    }
    await this.repair();
  }

  /**
   * Fills the gap at the node's pending nonce when its lease is over (a dead or departed
   * holder, a dropped transaction) with a zero-value transaction to the key itself, so the
   * key's waiting transactions are included. At most one at a time and once a second per
   * process; concurrent repairs in other processes claim the gap first or find it taken.
   */
  repair(): Promise<void> {
    if (this.repairing) return this.repairing;
    if (Date.now() - this.lastRepair < 1000) return Promise.resolve();
    this.repairing = (async () => {
      const sender = this.nonces.key;
      let lease: Lease | null = null;
      try {
        lease = await this.nonces.claimGap();
        if (!lease) return;
        log.warn("settlement.nonce_gap", { sender, nonce: lease.nonce });
        // Gas for nothing but the key's other transactions: the service's own fee, noted
        // before the filler goes out and priced once it is mined (nobody waits for it here;
        // if this process dies first, the recovery pass prices it from the chain).
        const network = `eip155:${this.node.chainId}`;
        const note = (transaction: Hex) => noteServiceTransaction({ network, reason: "nonce_gap_filler", transaction });
        const { hash, receipt } = await this.send({ to: this.node.address, data: "0x", value: 0n, gas: 21_000n }, lease, false, null, note);
        log.warn("settlement.nonce_gap_filled", { sender, nonce: lease.nonce, transaction: hash });
        void (receipt ? Promise.resolve(receipt) : this.awaitReceipt(hash, FILLER_RECEIPT_MS, true))
          .then((r) => recordServiceFee({ network, reason: "nonce_gap_filler", fee: r.gasUsed * r.effectiveGasPrice, transaction: hash, noted: true }))
          .catch((err: unknown) => log.warn("settlement.nonce_gap_filler_fee_unknown", { sender, transaction: hash, message: firstLine(err) }));
      } catch (err) {
        log.error("settlement.nonce_gap_fill_failed", { sender, nonce: lease?.nonce ?? null, message: firstLine(err) });
      } finally {
        this.lastRepair = Date.now();
        this.repairing = null;
      }
    })();
    return this.repairing;
  }
}

/**
 * How old the fees a transaction is signed ahead with may be. They are read again after
 * each such send (for the next one) rather than while a payment is verified, where the
 * read competes with the verification's simulation at the node; the base fee's 20 %
 * margin covers more than one block's largest rise, and a node refusing the fees as too
 * low gets the transaction again with fees read then (send()).
 */
const AHEAD_FEES_MAX_AGE_MS = 30_000;

/** The node refused a transaction's fees as too low (not a nonce matter: those are told apart first). */
export function isFeeRefusal(message: string): boolean {
  return /fee ?per ?gas|base ?fee|underpriced|gas price|fee too low|fee cap/i.test(message);
}
