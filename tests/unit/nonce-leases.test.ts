/**
 * The facilitator key's shared nonces (lib/payments/x402/nonces.ts) and its sender
 * (lib/payments/x402/sender.ts) against a real Hardhat chain and the real database
 * (PostgreSQL when it answers, else the embedded one): under steady load from two
 * "instances" (two allocators with their own cached chain reads, one database) no nonce
 * is ever handed out twice; a nonce whose transaction may have reached the node is reused
 * only once the chain shows it missing; a dead holder's nonce is repaired after its lease
 * expires; a settlement stuck behind a gap gives its nonce back as unused instead of
 * burning further nonces; the fees the sender reads ahead in one batch are the ones viem
 * would have computed.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPublicClient, http, parseGwei, toHex, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { RELEASE_GRACE_MS, SharedNonces, type ChainNonces, type Lease } from "@/lib/payments/x402/nonces";
import { feesFromBatch, KeySender } from "@/lib/payments/x402/sender";
import { NotSentError } from "@/lib/payments/x402/evm-local";
import { lockPayment, markSent, takeMarkingSent, type LockInput } from "@/lib/payments/ledger";
import { feeTotals } from "@/lib/payments/fees";
import { withBeforeSend } from "@/lib/payments/x402/chain-call";
import { localBase, startChain, type Chain } from "../helpers/chain";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const pgUp = await hasPostgres();
const saved = { ...process.env };
let chain: Chain;

beforeAll(async () => {
  await closeDb();
  Object.assign(process.env, { LOG_LEVEL: "silent" }, pgUp ? { DATABASE_URL: `${POSTGRES_URL}?schema=nonces_${randomBytes(5).toString("hex")}` } : { DATA_DIR: "memory" });
  if (!pgUp) delete process.env.DATABASE_URL;
  resetEnvForTests();
  chain = await startChain();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  await closeDb();
  process.env = saved;
  resetEnvForTests();
});

const readerOf = (c: Chain) => createPublicClient({ chain: localBase(c.rpcUrl), transport: http(c.rpcUrl, { retryCount: 0 }) });
const chainNonces = (account: HDAccount) => async (): Promise<ChainNonces> => {
  const r = readerOf(chain);
  const [pending, latest] = await Promise.all([r.getTransactionCount({ address: account.address, blockTag: "pending" }), r.getTransactionCount({ address: account.address, blockTag: "latest" })]);
  return { pending, latest };
};
/** The sender of `account`'s key on the chain, automining (a node that does not queue: `nonce too high` is refused). */
async function automineSender(account: HDAccount): Promise<KeySender> {
  await chain.setIntervalMining(0);
  const key = `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}` as Hex;
  return new KeySender(readerOf(chain) as never, { rpcUrl: chain.rpcUrl, chainId: 8453, timeoutMs: 2000, privateKey: Buffer.from(key.slice(2), "hex"), address: account.address });
}
const allocator = (account: HDAccount, timing = { sendWindowMs: 1000, sendTimeoutMs: 1000 }) => new SharedNonces(`8453:${account.address.toLowerCase()}`, chainNonces(account), timing);

/** Sends a zero-value transaction to itself with `nonce`; `tag` makes each one distinct. Resolves with the node's error, or null when accepted. */
async function sendWith(account: HDAccount, nonce: number, tag: number): Promise<string | null> {
  const raw = await account.signTransaction({
    chainId: 8453,
    type: "eip1559",
    to: account.address,
    value: 0n,
    data: toHex(tag, { size: 8 }),
    gas: 30_000n,
    nonce,
    maxFeePerGas: parseGwei("5"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const res = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] }) });
  const body = (await res.json()) as { error?: { message: string } };
  return body.error?.message ?? null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const minedNonce = (account: HDAccount) => readerOf(chain).getTransactionCount({ address: account.address, blockTag: "latest" });
async function untilMined(account: HDAccount, nonce: number, ms = 20_000): Promise<number> {
  const end = Date.now() + ms;
  let n = await minedNonce(account);
  while (n < nonce && Date.now() < end) {
    await sleep(200);
    n = await minedNonce(account);
  }
  return n;
}

