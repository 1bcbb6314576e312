/**
 * Settlement with several instances on real block times: two service processes on one
 * PostgreSQL schema, one Redis and one facilitator key, a Hardhat chain mining a block
 * every 2 s (interval mining, so transactions wait in the mempool as on Base), each
 * instance reaching it through its own JSON-RPC proxy that can go down, hold a send on
 * the wire or count the node's nonce refusals (one instance over HTTP, the other over the
 * node's WebSocket). The key's nonces come from the shared
 * store: no payment is refused because the other instance (or another sender) used a
 * nonce, every transaction of the key (smart-wallet deployments too) takes its nonce
 * there, a failure on the service's side leaves the payment usable, an optimistic payment
 * whose transaction is dropped or whose instance dies is still settled, and an instance
 * killed while holding a nonce does not stop the other from settling.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, parseAbi, parseGwei, type Address, type Hex } from "viem";
import { randomBytes as randomHex } from "node:crypto";
import pg from "pg";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";
import { BASE_USDC, localBase, startChain, WALLET_FACTORY, type Chain } from "../helpers/chain";
import { decodeB64Json, requirementFrom, signAuthorization, signWalletAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";
import { rpcProxy } from "../helpers/rpc-proxy";
import { expectSameAnswer, presented } from "../helpers/answers";

const up = (await hasPostgres()) && (await hasRedis());
if (!up && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const PRICE = 10_000n; // /v1/fng, $0.01
/** The block time the issue measured with (Base's). */
const BLOCK_MS = 2000;
const schema = `settle_scale_${randomBytes(5).toString("hex")}`;
const ADMIN_TOKEN = randomBytes(16).toString("hex");

