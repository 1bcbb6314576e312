/**
 * The life cycle every x402 payment shares, whatever the network: lock the payment's
 * reference (the replay guard) and verify it with the facilitator, then hand back `settle`
 * for after the handler succeeded and `release` for when it failed.
 *
 * Settlement has three outcomes, and the caller is told which:
 * - settled: the payment is recorded with its receipt in one statement and the result is
 *   delivered, even if that bookkeeping fails (it is logged for reconciliation);
 * - refused (the facilitator's answer, or a reverted transfer): nothing moved, the row is
 *   kept as failed so the authorization is never accepted again;
 * - unknown (a timeout after the transfer may have been sent): the row is kept as
 *   "unknown" and the caller is asked to present the same payment again. That retry takes
 *   the row over and, where the network can tell (`outcome`), reads from the chain whether
 *   the transfer happened: then the result is delivered without paying again; if the
 *   authorization is still unused it is verified and settled as usual.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { randomUUID } from "node:crypto";
import type { AuthorizedPayment, ReceiptFields, SettlementMode } from "@/lib/payments/types";
import { confirmBroadcast, forgetLock, lockPayment, markExpired, markFailed, markSent, markUnknown, payerInFlight, recordSettlement, releaseLock, replaceBroadcastTx, takeMarkingSent, unrecordBroadcast, type LockInput, type PaymentLock } from "@/lib/payments/ledger";
import { answerToKeep, keptReceiptId } from "@/lib/payments/answers";
import { releaseLease } from "@/lib/payments/leases";
import { failpoint } from "@/lib/failpoints";
import { withBeforeSend } from "@/lib/payments/x402/chain-call";
import { FacilitatorError, type CheckedSettle, type CheckedVerify } from "@/lib/payments/x402/facilitator-call";
import { NotSentError, SettlementUnknownError } from "@/lib/payments/x402/evm-local";
import { broadcastWithFacilitator, sendAhead } from "@/lib/payments/x402/facilitator";
import type { SendAhead } from "@/lib/payments/x402/send-ahead";
import { confirmLater, optimisticAsk, settlementMode } from "@/lib/payments/x402/optimistic";
import { ApiError } from "@/lib/errors";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { feeBudgetSpent, forgetPayerFees, isServiceFee, payerFailedFees, payerFeeBudget, recordServiceFee } from "@/lib/payments/fees";
import { countFee } from "@/lib/metrics";

/** A settlement's answer; `fee`: the network fee its transaction cost, when the settlement learned it (EVM receipt). */
export type SettleResult = CheckedSettle & { broadcast?: boolean; fee?: bigint };

/** What the chain says happened to a payment (networks that can tell). */
export type PaymentOutcome = { kind: "transferred"; transaction: string | null } | { kind: "unused" } | { kind: "void" };