describe("shared nonces on a chain mining every 200 ms", () => {
  it("steady load from two instances for 8 s: every nonce handed out once, every transaction accepted and mined", async () => {
    const account = chain.accounts[4]!;
    await chain.setIntervalMining(200);
    try {
      // Two instances: one database, each its own (cached) reads of the chain.
      const instances = [allocator(account), allocator(account)];
      const taken: number[] = [];
      const refusals: string[] = [];
      const until = Date.now() + 8000;
      let tag = 0;
      await Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          while (Date.now() < until) {
            const lease = await instances[w % 2]!.take();
            taken.push(lease.nonce);
            // Signing, the wire, a busy event loop: a holder sends a moment after taking.
            await sleep(Math.random() * 250);
            const refused = await sendWith(account, lease.nonce, ++tag);
            if (refused) refusals.push(`nonce ${lease.nonce}: ${refused}`);
          }
        }),
      );
      expect(taken.length).toBeGreaterThan(30);
      const twice = taken.filter((n, i) => taken.indexOf(n) !== i);
      expect(twice, `nonces handed out twice: ${twice.join(", ")}`).toEqual([]);
      expect(refusals).toEqual([]);
      const start = Math.min(...taken);
      expect(await untilMined(account, start + taken.length)).toBe(start + taken.length);
    } finally {
      await chain.setIntervalMining(0);
    }
  }, 60_000);

  it("a nonce released without an answer is not handed out while its transaction may still reach the node, and is once the chain shows it missing", async () => {
    const account = chain.accounts[5]!;
    const nonces = allocator(account);
    await chain.setIntervalMining(0);
    await chain.rpc("evm_setAutomine", [false]);
    try {
      const first = await nonces.take();
      // The holder's request timed out; the node, slow, takes the transaction a moment later.
      await nonces.end(first, "released");
      const late = sleep(300).then(() => sendWith(account, first.nonce, 1));
      const second = await nonces.take();
      expect(await late).toBeNull();
      expect(second.nonce).toBe(first.nonce + 1);
      // This one never reached the node: once released, the chain shows it missing.
      await nonces.end(second, "released");
      const third = await nonces.take();
      expect(third.nonce).toBe(second.nonce);
      expect(await sendWith(account, third.nonce, 2)).toBeNull();
      await chain.rpc("evm_mine", []);
      expect(await minedNonce(account)).toBe(first.nonce + 2);
    } finally {
      await chain.setIntervalMining(0);
    }
  }, 30_000);

  it("a nonce released without an answer, nothing of the key waiting above it: no filler is claimed for it (it would be gas for nothing); the next take reuses it", async () => {
    const account = chain.accounts[3]!;
    const nonces = allocator(account);
    await chain.setIntervalMining(0);
    const lost = await nonces.take(); // its send never reached the node
    await nonces.end(lost, "released");
    await sleep(RELEASE_GRACE_MS + 200);
    // The sweep's repair: nothing waits above the gap, so nothing is sent to fill it.
    expect(await nonces.claimGap()).toBeNull();
    const retry = await nonces.take();
    expect(retry.nonce).toBe(lost.nonce);
    expect(await sendWith(account, retry.nonce, 1)).toBeNull();
    expect(await minedNonce(account)).toBe(lost.nonce + 1);
  }, 30_000);

  it("a holder that died before sending: transactions above wait until its lease expires, then the gap is filled and everything is mined", async () => {
    const account = chain.accounts[6]!;
    const timing = { sendWindowMs: 500, sendTimeoutMs: 500 };
    const nonces = allocator(account, timing);
    await chain.setIntervalMining(200);
    try {
      const dead = await nonces.take(); // taken, never sent, never ended
      const next = await nonces.take();
      expect(await sendWith(account, next.nonce, 1)).toBeNull(); // queued behind the gap
      expect(await nonces.claimGap()).toBeNull(); // its holder may still send
      await sleep(500);
      expect(await minedNonce(account)).toBe(dead.nonce);
      await sleep(nonces.expirySeconds * 1000);
      const gap = await nonces.claimGap();
      expect(gap?.nonce).toBe(dead.nonce);
      expect(await sendWith(account, gap!.nonce, 2)).toBeNull();
      expect(await untilMined(account, next.nonce + 1)).toBe(next.nonce + 1);
      // A fresh take continues after them; no further gap.
      expect((await nonces.take()).nonce).toBe(next.nonce + 1);
    } finally {
      await chain.setIntervalMining(0);
    }
  }, 30_000);
});