type FeeEntry = { failed: string; failed_transactions: number; ours: { fee: string; transactions: number } };
/** The ledger report's fees on the local chain's network (undefined while none was paid). */
async function ownFees(svc: Service, network: string): Promise<FeeEntry | undefined> {
  const res = await fetch(`${svc.url}/v1/bundles/debug`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  const report = (await res.json()) as { fees: Record<string, FeeEntry> };
  return report.fees[network];
}

describe.skipIf(!up)("settlement across two instances on real block times", () => {
  let sim: Simulator;
  let chain: Chain;
  let proxyA: Awaited<ReturnType<typeof rpcProxy>>;
  let proxyB: Awaited<ReturnType<typeof rpcProxy>>;
  let a: Service;
  let b: Service;
  let req: Requirement;
  const payer = () => chain.accounts[1]!;
  const payment = async () => v2Header(req, await signAuthorization(payer(), { to: req.payTo as Address, value: BigInt(req.amount) }));
  const paid = (svc: Service, header: string) => fetch(`${svc.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": header } });
  const txOf = (res: Response) => decodeB64Json<{ success: boolean; transaction: Hex }>(res.headers.get("payment-response")).transaction;

  beforeAll(async () => {
    sim = await startSimulator();
    chain = await startChain();
    await chain.mintUsdc(payer().address, 100_000_000n);
    await chain.mintUsdc(chain.accounts[3]!.address, 1_000_000n);
    await chain.mintUsdc(chain.accounts[6]!.address, 1_000_000n);
    await chain.mintUsdc(chain.accounts[7]!.address, 1_000_000n);
    await chain.setIntervalMining(BLOCK_MS);
    [proxyA, proxyB] = await Promise.all([rpcProxy(chain.rpcUrl), rpcProxy(chain.rpcUrl)]);
    const env = {
      ...sim.env,
      DATABASE_URL: `${POSTGRES_URL}?schema=${schema}`,
      // Calls up to $0.005 (e.g. /v1/sentiment) settle optimistically; /v1/fng ($0.01) stays confirmed.
      X402_OPTIMISTIC_MAX_USD: "0.005",
      // Two micro-calls in flight per payer.
      X402_OPTIMISTIC_PAYER_CAP_USD: "0.01",
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
      PAY_TO_ADDRESS: chain.accounts[2]!.address,
      FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
      // Long enough for a settlement queued behind a dead instance's nonce to wait for its repair.
      PAYMENT_TIMEOUT_MS: "25000",
      X402_EIP6492_FACTORIES: WALLET_FACTORY,
      // The ledger report (GET /v1/bundles/debug), read for the fees the key paid.
      ADMIN_TOKEN,
    };
    // Startup is slow on a loaded machine; the two start together.
    [a, b] = await Promise.all([
      startService({ env: { ...env, SETTLEMENT_RPC_URL: proxyA.url }, timeoutMs: 240_000 }),
      // B reaches the node over WebSocket (the same proxy and faults), A over HTTP.
      startService({ env: { ...env, SETTLEMENT_RPC_URL: proxyB.wsUrl }, timeoutMs: 240_000 }),
    ]);
    req = requirementFrom(await fetch(`${a.url}/v1/fng`)).accepts[0]!;
  }, 300_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await proxyA?.close();
    await proxyB?.close();
    await chain?.stop();
    await sim?.close();
  });

  it("40 concurrent payments split across both instances: 40 served, 40 transfers on chain", async () => {
    const before = await chain.usdcBalance(payer().address);
    const headers = await Promise.all(Array.from({ length: 40 }, () => payment()));
    const answers = await Promise.all(headers.map((h, i) => paid(i % 2 ? a : b, h)));
    const bodies = await Promise.all(answers.map((r) => r.clone().text()));
    expect(answers.map((r) => r.status), bodies.filter((_, i) => answers[i]!.status !== 200).join("\n")).toEqual(Array(40).fill(200));
    const txs = new Set(answers.map(txOf));
    expect(txs.size).toBe(40);
    for (const hash of txs) expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe("success");
    expect(await chain.usdcBalance(payer().address)).toBe(before - 40n * PRICE);
  });

  it("12 sequential payments alternating between the instances: 12 served", async () => {
    for (let i = 0; i < 12; i++) {
      const res = await paid(i % 2 ? a : b, await payment());
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });

  it("another sender takes the exact nonce a settlement was given, between two settlements: the node refuses ours, the service takes a new nonce, nothing is refused", async () => {
    const key = chain.accounts[0]!;
    const foreign = createWalletClient({ account: key, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) });
    expect((await paid(a, await payment())).status).toBe(200);
    const conflicts = proxyB.state.nonceRefusals;
    const held = proxyB.hold();
    const next = paid(b, await payment());
    const nonce = await held;
    // Another process sends with the key on exactly that nonce, with a fee ours does not outbid.
    const hash = await foreign.sendTransaction({ to: key.address, value: 0n, nonce, maxFeePerGas: parseGwei("100"), maxPriorityFeePerGas: parseGwei("50") });
    proxyB.release();
    const second = await next;
    expect(second.status, await second.clone().text()).toBe(200);
    const third = await paid(a, await payment());
    expect(third.status, await third.clone().text()).toBe(200);
    expect(proxyB.state.nonceRefusals).toBeGreaterThan(conflicts); // the conflict did happen
    const foreignTx = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(foreignTx.status).toBe("success");
    expect((await chain.publicClient.getTransaction({ hash })).nonce).toBe(nonce);
    expect(b.logs()).toMatch(/"event":"settlement.nonce_conflict"/);
  });

  it("a smart-wallet payer not deployed yet (ERC-6492): the deployment takes its nonce from the shared counter, not from the node, while the other instance holds one on the wire", async () => {
    const owner = chain.accounts[8]!;
    const salt = `0x${randomHex(32).toString("hex")}` as Hex;
    const wallet = await chain.walletAddress(owner.address, salt);
    await chain.mintUsdc(wallet, 1_000_000n);
    expect(await chain.publicClient.getCode({ address: wallet })).toBeUndefined();
    const counterfactual = v2Header(req, await signWalletAuthorization(owner, wallet, { to: req.payTo as Address, value: BigInt(req.amount) }, { salt }));
    const conflicts = proxyA.state.nonceRefusals + proxyB.state.nonceRefusals;

    // B has taken a nonce and its transaction is still on its way to the node.
    const held = proxyB.hold();
    const onB = paid(b, await payment());
    const heldNonce = await held;
    const sentByA = proxyA.state.sentNonces.length;
    const onA = paid(a, counterfactual);
    for (let i = 0; i < 150 && proxyA.state.sentNonces.length === sentByA; i++) await new Promise((r) => setTimeout(r, 100));
    const deployNonce = proxyA.state.sentNonces[sentByA];
    proxyB.release();
    const [ra, rb] = await Promise.all([onA, onB]);
    expect(ra.status, await ra.clone().text()).toBe(200);
    expect(rb.status, await rb.clone().text()).toBe(200);
    expect(deployNonce).toBeDefined();
    expect(deployNonce).not.toBe(heldNonce);
    expect(proxyA.state.nonceRefusals + proxyB.state.nonceRefusals).toBe(conflicts);
    expect(await chain.publicClient.getCode({ address: wallet })).toMatch(/^0x[0-9a-f]{10,}/);
    expect(await chain.usdcBalance(wallet)).toBe(1_000_000n - PRICE);
  });

  for (const side of ["HTTP", "WebSocket"] as const) {
    it(`the RPC node goes down between verification and settlement (${side}): 503 settlement_pending, then the same payment is served and settled once`, async () => {
      // A reaches the node over HTTP, B over WebSocket; the other instance serves the retry.
      const [svc, proxy, other] = side === "HTTP" ? [a, proxyA, b] : [b, proxyB, a];
      const header = await payment();
      const before = await chain.usdcBalance(payer().address);
      proxy.state.fault = "down-at-settle";
      let first: Response;
      try {
        first = await paid(svc, header);
      } finally {
        proxy.state.down = false;
        proxy.state.fault = "none";
      }
      expect(first.status).toBe(503);
      expect(first.headers.get("retry-after")).toBe("5");
      const err = (await first.json()).error;
      expect(err.code).toBe("settlement_pending");
      expect(err.fault).toMatch(/^(service|unknown)$/);
      expect(typeof err.reason).toBe("string");
      expect(await chain.usdcBalance(payer().address)).toBe(before);

      const again = await paid(other, header);
      expect(again.status, await again.clone().text()).toBe(200);
      expect((await chain.publicClient.getTransactionReceipt({ hash: txOf(again) })).status).toBe("success");
      expect(await chain.usdcBalance(payer().address)).toBe(before - PRICE);
      // On the first instance too: the answer it got, as it was, charged once.
      expectSameAnswer(await presented(again), await presented(await paid(svc, header)));
      expect(await chain.usdcBalance(payer().address)).toBe(before - PRICE);
    });
  }

  it("the facilitator key cannot pay gas (our side): 503 settlement_pending with fault=service, the same payment is served once funds are back", async () => {
    const key = chain.accounts[0]!.address;
    const funds = await chain.publicClient.getBalance({ address: key });
    const header = await payment();
    const before = await chain.usdcBalance(payer().address);
    await chain.rpc("hardhat_setBalance", [key, "0x0"]);
    let first: Response;
    try {
      first = await paid(b, header);
    } finally {
      await chain.rpc("hardhat_setBalance", [key, `0x${funds.toString(16)}`]);
    }
    expect(first.status, await first.clone().text()).toBe(503);
    const err = (await first.json()).error;
    expect(err).toMatchObject({ code: "settlement_pending", fault: "service", reason: "transaction_refused" });
    expect(err.message).toMatch(/authorization is still valid/);
    expect(await chain.usdcBalance(payer().address)).toBe(before);

    const again = await paid(a, header);
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await chain.usdcBalance(payer().address)).toBe(before - PRICE);
  });

  it("optimistic mode: delivered before inclusion; a payer that moves its funds away mid-flight has the failure on its receipt and is refused optimistic calls until a confirmed payment settles", async () => {
    const cheat = chain.accounts[3]!;
    const reqOf = async (path: string) => requirementFrom(await fetch(`${a.url}${path}`)).accepts[0]!;
    const signFor = async (r: Requirement) => v2Header(r, await signAuthorization(cheat, { to: r.payTo as Address, value: BigInt(r.amount) }));
    const micro = await reqOf("/v1/sentiment");
    expect(micro.amount).toBe("5000");
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      // Blocks only when the test says so: the transfer is still in the mempool when the data arrives.
      await chain.rpc("evm_setIntervalMining", [0]);
      const res = await fetch(`${a.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": await signFor(micro) } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get("x-payment-settlement")).toBe("optimistic");
      const tx = txOf(res);
      const receiptId = res.headers.get("x-receipt-id");
      expect(receiptId).toMatch(/^[0-9a-f-]{36}$/);
      await expect(chain.publicClient.getTransactionReceipt({ hash: tx })).rejects.toThrow(); // not included yet

      // The payer moves everything away with a higher tip, so its transfer is mined first.
      const wallet = createWalletClient({ account: cheat, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) });
      const all = await chain.usdcBalance(cheat.address);
      await wallet.writeContract({
        address: BASE_USDC,
        abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]),
        functionName: "transfer",
        args: [chain.accounts[5]!.address, all],
        // Given, not estimated: the node estimates against its pending block, where the
        // optimistic transfer has already taken its share and this one would revert.
        gas: 100_000n,
        maxPriorityFeePerGas: parseGwei("50"),
        maxFeePerGas: parseGwei("100"),
      });
      await chain.rpc("evm_mine", []);
      expect((await chain.publicClient.getTransactionReceipt({ hash: tx })).status).toBe("reverted");

      // The confirmation after the response records the failure on the payment and its receipt.
      let row: { status: string; receipt: string } | undefined;
      for (let i = 0; i < 60 && row?.status !== "optimistic_failed"; i++) {
        await new Promise((r) => setTimeout(r, 250));
        row = (await db.query(`SELECT p.status, l.status AS receipt FROM "${schema}".payments p JOIN "${schema}".access_log l ON l.payment_id = p.id WHERE l.id = $1`, [receiptId])).rows[0];
      }
      expect(row).toEqual({ status: "optimistic_failed", receipt: "settlement_failed" });
      await chain.setIntervalMining(BLOCK_MS);
      await chain.mintUsdc(cheat.address, 1_000_000n);

      const refused = await fetch(`${b.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": await signFor(micro) } });
      expect(refused.status, await refused.clone().text()).toBe(402);
      const err = await refused.json();
      expect(err.code).toBe("payment_invalid");
      expect(err.error).toMatch(/Optimistic settlement is refused for payer .* was delivered but its transfer failed on chain/);

      const confirmed = await fetch(`${b.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": await signFor(await reqOf("/v1/fng")) } });
      expect(confirmed.status, await confirmed.clone().text()).toBe(200);
      expect(confirmed.headers.get("x-payment-settlement")).toBe("confirmed");
      // Settled: optimistic calls are open to the payer again.
      const back = await fetch(`${a.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": await signFor(micro) } });
      expect(back.status, await back.clone().text()).toBe(200);
      expect(back.headers.get("x-payment-settlement")).toBe("optimistic");
      await chain.publicClient.waitForTransactionReceipt({ hash: txOf(back) });
      expect(await chain.usdcBalance(cheat.address)).toBe(1_000_000n - PRICE - 5_000n); // each settled payment once
    } finally {
      await chain.setIntervalMining(BLOCK_MS);
      await db.end();
    }
  });

  it("an optimistic payment whose transaction the node drops: sent again, settled once, nothing left unconfirmed", async () => {
    const payer7 = chain.accounts[7]!;
    const micro = requirementFrom(await fetch(`${a.url}/v1/sentiment`)).accepts[0]!;
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      const before = await chain.usdcBalance(payer7.address);
      await chain.rpc("evm_setIntervalMining", [0]);
      const res = await fetch(`${a.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": v2Header(micro, await signAuthorization(payer7, { to: micro.payTo as Address, value: BigInt(micro.amount) })) } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get("x-payment-settlement")).toBe("optimistic");
      const tx = txOf(res);
      expect(await chain.rpc("hardhat_dropTransaction", [tx])).toBe(true);
      await chain.setIntervalMining(BLOCK_MS);
      let row: { status: string; tx_hash: string } | undefined;
      for (let i = 0; i < 80 && row?.status !== "settled"; i++) {
        await new Promise((r) => setTimeout(r, 250));
        row = (await db.query(`SELECT status, tx_hash FROM "${schema}".payments WHERE tx_hash = $1 OR reference LIKE $2`, [tx, `${payer7.address.toLowerCase()}:%`])).rows[0];
      }
      expect(row?.status).toBe("settled");
      expect(await chain.usdcBalance(payer7.address)).toBe(before - BigInt(micro.amount));
    } finally {
      await chain.setIntervalMining(BLOCK_MS);
      await db.end();
    }
  });

  it("an optimistic broadcast the node refuses for a reason of ours (the key cannot pay gas): 503 settlement_pending, the receipt written while it was sent is taken back; the same payment is delivered once afterwards", async () => {
    const payer8 = chain.accounts[8]!;
    await chain.mintUsdc(payer8.address, 100_000n);
    const micro = requirementFrom(await fetch(`${a.url}/v1/sentiment`)).accepts[0]!;
    const header = v2Header(micro, await signAuthorization(payer8, { to: micro.payTo as Address, value: BigInt(micro.amount) }));
    const reference = `${payer8.address.toLowerCase()}:%`;
    const rows = async () =>
      (
        await db.query(`SELECT p.status, p.tx_hash, l.id AS receipt, l.tx_hash AS receipt_tx FROM "${schema}".payments p LEFT JOIN "${schema}".access_log l ON l.payment_id = p.id WHERE p.reference LIKE $1`, [reference])
      ).rows as Array<{ status: string; tx_hash: string | null; receipt: string | null; receipt_tx: string | null }>;
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    const key = chain.accounts[0]!.address;
    const funds = await chain.publicClient.getBalance({ address: key });
    try {
      const before = await chain.usdcBalance(payer8.address);
      await chain.rpc("hardhat_setBalance", [key, "0x0"]);
      let first: Response;
      try {
        first = await fetch(`${a.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": header } });
      } finally {
        await chain.rpc("hardhat_setBalance", [key, `0x${funds.toString(16)}`]);
      }
      expect(first.status, await first.clone().text()).toBe(503);
      expect((await first.json()).error).toMatchObject({ code: "settlement_pending", fault: "service", reason: "transaction_refused" });
      // Neither a receipt nor a payment row is left: nothing was charged.
      expect(await rows()).toEqual([]);
      expect(await chain.usdcBalance(payer8.address)).toBe(before);

      const again = await fetch(`${b.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": header } });
      expect(again.status, await again.clone().text()).toBe(200);
      expect(again.headers.get("x-payment-settlement")).toBe("optimistic");
      const tx = txOf(again);
      expect((await chain.publicClient.waitForTransactionReceipt({ hash: tx })).status).toBe("success");
      expect(await chain.usdcBalance(payer8.address)).toBe(before - BigInt(micro.amount));
      // One payment, one receipt, both naming the transaction the payer was told.
      const [row, ...more] = await rows();
      expect(more).toEqual([]);
      expect(row).toMatchObject({ tx_hash: tx, receipt: again.headers.get("x-receipt-id"), receipt_tx: tx });
    } finally {
      await db.end();
    }
  });

  it("the per-payer optimistic cap holds under concurrency: 8 micro-calls at once on both instances, exactly 2 delivered optimistically (cap $0.01), all 8 served and settled once", async () => {
    const payer = chain.accounts[6]!;
    const micro = requirementFrom(await fetch(`${a.url}/v1/sentiment`)).accepts[0]!;
    const headers = await Promise.all(Array.from({ length: 8 }, async () => v2Header(micro, await signAuthorization(payer, { to: micro.payTo as Address, value: BigInt(micro.amount) }))));
    const before = await chain.usdcBalance(payer.address);
    // No blocks while the calls decide their mode: nothing confirms, so nothing frees the cap meanwhile.
    await chain.rpc("evm_setIntervalMining", [0]);
    try {
      const answers = headers.map((h, i) => fetch(`${(i % 2 ? a : b).url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": h } }));
      await new Promise((r) => setTimeout(r, 3000));
      await chain.setIntervalMining(BLOCK_MS);
      const done = await Promise.all(answers);
      const bodies = await Promise.all(done.map((r) => r.clone().text()));
      expect(done.map((r) => r.status), bodies.join("\n")).toEqual(Array(8).fill(200));
      const modes = done.map((r) => r.headers.get("x-payment-settlement"));
      expect(modes.filter((m) => m === "optimistic")).toHaveLength(2);
      expect(modes.filter((m) => m === "confirmed")).toHaveLength(6);
      for (const r of done) await chain.publicClient.waitForTransactionReceipt({ hash: txOf(r) });
      expect(before - (await chain.usdcBalance(payer.address))).toBe(8n * BigInt(micro.amount));
    } finally {
      await chain.setIntervalMining(BLOCK_MS);
    }
  });

  // Last: it kills instance A.
  it("an instance killed (SIGKILL) right after taking a nonce, with an optimistic payment delivered and its transaction dropped: the other instance settles everything afterwards", async () => {
    const payer7 = chain.accounts[7]!;
    const micro = requirementFrom(await fetch(`${b.url}/v1/sentiment`)).accepts[0]!;
    const key = chain.accounts[0]!.address;
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      const fromBlock = await chain.publicClient.getBlockNumber();
      const oursBefore = (await ownFees(b, req.network))?.ours ?? { fee: "0", transactions: 0 };
      const microBefore = await chain.usdcBalance(payer7.address);
      const before = await chain.usdcBalance(payer().address);
      await chain.rpc("evm_setIntervalMining", [0]);
      // A delivers an optimistic call; the node then drops its transaction.
      const opt = await fetch(`${a.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": v2Header(micro, await signAuthorization(payer7, { to: micro.payTo as Address, value: BigInt(micro.amount) })) } });
      expect(opt.status, await opt.clone().text()).toBe(200);
      expect(opt.headers.get("x-payment-settlement")).toBe("optimistic");
      const optTx = txOf(opt);
      expect(await chain.rpc("hardhat_dropTransaction", [optTx])).toBe(true);
      // A takes a nonce for another settlement and dies before its transaction reaches the
      // node: the held send is never let go (the payer of that call is not charged; its
      // payment row stays pending until the 10-minute takeover).
      const held = proxyA.hold();
      const doomed = paid(a, await payment()).catch(() => null);
      await held;
      const exited = new Promise((r) => a.child.once("exit", r));
      a.child.kill("SIGKILL");
      await exited;
      await doomed;
      await chain.setIntervalMining(BLOCK_MS);

      // B settles what comes next: payments queued behind A's nonces wait for the repair of
      // the gaps (A's leases expire), then are included; a 503 says when to come back.
      const headers = await Promise.all(Array.from({ length: 4 }, () => payment()));
      const results = await Promise.all(
        headers.map(async (h) => {
          for (let attempt = 0; ; attempt++) {
            const res = await paid(b, h);
            if (res.status !== 503 || attempt >= 4) return res;
            await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 5) * 1000));
          }
        }),
      );
      const bodies = await Promise.all(results.map((r) => r.clone().text()));
      expect(results.map((r) => r.status), bodies.join("\n")).toEqual([200, 200, 200, 200]);
      for (const r of results) expect((await chain.publicClient.getTransactionReceipt({ hash: txOf(r) })).status).toBe("success");
      expect(await chain.usdcBalance(payer().address)).toBe(before - 4n * PRICE);

      // A's optimistic payment, left "broadcast" by the dead process, is finished by B's sweep.
      let row: { status: string } | undefined;
      for (let i = 0; i < 160 && row?.status !== "settled"; i++) {
        await new Promise((r) => setTimeout(r, 250));
        row = (await db.query(`SELECT status FROM "${schema}".payments WHERE reference LIKE $1 AND optimistic ORDER BY created_at DESC LIMIT 1`, [`${payer7.address.toLowerCase()}:%`])).rows[0];
      }
      expect(row?.status).toBe("settled");
      expect(await chain.usdcBalance(payer7.address)).toBe(microBefore - BigInt(micro.amount));
      // Nothing of the key is left waiting behind a gap.
      const [pending, latest] = await Promise.all([
        chain.publicClient.getTransactionCount({ address: key, blockTag: "pending" }),
        chain.publicClient.getTransactionCount({ address: key, blockTag: "latest" }),
      ]);
      expect(pending).toBe(latest);

      // The gaps were filled with zero-value transactions of the key to itself: gas for
      // nothing, each recorded once as the service's own fee (the ledger report's `ours`,
      // part of `failed`), whichever instance sent it.
      const fillers: bigint[] = [];
      for (let n = fromBlock + 1n, last = await chain.publicClient.getBlockNumber(); n <= last; n++) {
        const block = await chain.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
        for (const tx of block.transactions) {
          if (tx.from.toLowerCase() !== key.toLowerCase() || tx.to?.toLowerCase() !== key.toLowerCase() || tx.value !== 0n) continue;
          const r = await chain.publicClient.getTransactionReceipt({ hash: tx.hash });
          fillers.push(r.gasUsed * r.effectiveGasPrice);
        }
      }
      expect(fillers.length).toBeGreaterThan(0);
      const spent = fillers.reduce((x, y) => x + y, 0n);
      let ours = oursBefore;
      for (let i = 0; i < 40 && ours.transactions - oursBefore.transactions < fillers.length; i++) {
        await new Promise((r) => setTimeout(r, 250));
        ours = (await ownFees(b, req.network))!.ours;
      }
      expect(ours.transactions - oursBefore.transactions).toBe(fillers.length);
      expect(BigInt(ours.fee) - BigInt(oursBefore.fee)).toBe(spent);
      const fees = (await ownFees(b, req.network))!;
      expect(BigInt(fees.failed)).toBeGreaterThanOrEqual(BigInt(ours.fee));
    } finally {
      await chain.setIntervalMining(BLOCK_MS);
      await db.end();
    }
  }, 150_000);
});