export interface HoldInput {
  lock: LockInput;
  payer: string | null;
  payload: PaymentPayload;
  req: PaymentRequirements;
  /** `readAhead: false`: the settlement prepares its transaction itself (optimistic mode), nothing to read for it during verification. */
  /**
   * `opts.balance`: the payer's balance is wanted too (see `balance`); a verifier that reads
   * it with its own request to the chain answers it as `payerBalance` (a bigint; anything
   * else when the chain did not say).
   */
  verify(payload: PaymentPayload, req: PaymentRequirements, opts?: { readAhead?: boolean; balance?: boolean }): Promise<CheckedVerify & { payerBalance?: unknown }>;
  settle(payload: PaymentPayload, req: PaymentRequirements): Promise<SettleResult>;
  /**
   * Reads the payment's outcome on chain (used after an unknown or refused settlement);
   * `knownTx` is the transaction an earlier attempt reported, if any.
   */
  outcome?(payload: PaymentPayload, req: PaymentRequirements, knownTx: string | null): Promise<PaymentOutcome>;
  /**
   * Whether a refused settlement's transaction may still land (its send went unanswered,
   * its confirmation timed out): then the outcome is unknown, never the payer's failure.
   * A `settlement_pending` answer always counts as such.
   */
  mayLand?(s: CheckedSettle): boolean;
  /** Plain-language reason for a refusal (network-specific codes). */
  refusal?(v: CheckedVerify): string;
  /** Plain-language reason for a refused settlement. */
  settleRefusal?(s: CheckedSettle): string;
  /**
   * Whether the payment's transfer would still succeed now (null: the chain did not
   * answer). A settlement refused while it does was refused for a reason of ours (the
   * facilitator's key, nonce, gas, RPC): the authorization stays usable.
   */
  stillPays?(payload: PaymentPayload, req: PaymentRequirements): Promise<boolean | null>;
  /**
   * A transaction an earlier attempt sent for this payment (a row taken over from a dead
   * holder): whether the node still holds it, has included it, or does not know it
   * (dropped or never arrived). With `confirm`, a payment taken over waits for that
   * transaction instead of sending a second one.
   */
  txState?(tx: string): Promise<"pending" | "included" | "unknown">;
  /** Waits for a transaction an earlier attempt sent and checks its transfer (see txState). */
  confirm?(payload: PaymentPayload, req: PaymentRequirements, tx: string): Promise<CheckedSettle>;
  /** Whether the authorization can no longer be used (past its validity): an unused one is then void for good. */
  expired?(): boolean;
  /**
   * The payer's balance of the asset now (null: the chain did not answer), read only when
   * the payer has other payments in flight: it must cover them and this one, or this one
   * would be sent to fail at our expense.
   */
  balance?(): Promise<bigint | null>;
  /**
   * The network fee (native base units) the service paid for the payment's settlement
   * transaction `tx`, when it can be learned (null otherwise): recorded with the payment
   * (lib/payments/fees.ts). `failed`: the transaction failed on chain (the fee then counts
   * against the payer's fee budget; it may be read from the chain); otherwise only what
   * is known without a request (the settlement's `fee`, or the transaction itself).
   */
  fee?(tx: string, s: SettleResult, failed: boolean): Promise<bigint | null> | bigint | null;
  /**
   * What transaction `tx` cost the service's key, read from the chain: null when it was not
   * mined (or the key is not ours). Asked for an earlier attempt's transaction whose answer
   * was lost, when the payment taken over turns out unpaid (endUnpaid).
   */
  minedFee?(tx: string): Promise<bigint | null>;
  /**
   * The bound on what the settlement may cost the service (EVM gas against the price,
   * lib/payments/x402/facilitator.ts evmGasBound): `now` judges from what is held without
   * a request (null: passes; an ApiError: would refuse; undefined: not known), `check`
   * reads the fees now and throws the refusal. Decided before any nonce is taken: a
   * payment `now` does not pass is never optimistic (that nonce is taken with the lock)
   * and is checked after verification, before its send takes one.
   */
  costBound?: { now(): ApiError | null | undefined; check(): Promise<void> };
  /** The payment's x402 payment-identifier id, if any (seals the kept answer's secrets). */
  identifier?: string | null;
  /**
   * The id its settlement transaction will have, when known before it is sent (Solana
   * in-process: the fee payer's deterministic signature): recorded first ("sent"), as an
   * EVM transaction's hash is through the sender's hook.
   */
  sentId?(): Promise<string | null>;
}

export function unavailable(message: string): ApiError {
  return new ApiError("service_unavailable", message, { retryAfterSeconds: 10 });
}

/**
 * Whose side a settlement failure is on, in every such error's body (`fault`, `reason`)
 * so logs and clients can tell them apart: `service` (our key, nonce, gas or RPC node:
 * the payment stays usable), `unknown` (the outcome could not be learned yet) or `payer`
 * (the payment itself fails).
 */
export type SettlementFault = "service" | "unknown" | "payer";

function pending(lockId: string, detail: string, reason = "outcome_unknown"): ApiError {
  return new ApiError(
    "settlement_pending",
    `The settlement of this payment did not complete in time (${detail}); the transfer may still happen. The data was not delivered. Send the same request with the same payment again in a few seconds: you will get the result if the payment settled, or a definite answer if it did not. Payment id ${lockId}.`,
    { retryAfterSeconds: 5, extra: { payment_id: lockId, reason, fault: "unknown" satisfies SettlementFault } },
  );
}

/** Our side failed before any funds moved: the same payment can be sent again as it is. */
function deferred(lockId: string, err: NotSentError): ApiError {
  return new ApiError(
    "settlement_pending",
    `The service could not settle this payment right now (${err.message}). No funds moved and the data was not delivered; your authorization is still valid: send the same request with the same payment again in a few seconds. Payment id ${lockId}.`,
    { retryAfterSeconds: 5, extra: { payment_id: lockId, reason: err.reason, fault: "service" satisfies SettlementFault } },
  );
}

async function askOutcome(o: HoldInput, knownTx: string | null): Promise<PaymentOutcome | null> {
  if (!o.outcome) return null;
  try {
    return await o.outcome(o.payload, o.req, knownTx || null);
  } catch (err) {
    log.warn("payment.outcome_unreadable", { network: o.req.network, message: (err as Error).message });
    return null;
  }
}