describe("the facilitator key's sender on a node that does not queue (automine)", () => {
  it("behind a nonce that never arrives: 503-worthy NotSentError (nonce_gap) with its nonce recorded unused, no further nonce burnt; both are used once the dead lease expires", async () => {
    const account = chain.accounts[7]!;
    await chain.setIntervalMining(0);
    const reads = readerOf(chain);
    const key = `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}` as Hex;
    const sender = new KeySender(reads as never, { rpcUrl: chain.rpcUrl, chainId: 8453, timeoutMs: 800, privateKey: Buffer.from(key.slice(2), "hex"), address: account.address });
    const h = await getDbHandle();
    const dead = await sender.nonces.take(); // a holder that died before sending
    const tx = { to: account.address, data: "0x" as Hex, value: 0n, gas: 30_000n };
    const err = await sender.send(tx).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NotSentError);
    expect((err as NotSentError).reason).toBe("nonce_gap");
    const rows = await h.query<{ nonce: string; state: string }>(`SELECT nonce::text, state FROM evm_nonce_leases WHERE address = $1 ORDER BY nonce`, [sender.nonces.key]);
    expect(rows).toEqual([
      { nonce: String(dead.nonce), state: "held" },
      { nonce: String(dead.nonce + 1), state: "free" },
    ]);
    const [counter] = await h.query<{ next: string }>(`SELECT next_nonce::text AS next FROM evm_sender_nonces WHERE address = $1`, [sender.nonces.key]);
    expect(Number(counter!.next)).toBe(dead.nonce + 2);

    await sleep(sender.nonces.expirySeconds * 1000);
    const a = await sender.send(tx);
    const b = await sender.send(tx);
    expect([a.nonce, b.nonce]).toEqual([dead.nonce, dead.nonce + 1]);
    expect(await minedNonce(account)).toBe(dead.nonce + 2);
  }, 30_000);
});

describe("a gap filler's fee", () => {
  it("is noted under the filler's hash before it goes out (no fee yet, counted nowhere; no filler without its note), and priced once mined", async () => {
    const account = chain.accounts[1]!;
    // Queued transactions wait for the block this test mines.
    await chain.setIntervalMining(60_000);
    try {
      const key = `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}` as Hex;
      const sender = new KeySender(readerOf(chain) as never, { rpcUrl: chain.rpcUrl, chainId: 8453, timeoutMs: 800, privateKey: Buffer.from(key.slice(2), "hex"), address: account.address });
      const h = await getDbHandle();
      const dead = await sender.nonces.take(); // a holder that died before sending
      const next = await sender.nonces.take();
      expect(await sendWith(account, next.nonce, 1)).toBeNull(); // queued behind the gap
      await sleep(sender.nonces.expirySeconds * 1000);
      // The note cannot be written (its table gone): nothing is sent, the gap's nonce is
      // handed back unused, and the next repair fills it.
      await h.query(`ALTER TABLE service_fees RENAME TO service_fees_away`, []);
      try {
        await sender.repair();
      } finally {
        await h.query(`ALTER TABLE service_fees_away RENAME TO service_fees`, []);
      }
      const [left] = await h.query<{ state: string }>(`SELECT state FROM evm_nonce_leases WHERE address = $1 AND nonce = $2`, [sender.nonces.key, dead.nonce]);
      expect(left?.state).toBe("free");
      expect(await readerOf(chain).getTransactionCount({ address: account.address, blockTag: "pending" })).toBe(dead.nonce);
      await sleep(1100); // one repair a second per process
      await sender.repair();
      const notes = await h.query<{ tx: string; fee: string | null }>(`SELECT "transaction" AS tx, fee_native::text AS fee FROM service_fees WHERE reason = 'nonce_gap_filler'`, []);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.fee).toBeNull();
      // The note is the filler the node holds, not mined yet: its sender dying now leaves
      // the note to the recovery pass (tests/integration/reconcile.test.ts).
      const pending = await readerOf(chain).getTransaction({ hash: notes[0]!.tx as Hex });
      expect({ from: pending.from.toLowerCase(), to: pending.to?.toLowerCase(), value: pending.value, nonce: pending.nonce, block: pending.blockNumber }).toEqual({ from: account.address.toLowerCase(), to: account.address.toLowerCase(), value: 0n, nonce: dead.nonce, block: null });
      expect((await feeTotals()).find((t) => t.network === "eip155:8453")?.ours ?? { fee: "0", transactions: 0 }).toEqual({ fee: "0", transactions: 0 });
      await chain.rpc("evm_mine", []);
      const receipt = await readerOf(chain).getTransactionReceipt({ hash: notes[0]!.tx as Hex });
      let fee: string | null = null;
      for (let i = 0; i < 100 && fee === null; i++) {
        await sleep(200);
        fee = (await h.query<{ fee: string | null }>(`SELECT fee_native::text AS fee FROM service_fees WHERE "transaction" = $1`, [notes[0]!.tx]))[0]!.fee;
      }
      expect(fee).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
      expect((await feeTotals()).find((t) => t.network === "eip155:8453")?.ours).toEqual({ fee: fee, transactions: 1 });
      expect(await minedNonce(account)).toBe(next.nonce + 1);
    } finally {
      await chain.setIntervalMining(0);
    }
  }, 60_000);
});

describe("an optimistic payment's nonce: taken in its lock's statement, its transaction signed on a guess", () => {
  // A payer of its own for each payment: with another payment of the same payer in flight
  // the statement takes no nonce (its funds are checked first; see the last case).
  const lockInput = (amountAtomic: bigint, payer = `0x${randomBytes(20).toString("hex")}`): LockInput => ({
    scheme: "exact",
    network: "eip155:8453",
    reference: `0x${randomBytes(32).toString("hex")}`,
    payer,
    amountAtomic,
    asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
    payTo: chain.accounts[2]!.address,
    product: "fng",
    surface: "http",
  });
  const ask = { capAtomic: 1_000_000n, settlementPayload: "{}" };

  it("the lock takes the nonce only when it reserved an optimistic share; a take that needs the chain's fresh word takes on its own; guesses follow the takes", async () => {
    const account = chain.accounts[8]!;
    const nonces = allocator(account);
    expect(nonces.takeInLock()).toBeNull(); // nothing read from the chain yet: the take must read first
    expect(nonces.guessNext()).toBeNull();
    const first = await nonces.take();
    expect(await sendWith(account, first.nonce, 1)).toBeNull();

    // Reserved: the nonce after it, from the lock's own statement.
    expect(nonces.guessNext()).toBe(first.nonce + 1);
    let t = nonces.takeInLock()!;
    const input = lockInput(10_000n);
    const lock = await lockPayment(input, ask, t.take);
    expect(lock.optimistic).toEqual({ reserved: true });
    const second = (await t.lease)!;
    nonces.guessDone();
    expect(second.nonce).toBe(first.nonce + 1);
    expect(nonces.guessNext()).toBe(first.nonce + 2);
    nonces.guessDone();

    // No room under the cap (confirmed mode): no nonce taken.
    t = nonces.takeInLock()!;
    expect((await lockPayment(lockInput(2_000_000n), ask, t.take)).optimistic).toEqual({ reserved: false, failed: null });
    expect(await t.lease).toBeNull();
    // The same payment again while its first lock's holder (this process) is alive: told
    // it is in progress, no nonce taken.
    t = nonces.takeInLock()!;
    await expect(lockPayment(input, ask, t.take)).rejects.toMatchObject({ code: "settlement_pending", extra: { reason: "in_progress" } });
    expect(await t.lease).toBeNull();
    expect(nonces.guessNext()).toBe(first.nonce + 2); // neither moved the guess
    nonces.guessDone();

    // The second nonce's send never happened: handed back as free. Reusing it needs the
    // chain's fresh word, which the lock's statement does not have: the take reads and
    // takes on its own, and gets that very nonce.
    await nonces.end(second, "free");
    t = nonces.takeInLock()!;
    expect((await lockPayment(lockInput(10_000n), ask, t.take)).optimistic).toEqual({ reserved: true });
    expect((await t.lease)!.nonce).toBe(second.nonce);

    // A payer with another payment in flight: reserved, but no nonce taken in the statement
    // (a refusal for lack of funds would otherwise hand back a nonce others have passed).
    const busy = `0x${randomBytes(20).toString("hex")}`;
    t = nonces.takeInLock()!;
    await lockPayment(lockInput(10_000n, busy), ask, t.take);
    const held = (await t.lease)!;
    t = nonces.takeInLock()!;
    const again = await lockPayment(lockInput(10_000n, busy), ask, t.take);
    expect(again.optimistic).toEqual({ reserved: true });
    expect(again.payerInFlight).toBe(10_000n);
    expect(await t.lease).toBeNull();
    // Its balance, read during verification (hold.ts, for a payer seen busy), short of what
    // is in flight plus this payment (20 000 + 10 000): still no nonce in the statement.
    t = nonces.takeInLock()!;
    const short = await lockPayment(lockInput(10_000n, busy), ask, t.take, { value: Promise.resolve(29_999n), sentAt: Date.now() });
    expect(short.payerInFlight).toBe(20_000n);
    expect(await t.lease).toBeNull();
    // A chain that did not answer (null): none either.
    t = nonces.takeInLock()!;
    await lockPayment(lockInput(10_000n, busy), ask, t.take, { value: Promise.resolve(null), sentAt: Date.now() });
    expect(await t.lease).toBeNull();
    // A balance that covers it all (40 000 in flight + 10 000): the statement takes the
    // broadcast's nonce, the next one, as for a payer with nothing in flight.
    t = nonces.takeInLock()!;
    const sentAt = Date.now();
    const covered = await lockPayment(lockInput(10_000n, busy), ask, t.take, { value: Promise.resolve(50_000n), sentAt });
    expect(covered.optimistic).toEqual({ reserved: true });
    expect(covered.payerInFlight).toBe(40_000n);
    const taken = (await t.lease)!;
    expect(taken.nonce).toBe(held.nonce + 1);
    await nonces.end(taken, "free");
    // One of those payments settles after the balance was read (the balance still holds its
    // amount) and before the next lock: it no longer counts in flight, so it must count as
    // settled since the read, or 50 000 would seem to cover 40 000 + 10 000 when the payer
    // holds only 40 000.
    const h = await getDbHandle();
    await h.query(`UPDATE payments SET status = 'settled', updated_at = now() WHERE id = $1`, [covered.id]);
    t = nonces.takeInLock()!;
    const raced = await lockPayment(lockInput(10_000n, busy), ask, t.take, { value: Promise.resolve(50_000n), sentAt });
    expect(raced.payerInFlight).toBe(50_000n); // 40 000 in flight + the 10 000 settled since the read
    expect(await t.lease).toBeNull();
    // A balance read sent well after that settlement holds it already: it no longer counts.
    await h.query(`UPDATE payments SET updated_at = now() - interval '5 seconds' WHERE id = $1`, [covered.id]);
    t = nonces.takeInLock()!;
    const fresh = await lockPayment(lockInput(10_000n, busy), ask, t.take, { value: Promise.resolve(60_000n), sentAt: Date.now() });
    expect(fresh.payerInFlight).toBe(50_000n); // 50 000 in flight now (the raced lock's row included)
    const next = (await t.lease)!;
    expect(next).not.toBeNull();
    await nonces.end(next, "free");
    await nonces.end(held, "free");
  }, 30_000);

  it("a transaction prepared ahead is sent with the nonce its take gave, whether the guess it was signed on was right or another sender took that nonce meanwhile", async () => {
    const account = chain.accounts[9]!;
    const sender = await automineSender(account);
    const tx = { to: account.address, data: "0x" as Hex, value: 0n, gas: 30_000n };
    const sent = async () => {
      const ahead = sender.sendAhead(async () => tx);
      const { hash, nonce } = await sender.send(tx, undefined, true, ahead);
      const onChain = await chain.publicClient.getTransaction({ hash });
      return { nonce, onChainNonce: onChain.nonce };
    };
    const warm = await sent(); // the first one reads the chain (nothing to guess with before)
    expect(warm.onChainNonce).toBe(warm.nonce);
    const right = await sent(); // guessed right
    expect(right).toEqual({ nonce: warm.nonce + 1, onChainNonce: warm.nonce + 1 });
    // Another instance takes (and uses) the nonce this process will guess.
    const other = await allocator(account).take();
    expect(other.nonce).toBe(right.nonce + 1);
    expect(await sendWith(account, other.nonce, 3)).toBeNull();
    const wrong = await sent();
    expect(wrong).toEqual({ nonce: other.nonce + 1, onChainNonce: other.nonce + 1 });
    expect(await minedNonce(account)).toBe(other.nonce + 2);
  }, 30_000);

  it("a transaction prepared ahead is signed once, at the first of its take and what the call waits for besides: with the take's nonce, or with the guess while the take is still out", async () => {
    const account = chain.accounts[9]!;
    const sender = await automineSender(account);
    const signs = vi.spyOn(sender as unknown as { sign: (...a: unknown[]) => unknown }, "sign");
    const tx = { to: account.address, data: "0x" as Hex, value: 0n, gas: 30_000n };
    const later = <T>() => {
      let resolve!: (v: T) => void;
      return { promise: new Promise<T>((r) => (resolve = r)), resolve };
    };
    const settle = async (ahead: ReturnType<KeySender["sendAhead"]>) => {
      const { hash, nonce } = await sender.send(tx, undefined, true, ahead);
      expect((await chain.publicClient.getTransaction({ hash })).nonce).toBe(nonce);
      return nonce;
    };
    const first = await settle(sender.sendAhead(async () => tx)); // reads the chain: something to guess with
    await new Promise((r) => setTimeout(r, 20));

    // The take answers first: signed at once on its nonce, without waiting for the rest;
    // no guess is signed.
    signs.mockClear();
    let leasing = later<Lease | null>();
    let waiting = later<void>();
    let ahead = sender.sendAhead(async () => tx, leasing.promise, waiting.promise);
    leasing.resolve(await sender.nonces.take(false, true));
    await vi.waitFor(() => expect(signs).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 20));
    waiting.resolve();
    expect(await settle(ahead)).toBe(first + 1);
    expect(signs).toHaveBeenCalledTimes(1);

    // The call's other wait ends first: signed then, on the guess, before the take answers;
    // the take gives the guessed nonce, so nothing is signed again.
    signs.mockClear();
    leasing = later<Lease | null>();
    waiting = later<void>();
    ahead = sender.sendAhead(async () => tx, leasing.promise, waiting.promise);
    await new Promise((r) => setTimeout(r, 20));
    expect(signs).toHaveBeenCalledTimes(0); // neither has answered yet
    waiting.resolve();
    await vi.waitFor(() => expect(signs).toHaveBeenCalledTimes(1));
    leasing.resolve(await sender.nonces.take(false, true));
    expect(await settle(ahead)).toBe(first + 2);
    expect(signs).toHaveBeenCalledTimes(1);
  }, 30_000);
});