export async function holdPayment(o: HoldInput): Promise<AuthorizedPayment> {
  // The lock and the verification are independent, so they run together; only the lock's
  // winner goes on, and a refused verification releases the lock. Verification starts
  // first: its on-chain simulation is then in flight while the lock's statement and the
  // signature check use the CPU (an embedded database runs on this thread). A call that may
  // be delivered in optimistic mode asks for its share of the payer's optimistic cap in the
  // lock's own statement; a share taken for a payment that then fails verification goes
  // with its row when the lock is released. (Whether it may be optimistic is decided just
  // before verification starts: such a call reads nothing ahead for its settlement.)
  let ask: ReturnType<typeof optimisticAsk> = null;
  const bound = o.costBound?.now();
  try {
    // Known to cost more than its share: never optimistic (the confirmed path refuses it
    // at the fees it would pay). Unknown yet (no fees read lately on this instance): it may
    // be optimistic, judged before its handler runs (holdLocked), so an idle instance's
    // first payment is not made to wait for a block.
    if (!o.costBound || !(bound instanceof ApiError)) ask = optimisticAsk(o.payload, o.req, o.payer);
  } catch {
    // No in-process facilitator could be built: the verification says why; never optimistic.
  }
  // This instance's last read of the payer's balance, when it saw the payer with payments in
  // flight lately (an agent paying faster than blocks come): its balance is read again with
  // the verification (in the simulation's own request where the verifier can).
  const last = o.balance && o.payer ? lastBalance(o.req.network, o.payer) : null;
  const verifying = o.verify(o.payload, o.req, { readAhead: !ask, ...(last && { balance: true }) });
  // A call that may be delivered optimistically prepares its broadcast now too (nonce
  // taken in the lock's own statement when it reserved a share of the cap, transaction
  // signed), so after the handler it only goes out; the nonce is handed back whenever the
  // broadcast does not happen.
  const prepared = ask ? sendAhead(o.payload, o.req, verifying) : null;
  const ahead = prepared?.ahead ?? null;
  // The payer's fees spent on failed settlements, read from the shared store meanwhile.
  const budget = o.payer ? payerFeeBudget(o.req.network) : null;
  const spending = budget !== null && o.payer ? payerFailedFees(o.req.network, o.payer).catch((err: unknown) => {
    log.warn("payment.fee_budget_unreadable", { network: o.req.network, message: (err as Error).message });
    return null;
  }) : null;
  // The payer's balance, for its payments in flight (fundsCover). A payer this instance saw
  // with payments in flight lately has it read now, with the verification; any other payer's
  // only when the lock finds something in flight, as soon as the lock answers.
  const fresh = last ? readBalance(o, verifying) : null;
  // The lock's statement takes the optimistic broadcast's nonce too when the payer has
  // nothing in flight, or when the last balance read covers everything in flight and this
  // payment (otherwise the send takes one after the handler). It is judged on that last read
  // so the statement need not wait for the new one: the lock counts the payer's payments
  // settled since the last read was sent as in flight (the balance may still hold them; see
  // lockPayment), so only funds the payer moved elsewhere since can make it wrong, and
  // fundsCover, on the new read, then refuses the payment and the nonce goes back unused,
  // as a payment refused by its verification hands back the nonce its lock took.
  const busy = prepared?.nonce && last ? { sentAt: last.sentAt, value: Promise.resolve(last.value) } : null;
  const locking = lockPayment(o.lock, ask ?? undefined, prepared?.nonce, busy);
  const balance = locking.then(
    (l) => {
      if (l.reclaimed || !l.payerInFlight || !o.balance || !o.payer) return null;
      const read = fresh ?? readBalance(o, null);
      const payer = o.payer;
      void read.value.then((value) => rememberBalance(o.req.network, payer, read.sentAt, value));
      return read.value;
    },
    () => null,
  );
  const [verified, locked] = await Promise.allSettled([verifying, locking]);
  if (locked.status === "rejected") {
    ahead?.free();
    throw locked.reason;
  }
  const lock = locked.value;
  try {
    return await holdLocked(o, lock, verified, ahead, budget, spending, bound, balance);
  } catch (err) {
    // A payment taken over from an earlier attempt may have been transferred by it: an
    // unforeseen failure while its outcome is worked out is pending, never "nothing was charged".
    if (lock.reclaimed && !(err instanceof ApiError)) {
      log.error("payment.takeover_failed", { paymentId: lock.id, message: (err as Error)?.message });
      throw pending(lock.id, "an internal failure while the outcome of an earlier attempt was read");
    }
    throw err;
  }
}