describe("a confirmed settlement's transaction: recorded by its nonce take's own statement", () => {
  it("signed on the guessed nonce and recorded in the take when the take gives it; signed again and recorded on its own when another sender took that nonce; never the wrong hash", async () => {
    const account = chain.accounts[7]!;
    const sender = await automineSender(account);
    const tx = { to: account.address, data: "0x" as Hex, value: 0n, gas: 30_000n };
    const h = await getDbHandle();
    const rowOf = async (id: string) => (await h.query<{ status: string; tx_hash: string | null }>(`SELECT status, tx_hash FROM payments WHERE id = $1`, [id]))[0]!;
    /** A confirmed settlement's send: the payment locked, then sent with the ledger's hooks as hold.ts passes them. */
    const settle = async () => {
      const lock = await lockPayment({
        scheme: "exact",
        network: "eip155:8453",
        reference: `0x${randomBytes(32).toString("hex")}`,
        payer: `0x${randomBytes(20).toString("hex")}`,
        amountAtomic: 10_000n,
        asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        payTo: chain.accounts[2]!.address,
        product: "fng",
        surface: "http",
      });
      const seenBySend: Array<{ status: string; tx_hash: string | null }> = [];
      let alone = 0;
      const hook = Object.assign(
        async (hash: string) => {
          alone++;
          await markSent(lock, hash);
        },
        {
          inTake: (hash: string, nonce: number) => {
            const take = takeMarkingSent(lock, hash, nonce);
            return async (args: Parameters<typeof take>[0]) => {
              const rows = await take(args);
              seenBySend.push(await rowOf(lock.id));
              return rows;
            };
          },
        },
      );
      const { hash, nonce } = await withBeforeSend(hook, () => sender.send(tx));
      expect((await chain.publicClient.getTransaction({ hash })).nonce).toBe(nonce);
      return { hash, nonce, alone, afterTake: seenBySend[0], row: await rowOf(lock.id) };
    };

    const first = await settle(); // nothing to guess with yet: taken and recorded as before
    expect(first.alone).toBe(1);
    expect(first.row).toEqual({ status: "sent", tx_hash: first.hash });

    const right = await settle(); // guessed right: recorded by the take, no statement of its own
    expect(right.nonce).toBe(first.nonce + 1);
    expect(right.alone).toBe(0);
    expect(right.afterTake).toEqual({ status: "sent", tx_hash: right.hash });
    expect(right.row).toEqual({ status: "sent", tx_hash: right.hash });

    // Another instance takes (and uses) the nonce this process will guess: the take gives
    // the next one, records nothing (the hash signed on the guess is never written), and the
    // transaction signed on the nonce it got is recorded on its own before it goes out.
    const other = await allocator(account).take();
    expect(other.nonce).toBe(right.nonce + 1);
    expect(await sendWith(account, other.nonce, 7)).toBeNull();
    const signs = vi.spyOn(sender as unknown as { sign: (...a: unknown[]) => unknown }, "sign");
    const wrong = await settle();
    expect(signs).toHaveBeenCalledTimes(2); // on the guess, then on the nonce the take gave
    signs.mockRestore();
    expect(wrong.nonce).toBe(other.nonce + 1);
    expect(wrong.afterTake).toEqual({ status: "pending", tx_hash: null });
    expect(wrong.alone).toBe(1);
    expect(wrong.row).toEqual({ status: "sent", tx_hash: wrong.hash });
    expect(await minedNonce(account)).toBe(other.nonce + 2);
  }, 30_000);
});