/**
 * The last balance read of payers seen with payments in flight on this instance lately, by
 * network and address: when the read was sent (ms since the epoch) and what it said. Kept
 * BUSY_MS after the read; such a payer's next payment has its balance read again alongside
 * its verification, and its lock judges the nonce take on this one (holdPayment).
 */
const BUSY_MS = 10_000;
type BalanceSeen = { sentAt: number; value: bigint };
const busyPayers = () => processState("payments.busy-payers", () => new Map<string, BalanceSeen>());
const busyKey = (network: string, payer: string) => `${network}|${payer.toLowerCase()}`;
function lastBalance(network: string, payer: string): BalanceSeen | null {
  const seen = busyPayers().get(busyKey(network, payer));
  return seen && seen.sentAt + BUSY_MS > Date.now() ? seen : null;
}
function rememberBalance(network: string, payer: string, sentAt: number, value: bigint | null): void {
  if (value === null) return;
  const m = busyPayers();
  if (m.size > 10_000) for (const [k, seen] of m) if (seen.sentAt + BUSY_MS <= Date.now()) m.delete(k);
  const k = busyKey(network, payer);
  if ((m.get(k)?.sentAt ?? 0) <= sentAt) m.set(k, { sentAt, value });
}

/**
 * Reads the payer's balance: from `verifying`'s answer when its verifier read it with the
 * simulation (`payerBalance`), otherwise on its own (started now, or once a verifier that
 * did not read it, or could not, answered). `sentAt`: when the read went out.
 */
function readBalance(o: HoldInput, verifying: Promise<CheckedVerify & { payerBalance?: unknown }> | null): { sentAt: number; value: Promise<bigint | null> } {
  const sentAt = Date.now();
  const own = () => o.balance!().catch(() => null);
  if (!verifying) return { sentAt, value: own() };
  const value = verifying.then(
    (v) => (typeof v.payerBalance === "bigint" ? v.payerBalance : own()),
    () => null,
  );
  return { sentAt, value };
}

/** The rest of holdPayment, once the lock is taken: `budget` and `spending`, the payer's fee budget and its failed settlements' fees (being read). */
async function holdLocked(
  o: HoldInput,
  lock: PaymentLock,
  verified: PromiseSettledResult<CheckedVerify>,
  ahead: SendAhead | null,
  budget: bigint | null,
  spending: Promise<bigint | null> | null,
  bound: ApiError | null | undefined,
  balance: Promise<bigint | null>,
): Promise<AuthorizedPayment> {
  if (verified.status !== "fulfilled" || !verified.value.isValid || !lock.optimistic?.reserved || lock.reclaimed) ahead?.free();
  if (verified.status === "rejected") {
    await releaseLock(lock);
    const err = verified.reason as Error;
    if (err instanceof FacilitatorError) throw unavailable(`Payment verification is unavailable (${err.message}); nothing was charged.`);
    throw err;
  }
  const v = verified.value;
  if (!v.isValid) {
    // A payment taken over from an earlier attempt no longer verifies once its transfer
    // has happened: the chain says so, and the call is served without paying twice.
    if (lock.reclaimed && o.outcome) {
      const out = await askOutcome(o, lock.reclaimed.txHash);
      log.info("payment.retry_outcome", { paymentId: lock.id, outcome: out?.kind ?? "unreadable", reason: v.invalidReason });
      if (out?.kind === "transferred") return grant(o, lock, () => Promise.resolve({ success: true, transaction: out.transaction ?? lock.reclaimed?.txHash ?? "", network: o.req.network, payer: o.payer ?? undefined }));
      if (out === null || (lock.reclaimed.txHash && out.kind === "unused" && (await stillHeld(o, lock.reclaimed.txHash)))) {
        // The chain could not be asked, or the earlier attempt's transaction is still on
        // its way: the outcome is not known yet, whatever this verification says.
        await releaseLock(lock);
        throw pending(lock.id, out === null ? "its outcome could not be read from the chain" : `transaction ${lock.reclaimed.txHash} of an earlier attempt is still waiting to be included`);
      }
      // Never transferred: void (used elsewhere or cancelled), expired, or refused now.
      await endUnpaid(o, lock, out.kind === "void" ? "failed" : o.expired?.() ? "expired" : null, v.invalidReason ?? "invalid", lock.reclaimed.txHash);
    } else {
      await releaseLock(lock);
    }
    throw new ApiError("payment_invalid", o.refusal?.(v) ?? `The payment was refused: ${v.invalidReason ?? "invalid"}.`);
  }
  let mode: "optimistic" | "confirmed";
  try {
    const spent = lock.reclaimed ? null : await spending;
    if (spent !== null && budget !== null && spent > 0n && spent >= budget) {
      log.warn("payment.fee_budget_spent", { paymentId: lock.id, network: o.req.network, payer: o.payer, spent: spent.toString(), budget: budget.toString() });
      throw feeBudgetSpent(o.req.network, spent, budget);
    }
    await fundsCover(o, lock, balance);
    mode = settlementMode(lock, o.payer);
    // An optimistic broadcast was signed ahead with the fees `now` passed; a confirmed send
    // is judged at the fees it will pay (read during verification, see prepare()), so fees
    // that fell since `now`'s refusal no longer refuse it; an optimistic one whose cost was
    // not known then is judged now, before its handler runs and anything is delivered.
    if (!lock.reclaimed && o.costBound && (mode === "confirmed" || bound === undefined)) await o.costBound.check();
  } catch (err) {
    ahead?.free();
    await releaseLock(lock);
    throw err;
  }
  failpoint("after_lock");
  if (mode === "optimistic") return grant(o, lock, () => broadcastWithFacilitator(o.payload, o.req, ahead), ahead);
  const known = lock.reclaimed?.txHash;
  if (known && o.txState && o.confirm) return grant(o, lock, () => settleTakenOver(o, lock, known));
  return grant(o, lock, () => o.settle(o.payload, o.req));
}

/**
 * Refuses (402, nothing sent) a payment that the payer's funds cannot cover on top of its
 * other payments in flight (locked by live calls, sent, or delivered unconfirmed, on any
 * instance: the lock counted them, lib/payments/ledger.ts): its transfer would revert and
 * the service would pay the gas. Only asked when the payer has something in flight, so a
 * payer's sequential calls never wait for it; `read` is the balance read started as soon as
 * the lock answered (holdPayment), during the verification, so a payer with payments in
 * flight and the funds to cover them waits for no round trip either. A balance read just as another payment of
 * the payer settled counts that one twice, so a shortfall is read again once before the
 * refusal; a chain that does not answer lets the payment through (verification just
 * simulated its transfer: it is covered on its own).
 */
async function fundsCover(o: HoldInput, lock: PaymentLock, read: Promise<bigint | null>): Promise<void> {
  const inFlight = lock.payerInFlight ?? 0n;
  if (lock.reclaimed || inFlight === 0n || !o.balance || !o.payer) return;
  const need = (others: bigint) => others + o.lock.amountAtomic;
  let balance = await read;
  let others = inFlight;
  if (balance === null || balance >= need(others)) return;
  others = await payerInFlight(o.lock.network, o.payer, lock.id).catch(() => others);
  balance = await o.balance().catch(() => null);
  if (balance === null || balance >= need(others)) return;
  log.warn("payment.funds_in_flight", { paymentId: lock.id, network: o.req.network, payer: o.payer, balance: balance.toString(), in_flight: others.toString(), amount: o.lock.amountAtomic.toString() });
  throw new ApiError(
    "payment_invalid",
    `The payer's balance (${balance} base units) does not cover this payment (${o.lock.amountAtomic}) on top of its payments still in flight (${others}): its transfer would fail. Nothing was sent and nothing was charged; present the same payment again once those have settled.`,
    { retryAfterSeconds: 2, extra: { reason: "funds_in_flight", fault: "payer" satisfies SettlementFault } },
  );
}

/** The fee the payment's transaction cost (see HoldInput.fee), counted in the metrics; null when not learned. */
async function feeOf(o: HoldInput, tx: string, s: SettleResult, failed: boolean): Promise<bigint | null> {
  if (!o.fee || (!tx && s.fee === undefined)) return null;
  try {
    const fee = await o.fee(tx, s, failed);
    if (fee !== null) countFee(o.req.network, failed ? "failed" : "settled", fee);
    return fee;
  } catch (err) {
    log.warn("payment.fee_unreadable", { network: o.req.network, transaction: tx, message: (err as Error).message });
    return null;
  }
}

/** Whether the node still holds transaction `tx` (unknown when it cannot be asked: then it may). */
async function stillHeld(o: HoldInput, tx: string): Promise<boolean> {
  if (!o.txState) return false;
  return (await o.txState(tx).catch(() => "pending" as const)) === "pending";
}