describe("the sender's read-ahead of fees", () => {
  const rpc = async (calls: Array<[string, unknown[]]>) =>
    (await (
      await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }))) })
    ).json()) as Array<{ id: number; result?: unknown; error?: { code: number; message: string } }>;

  it("computes from one batch exactly what viem's estimateFeesPerGas answers (base fee × 1.2 + priority fee), and its fallbacks", async () => {
    await chain.setIntervalMining(0);
    await chain.rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(parseGwei("0.7"))]);
    await chain.rpc("evm_mine", []);
    const [block, priority, price] = await rpc([
      ["eth_getBlockByNumber", ["latest", false]],
      ["eth_maxPriorityFeePerGas", []],
      ["eth_gasPrice", []],
    ]);
    const viem = await readerOf(chain).estimateFeesPerGas();
    expect(feesFromBatch(block!, priority!, price!)).toEqual({ maxFeePerGas: viem.maxFeePerGas, maxPriorityFeePerGas: viem.maxPriorityFeePerGas });
    // A node without eth_maxPriorityFeePerGas: its gas price minus the base fee (viem's fallback), never below 0.
    const base = BigInt((block!.result as { baseFeePerGas: string }).baseFeePerGas);
    const none = { id: 1, error: { code: -32601, message: "the method eth_maxPriorityFeePerGas does not exist" } };
    expect(feesFromBatch(block!, none, { id: 2, result: toHex(base + 5n) })).toEqual({ maxFeePerGas: (base * 12n) / 10n + 5n, maxPriorityFeePerGas: 5n });
    expect(feesFromBatch(block!, none, { id: 2, result: toHex(base - 5n) })).toEqual({ maxFeePerGas: (base * 12n) / 10n, maxPriorityFeePerGas: 0n });
    // A chain without a base fee: the plain gas price.
    expect(feesFromBatch({ id: 0, result: { number: "0x1" } }, none, { id: 2, result: "0x3b9aca00" })).toEqual({ gasPrice: 1_000_000_000n });
    expect(() => feesFromBatch({ id: 0, error: { code: -32000, message: "x" } }, priority!, price!)).toThrow();
  });
});