/**
 * Settles a payment taken over from an attempt that sent transaction `tx` and died (its
 * authorization still unused, as verification just showed): waits for that transaction
 * while the node holds it, and sends anew only when the node dropped it or it reverted,
 * so a crash never makes the key pay for a second transaction that must fail.
 *
 * A `tx` already included did not transfer (the authorization is unused) while the payment
 * still goes through: it failed for a reason of ours, and its fee is the service's own. The
 * attempt that sent it records that before releasing the payment, unless it died first:
 * recorded here then (once per transaction, see recordServiceFee).
 */
async function settleTakenOver(o: HoldInput, lock: PaymentLock, tx: string): Promise<CheckedSettle> {
  const state = await o.txState!(tx).catch(() => "pending" as const);
  if (state === "pending") {
    const s = await o.confirm!(o.payload, o.req, tx);
    if (s.success) return s;
  } else if (state === "included" && o.minedFee) {
    const fee = await o.minedFee(tx).catch(() => null);
    if (fee !== null) await recordServiceFee({ network: o.req.network, reason: "taken_over_unpaid", fee, transaction: tx, paymentId: lock.id });
  }
  return o.settle(o.payload, o.req);
}

/**
 * Ends a taken-over payment that was never transferred: failed (void), expired, or released
 * (refused now, may be presented again). When the earlier attempt's transaction `tx` was
 * mined and failed (its answer was lost), it cost the key its fee: the payment then ends
 * failed with that fee, as it would have had the answer arrived (the fee counts against
 * the payer's budget, and the authorization is not taken again).
 */
async function endUnpaid(o: HoldInput, lock: PaymentLock, status: "failed" | "expired" | null, reason: string, tx?: string | null): Promise<void> {
  // A transaction already recorded as the service's own fee (it failed for a reason of ours,
  // and the payment was released to be presented again) is not the payer's failure: its fee
  // is neither recorded a second time nor counted against the payer's budget.
  const ours = tx ? await isServiceFee(tx).catch(() => false) : false;
  const fee = tx && !ours && status !== "expired" && o.minedFee ? await o.minedFee(tx).catch(() => null) : null;
  if (fee !== null) countFee(o.req.network, "failed", fee);
  log.info("payment.taken_over_unpaid", { paymentId: lock.id, network: o.req.network, status: status ?? (fee ? "failed" : "released"), reason, ...(fee !== null ? { transaction: tx, fee: fee.toString() } : {}) });
  if (fee !== null && o.payer) forgetPayerFees(o.req.network, o.payer);
  if (status === "failed" || fee !== null) return markFailed(lock, reason, fee);
  if (status === "expired") return markExpired(lock);
  return forgetLock(lock);
}

/**
 * An optimistic payment's row and receipt written while its transaction is broadcast: the
 * transaction's hash is known once it is signed (SendAhead.onSigned), so the write need not
 * wait for the node's answer. `finish` gives the receipt id once the node took the
 * transaction (the hash updated if the send had to sign it again with a new nonce); `undo`
 * takes the record back when it did not, before the failure is handled as usual.
 */
class EarlyRecord {
  private hash: string | null = null;
  private writing: Promise<string | null> | null = null;

  constructor(
    private readonly lock: PaymentLock,
    private readonly write: (hash: string) => Promise<string | null>,
  ) {}

  /** Hooks the record onto `ahead`'s first signed transaction. */
  attach(ahead: SendAhead): void {
    ahead.onSigned = (hash) => {
      if (this.writing) return;
      this.hash = hash;
      this.writing = this.write(hash).catch((err: unknown) => {
        log.error("payment.record_failed", { paymentId: this.lock.id, network: this.lock.network, transaction: hash, message: (err as Error).message });
        return null;
      });
    };
  }

  get started(): boolean {
    return this.writing !== null;
  }

  /** The receipt id (null when the write failed, which is logged: the payer has paid and is served). */
  async finish(tx: string): Promise<string | null> {
    const id = await this.writing;
    if (id && tx !== this.hash) await replaceBroadcastTx(this.lock.id, tx).catch((err: unknown) => log.error("payment.record_failed", { paymentId: this.lock.id, transaction: tx, message: (err as Error).message }));
    return id ?? null;
  }

  /** Never throws: a record that cannot be taken back is logged (the sweep would then find a "broadcast" row whose transaction the node never took). */
  async undo(): Promise<void> {
    const writing = this.writing;
    this.writing = null;
    this.hash = null;
    const id = await writing;
    if (id) await unrecordBroadcast(this.lock, id).catch((err: unknown) => log.error("payment.unrecord_failed", { paymentId: this.lock.id, receiptId: id, message: (err as Error).message }));
  }
}

function grant(
  o: HoldInput,
  lock: PaymentLock,
  settle: () => Promise<SettleResult>,
  /** Optimistic mode: the broadcast prepared during verification (the record is written while it is sent). */
  ahead?: SendAhead | null,
): AuthorizedPayment {
  return {
    kind: "x402",
    paymentId: lock.id,
    payer: o.payer,
    release: () => {
      ahead?.free();
      return releaseLock(lock);
    },
    // Whatever the settlement's end, this process stops renewing the payment's lease: a
    // step it could not write (the database was down) leaves the row to be taken over.
    settle: (receipt: ReceiptFields) => settleHeld(o, lock, settle, ahead, receipt).finally(() => releaseLease(lock.id)),
  };
}

async function settleHeld(
  o: HoldInput,
  lock: PaymentLock,
  settle: () => Promise<SettleResult>,
  ahead: SendAhead | null | undefined,
  receipt: ReceiptFields,
): ReturnType<AuthorizedPayment["settle"]> {
  let s: SettleResult;
  const fields = { product: receipt.product, surface: receipt.surface, amountUsd: receipt.amountUsd, credentialKind: "x402" as const };
  // The receipt's id is chosen now: the answer kept with the payment names it.
  const receiptId = randomUUID();
  const keep = (tx: string, payer: string | null, settlement: SettlementMode) =>
    answerToKeep(lock.id, receipt, receiptId, { success: true, transaction: tx, network: o.req.network, payer }, settlement, o.identifier ?? null);
  const early = new EarlyRecord(lock, (hash) => recordSettlement(lock, hash, o.payer, fields, "broadcast", { receiptId, json: keep(hash, o.payer, "optimistic") }).then((r) => r.receiptId ?? keptReceiptId(r.recordedBefore)));
  if (ahead) early.attach(ahead);
  /** Nothing moved and the payment is fine: the row is dropped (or, taken over, left claimable) and the authorization stays usable. */
  const defer = async (err: NotSentError, tx: string | null = null): Promise<never> => {
    // Transactions of ours mined meanwhile (reverted for a reason of ours, a wallet
    // deployment) cost the key: recorded as the service's own fees (the ledger report's
    // `ours`, /metrics' failed), not the payer's: its payment row is gone with the lock.
    // Recorded under the transaction (the answer's, or the one the error names) and before
    // the lock is released: a payment taken over (its row left claimable with that
    // transaction) then finds the fee is ours and never charges it to the payer (endUnpaid).
    if (err.fee !== undefined && o.fee) {
      failpoint("before_service_fee");
      await recordServiceFee({ network: o.req.network, reason: err.reason, fee: err.fee, transaction: tx ?? err.transaction ?? null, paymentId: lock.id });
    }
    await releaseLock(lock).catch((e: unknown) => log.error("payment.release_failed", { paymentId: lock.id, message: (e as Error).message }));
    log.warn("payment.settle_deferred", { paymentId: lock.id, network: o.req.network, reason: err.reason, message: err.message, ...(err.fee !== undefined ? { fee: err.fee.toString() } : {}) });
    throw deferred(lock.id, err);
  };
  try {
    // Confirmed mode: the row records each transaction before it goes out ("sent"), so
    // whoever takes the payment over after a crash waits for it instead of sending again.
    if (!ahead && o.sentId) {
      const id = await o.sentId().catch(() => null);
      if (id) {
        await markSent(lock, id).catch((err: unknown) => {
          throw new NotSentError(`the payment's record could not be written before sending (${(err as Error).message})`, "ledger_unavailable", err);
        });
      }
    }
    // The record goes with the nonce's take when the transaction could be signed ahead of it (KeySender.send).
    const record = Object.assign((hash: string) => markSent(lock, hash), { inTake: (hash: string, nonce: number) => takeMarkingSent(lock, hash, nonce) });
    s = ahead ? await settle() : await withBeforeSend(record, settle);
  } catch (err) {
    await early.undo();
    if (err instanceof NotSentError) return defer(err);
    const e = err as Error;
    const tx = err instanceof SettlementUnknownError ? err.transaction : null;
    await markUnknown(lock, e.message, tx);
    log.error("payment.settle_unknown", { paymentId: lock.id, network: o.req.network, transaction: tx, message: e.message });
    throw pending(lock.id, err instanceof FacilitatorError || err instanceof SettlementUnknownError ? e.message : "settlement error");
  }
  if (!s.success) {
    await early.undo();
    // A transfer refused because the authorization was already used may have been
    // made by an earlier attempt of this very payment (or by anyone holding it): it is
    // paid when the chain shows that very transfer (outcome checks recipient and
    // amount; the payer spending the nonce elsewhere makes it void).
    const out = await askOutcome(o, s.transaction || lock.reclaimed?.txHash || null);
    if (out?.kind === "transferred") {
      s = { ...s, success: true, transaction: out.transaction ?? s.transaction };
    } else if (out?.kind !== "void" && (s.errorReason === "settlement_pending" || o.mayLand?.(s))) {
      // Sent, or maybe sent, and not known to have failed: the transfer may still land.
      await markUnknown(lock, s.errorReason ?? "settlement outcome unknown", s.transaction || null);
      log.error("payment.settle_unknown", { paymentId: lock.id, network: o.req.network, transaction: s.transaction || null, message: s.errorMessage ?? s.errorReason ?? "" });
      throw pending(lock.id, `the facilitator answered ${s.errorReason ?? "a failure"} for a transaction that may still land`);
    } else if (out === null && lock.reclaimed) {
      // An earlier attempt's transfer may still land and the chain could not be asked.
      await markUnknown(lock, s.errorReason ?? "settlement refused", s.transaction || null);
      throw pending(lock.id, "its outcome could not be read from the chain");
    } else {
      // Refused with the authorization unused (or unreadable): a refusal is the payer's
      // only when the transfer itself no longer goes through. The facilitator's own
      // failures (its key, nonce, gas, RPC: a remote one, or the official scheme in
      // process, answers them as failed settlements) leave the payment usable.
      const pays = out?.kind === "void" || !o.stillPays ? false : await o.stillPays(o.payload, o.req).catch(() => null);
      if (pays !== false) {
        const why = `${s.errorReason ?? "settlement failed"}${s.errorMessage ? `: ${s.errorMessage.split("\n")[0]}` : ""}`;
        const ours = new NotSentError(`the settlement was refused although the transfer still goes through (${why})`, pays === null ? "rpc_unreachable" : "transaction_refused");
        ours.fee = s.fee;
        return defer(ours, s.transaction || null);
      }
      // Also without a transaction in the answer: a wallet deployment mined before a transfer
      // that failed, or one that reverted, cost the key its gas (the settlement's `fee`).
      const fee = await feeOf(o, s.transaction, s, true);
      await markFailed(lock, s.errorReason ?? "settlement failed", fee);
      if (fee && o.payer) forgetPayerFees(o.req.network, o.payer);
      const sent = s.transaction ? ` Transaction ${s.transaction} was sent and reverted; no funds moved.` : " Nothing was charged.";
      throw new ApiError("settlement_failed", `The payment could not be settled: ${o.settleRefusal?.(s) ?? s.errorReason ?? "unknown reason"}.${sent}`, {
        extra: { reason: s.errorReason ?? "settlement_failed", fault: "payer" satisfies SettlementFault },
      });
    }
  }
  failpoint("after_inclusion");
  // The answer is what was kept: the early record's payer, or the settlement's.
  const who = early.started ? o.payer : s.payer || o.payer;
  const settlement: SettlementMode = early.started || s.broadcast ? "optimistic" : "confirmed";
  let recorded: string | null = null;
  const fee = s.broadcast ? null : await feeOf(o, s.transaction, s, false);
  if (early.started) {
    recorded = await early.finish(s.transaction);
    if (recorded && !s.broadcast) await confirmBroadcast(lock.id, { settled: true, txHash: s.transaction, fee }).catch(() => undefined);
  } else {
    try {
      const r = await recordSettlement(lock, s.transaction, who, fields, s.broadcast ? "broadcast" : "settled", { receiptId, json: keep(s.transaction, who, settlement) }, fee);
      // Recorded first by a process that took the payment over meanwhile: its receipt stands.
      recorded = r.receiptId ?? keptReceiptId(r.recordedBefore);
    } catch (err) {
      // The payer has paid: deliver, and leave the evidence in the log. The row keeps its
      // lease's end: the same payment presented again is then taken over, found
      // transferred on chain, and answered again (charged once).
      log.error("payment.record_failed", { paymentId: lock.id, network: s.network, transaction: s.transaction, message: (err as Error).message });
    }
  }
  failpoint("after_record");
  // Optimistic mode: delivered now, the transfer is confirmed after the response.
  if (s.broadcast) confirmLater(lock.id, o.payload, o.req, s.transaction);
  return {
    txHash: s.transaction,
    receiptId: recorded,
    response: { success: true, transaction: s.transaction, network: o.req.network, payer: who },
    settlement,
  };
}
