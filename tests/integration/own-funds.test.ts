/**
 * The service's own funds (issue 30): a payer can never make the facilitator key pay gas
 * for settlements that must fail. Payments of one payer in flight, on any instance, are
 * counted against its balance before anything is sent (lib/payments/x402/hold.ts,
 * fundsCover; the lock counts them, lib/payments/ledger.ts):
 * - 10 different payments at once from a payer funded for one call: exactly one
 *   transaction, 1 served, 9 refused (402, reason funds_in_flight) with nothing sent; on
 *   automine and at 2 s blocks across two instances sharing PostgreSQL;
 * - optimistic mode, a payer holding 0.01 USDC, 20 payments of 0.005 at once: two
 *   delivered, no transfer that reverts for lack of funds;
 * - a payer with funds is not refused for paying several calls at once;
 * - the gas bound (X402_MAX_GAS_SHARE) covers contract wallets (ERC-1271, and ERC-6492
 *   whose settlement deploys the wallet first, its deployment's gas included), and the gas
 *   of every transaction such a settlement mined is recorded;
 * - an instance SIGKILLed with a payer's payment locked (nothing sent): its row holds the
 *   payer's funds for its lease (the payer's next payment refused elsewhere, nothing sent),
 *   then no longer; presented again once the funds are spent, refused with nothing sent;
 * - a payer paying faster than blocks come has its balance read in the simulation's own
 *   request to the node (no round trip of its own), or on its own from a node that takes no
 *   batches; funds it moved elsewhere since the instance's last read refuse its next payment
 *   with nothing sent, and the nonce its lock took goes to the key's next transaction.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, parseAbi, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";
import { BASE_USDC, startChain, WALLET_FACTORY, walletFactoryAbi, type Chain } from "../helpers/chain";
import { requirementFrom, signAuthorization, signWalletAuthorization, useAuthorization, v2Header, type Requirement } from "../helpers/payments";
import { rpcProxy } from "../helpers/rpc-proxy";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";

const up = (await hasPostgres()) && (await hasRedis());
if (!up && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;

describe.skipIf(!up)("a payer cannot make the service pay fees for settlements that must fail", () => {
  let sim: Simulator;
  let chain: Chain;
  let a: Service;
  let b: Service;
  let sharedEnv: Record<string, string>;
  const key = () => chain.accounts[0]!.address;

  beforeAll(async () => {
    sim = await startSimulator();
    chain = await startChain();
    const env = {
      ...sim.env,
      UPSTREAM_MODE: "live",
      DATABASE_URL: `${POSTGRES_URL}?schema=funds_${randomBytes(5).toString("hex")}`,
      REDIS_URL,
      REDIS_KEY_PREFIX: `funds-${randomBytes(4).toString("hex")}`,
      PAY_TO_ADDRESS: chain.accounts[2]!.address,
      FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
      SETTLEMENT_RPC_URL: chain.rpcUrl,
      CACHE_DISABLED: "1",
      ADMIN_TOKEN: ADMIN,
      // /v1/sentiment ($0.005) settles optimistically; /v1/fng ($0.01) in confirmed mode.
      X402_OPTIMISTIC_MAX_USD: "0.005",
      X402_OPTIMISTIC_PAYER_CAP_USD: "0.1",
      X402_EIP6492_FACTORIES: WALLET_FACTORY,
    };
    sharedEnv = env;
    [a, b] = await Promise.all([startService({ env, timeoutMs: 240_000 }), startService({ env, timeoutMs: 240_000 })]);
  }, 300_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await chain?.stop();
    await sim?.close();
  });

  /** A fresh payer holding `usdc` base units. */
  async function payerWith(usdc: bigint) {
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.mintUsdc(account.address, usdc);
    return account;
  }

  async function requirement(path: string): Promise<Requirement> {
    return requirementFrom(await fetch(`${a.url}${path}`)).accepts[0]!;
  }

  /** `n` different payments of `payer` for `path` presented at once, alternating over `targets`. */
  async function atOnce(payer: ReturnType<typeof privateKeyToAccount>, path: string, n: number, targets: Service[]) {
    const req = await requirement(path);
    const headers = await Promise.all(Array.from({ length: n }, async () => v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }))));
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });
    const results = await Promise.all(headers.map((h, i) => fetch(`${targets[i % targets.length]!.url}${path}`, { headers: { "PAYMENT-SIGNATURE": h } }).then(async (r) => ({ status: r.status, body: await r.json() }))));
    return { req, results, nonceBefore };
  }

  /** Transactions the facilitator key sent since `nonce`, once they are mined; every one must have succeeded. */
  async function keyTransactionsSince(nonce: number): Promise<number> {
    const until = Date.now() + 10_000;
    let pending = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "pending" });
    while ((await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" })) < pending && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    pending = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });
    const head = await chain.publicClient.getBlockNumber();
    let reverted = 0;
    for (let n = head; n >= 0n && n > head - 40n; n--) {
      const block = await chain.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== key().toLowerCase() || tx.nonce < nonce) continue;
        if ((await chain.publicClient.getTransactionReceipt({ hash: tx.hash })).status !== "success") reverted++;
      }
    }
    expect(reverted, "transactions of the key that reverted").toBe(0);
    return pending - nonce;
  }

  function expectOneServed(results: Array<{ status: number; body: { code?: string; error?: string; reason?: string } }>, n: number) {
    expect(results.filter((r) => r.status === 200), JSON.stringify(results.map((r) => [r.status, r.body.code]))).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(n - 1);
    for (const r of refused) {
      expect(r.status).toBe(402);
      expect(r.body.code).toBe("payment_invalid");
      expect(r.body.error).toMatch(/payments still in flight|balance/);
    }
  }

  it("automine, one instance: 10 payments at once from a payer funded for one call make exactly one transaction; 9 refused with nothing sent", async () => {
    await chain.setIntervalMining(0);
    const payer = await payerWith(10_000n);
    const { results, nonceBefore } = await atOnce(payer, "/v1/fng", 10, [a]);
    expectOneServed(results, 10);
    expect(await keyTransactionsSince(nonceBefore)).toBe(1);
    expect(await chain.usdcBalance(payer.address)).toBe(0n);
  });

  it("2 s blocks, two instances on one PostgreSQL: the same, one transaction in total", async () => {
    await chain.setIntervalMining(2000);
    try {
      const payer = await payerWith(10_000n);
      const { results, nonceBefore } = await atOnce(payer, "/v1/fng", 10, [a, b]);
      expectOneServed(results, 10);
      expect(await keyTransactionsSince(nonceBefore)).toBe(1);
      expect(await chain.usdcBalance(payer.address)).toBe(0n);
    } finally {
      await chain.setIntervalMining(0);
    }
  });

  it("optimistic mode, a payer holding 0.01 USDC, 20 payments of 0.005 at once: two delivered, no transfer reverts for lack of funds", async () => {
    await chain.setIntervalMining(2000);
    try {
      const payer = await payerWith(10_000n);
      const { results, nonceBefore } = await atOnce(payer, "/v1/sentiment", 20, [a, b]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(2);
      for (const r of results.filter((x) => x.status !== 200)) expect(r.status).toBe(402);
      expect(await keyTransactionsSince(nonceBefore)).toBe(2);
      expect(await chain.usdcBalance(payer.address)).toBe(0n);
    } finally {
      await chain.setIntervalMining(0);
    }
  });

  it("gas bound: while the chain's fees would make a settlement cost more than its price, the payment is refused (402 gas_too_expensive, Retry-After) with nothing sent; the same payment is served once fees are back", async () => {
    await chain.setIntervalMining(0);
    const payer = await payerWith(10_000n);
    const req = await requirement("/v1/fng");
    const header = v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }));
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });
    // 100 gwei: about 110 000 gas × 121 gwei ≈ 0.013 ETH, far above the $0.01 price at the test chain's ether value.
    await chain.rpc("hardhat_setNextBlockBaseFeePerGas", ["0x174876e800"]);
    await chain.rpc("evm_mine", []);
    let refused: { status: number; body: any; retry: string | null };
    try {
      // Past the 2 s the sender reuses fees for.
      await new Promise((r) => setTimeout(r, 2500));
      const r = await fetch(`${a.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": header } });
      refused = { status: r.status, body: await r.json(), retry: r.headers.get("retry-after") };
    } finally {
      await chain.rpc("hardhat_setNextBlockBaseFeePerGas", ["0x3b9aca00"]);
      await chain.rpc("evm_mine", []);
    }
    expect(refused.status, JSON.stringify(refused.body)).toBe(402);
    expect(refused.body.code).toBe("payment_invalid");
    expect(refused.body.reason).toBe("gas_too_expensive");
    expect(refused.body.error).toMatch(/more than 200 % of its price/);
    expect(Number(refused.retry)).toBeGreaterThan(0);
    expect(await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" })).toBe(nonceBefore);
    expect(await chain.usdcBalance(payer.address)).toBe(10_000n);

    await new Promise((r) => setTimeout(r, 2500));
    const ok = await fetch(`${a.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await chain.usdcBalance(payer.address)).toBe(0n);

    // The gas the key paid is counted: per network in the ledger report, per method in /metrics.
    const tx = (await chain.publicClient.getTransactionReceipt({ hash: JSON.parse(Buffer.from(ok.headers.get("payment-response")!, "base64").toString()).transaction }));
    const report = await fetch(`${a.url}/v1/bundles/debug`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.json());
    expect(report.fees[req.network]).toMatchObject({ method: "evm-exact", unit: "wei" });
    expect(BigInt(report.fees[req.network].settled)).toBeGreaterThanOrEqual(tx.gasUsed * tx.effectiveGasPrice);
    const metrics = await fetch(`${a.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
    expect(metrics).toMatch(/echo_settlement_fees_total\{method="evm-exact",network="eip155:8453",unit="wei",outcome="settled"\} [1-9]/);
  });

  it("contract wallets: at fees where a deployed wallet's transfer is within the bound, an ERC-6492 payment whose settlement must deploy the wallet first is refused (402 gas_too_expensive, nothing sent); at high fees a deployed wallet's (ERC-1271) too; at low fees both are served and the gas of the deployment and the transfer is recorded", async () => {
    await chain.setIntervalMining(0);
    const owner = privateKeyToAccount(generatePrivateKey());
    const deployed = await chain.deployWallet(owner.address, `0x${randomBytes(32).toString("hex")}`);
    const salt = `0x${randomBytes(32).toString("hex")}` as Hex;
    const undeployed = await chain.walletAddress(owner.address, salt);
    await chain.mintUsdc(deployed, 100_000n);
    await chain.mintUsdc(undeployed, 100_000n);
    const req = await requirement("/v1/fng");
    const sign = (wallet: Address, deploy?: { salt: Hex }) => signWalletAuthorization(owner, wallet, { to: req.payTo as Address, value: BigInt(req.amount) }, deploy);
    const p1271 = await sign(deployed);
    const p1271b = await sign(deployed);
    const p6492 = await sign(undeployed, { salt });
    const pay = (p: unknown) => fetch(`${a.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": v2Header(req, p) } }).then(async (r) => ({ status: r.status, body: await r.json(), retry: r.headers.get("retry-after") }));
    const keyNonce = () => chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });

    // What the two settlements need in gas, from the key: the transfer alone (a deployed
    // wallet), and the deployment on top of it. The bound is $0.02 (200 % of $0.01) at $10
    // per ether (tests/helpers/service.ts): 2·10^15 wei for the gas limit (estimate + 50 %)
    // × the max fee per gas (base fee × 1.2 + priority fee). A max fee between the two
    // thresholds (their geometric mean) passes the transfer and refuses the deployment.
    const transferData = encodeFunctionData({
      abi: parseAbi(["function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)"]),
      args: [p1271.authorization.from, p1271.authorization.to, BigInt(p1271.authorization.value), BigInt(p1271.authorization.validAfter), BigInt(p1271.authorization.validBefore), p1271.authorization.nonce, p1271.signature],
    });
    const transferGas = await chain.publicClient.estimateGas({ account: key(), to: BASE_USDC, data: transferData });
    const deployGas = await chain.publicClient.estimateGas({ account: key(), to: WALLET_FACTORY, data: encodeFunctionData({ abi: walletFactoryAbi, functionName: "deploy", args: [owner.address, salt] }) });
    const limitWei = 2n * 10n ** 15n;
    const sqrt = (n: bigint) => BigInt(Math.floor(Math.sqrt(Number(n))));
    const maxFee = (limitWei * 2n) / (3n * sqrt(transferGas * (transferGas + deployGas)));
    const tip = BigInt((await chain.rpc("eth_maxPriorityFeePerGas", [])) as string);
    expect(maxFee, `transfer ${transferGas} gas, deployment ${deployGas} gas`).toBeGreaterThan(tip * 2n);
    const setBaseFee = async (wei: bigint) => {
      await chain.rpc("hardhat_setNextBlockBaseFeePerGas", [`0x${wei.toString(16)}`]);
      await chain.rpc("evm_mine", []);
      await new Promise((r) => setTimeout(r, 2500)); // past the 2 s the sender reuses fees for
    };
    const refusedForGas = (r: Awaited<ReturnType<typeof pay>>, deploys: boolean) => {
      expect(r.status, JSON.stringify(r.body)).toBe(402);
      expect(r.body.reason).toBe("gas_too_expensive");
      expect(r.body.error).toMatch(/more than 200 % of its price/);
      if (deploys) expect(r.body.error).toMatch(/deploying the payer's wallet/);
      expect(Number(r.retry)).toBeGreaterThan(0);
    };
    const nonceBefore = await keyNonce();
    try {
      await setBaseFee(((maxFee - tip) * 10n) / 12n);
      refusedForGas(await pay(p6492), true);
      expect(await keyNonce(), "nothing sent for the refused payment").toBe(nonceBefore);
      const served = await pay(p1271);
      expect(served.status, JSON.stringify(served.body)).toBe(200);
      await setBaseFee(100_000_000_000n); // 100 gwei
      refusedForGas(await pay(p1271b), false);
    } finally {
      await setBaseFee(1_000_000_000n);
    }
    expect(await keyNonce(), "transactions of the key").toBe(nonceBefore + 1);
    expect(await chain.publicClient.getCode({ address: undeployed })).toBeUndefined();
    expect(await chain.usdcBalance(undeployed)).toBe(100_000n);
    expect(await chain.usdcBalance(deployed)).toBe(90_000n);

    // At ordinary fees the wallet is deployed and paid from; the gas of both transactions is recorded with the payment.
    const report = () => fetch(`${a.url}/v1/bundles/debug`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.json());
    const settledBefore = BigInt((await report()).fees?.[req.network]?.settled ?? "0");
    const ok = await pay(p6492);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await chain.publicClient.getCode({ address: undeployed })).toMatch(/^0x[0-9a-f]+$/);
    expect(await chain.usdcBalance(undeployed)).toBe(90_000n);
    expect(await keyNonce()).toBe(nonceBefore + 3);
    let spent = 0n;
    const head = await chain.publicClient.getBlockNumber();
    for (let b = head; b > head - 5n; b--) {
      const block = await chain.publicClient.getBlock({ blockNumber: b, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== key().toLowerCase() || tx.nonce < nonceBefore + 1) continue;
        const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx.hash });
        expect(receipt.status).toBe("success");
        spent += receipt.gasUsed * receipt.effectiveGasPrice;
      }
    }
    expect(BigInt((await report()).fees[req.network].settled) - settledBefore).toBe(spent);
  });

  it("a payer with funds paying 10 calls at once on both instances (2 s blocks) is served 10 times", async () => {
    // (Hardhat's automine refuses a nonce above the next one instead of queueing it, unlike
    // real chains: two instances sending at once are tested on mined blocks.)
    await chain.setIntervalMining(2000);
    try {
      const payer = await payerWith(1_000_000n);
      const { results, nonceBefore } = await atOnce(payer, "/v1/fng", 10, [a, b]);
      expect(results.map((r) => r.status), JSON.stringify(results.filter((r) => r.status !== 200).map((r) => r.body))).toEqual(Array(10).fill(200));
      expect(await keyTransactionsSince(nonceBefore)).toBe(10);
    } finally {
      await chain.setIntervalMining(0);
    }
  });

  it("an instance SIGKILLed holding a payer's payment (locked and verified, nothing sent): the payer's next payment is refused on the other instance while that lease holds, with nothing sent, and served once it ran out; the dead one, presented again, is refused with nothing sent: one transaction in total", async () => {
    await chain.setIntervalMining(0);
    const payer = await payerWith(10_000n);
    const req = await requirement("/v1/fng");
    const [first, second] = await Promise.all([0, 1].map(async () => v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }))));
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });
    const dying = await startService({ env: { ...sharedEnv, ECHO_FAILPOINTS: "after_lock", PAYMENT_LEASE_SECONDS: "3" }, timeoutMs: 240_000 });
    let refused: Response;
    try {
      // Dies after the lock and the verification, before anything is sent: the row holds the payer's funds for its lease.
      expect(await fetch(`${dying.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": first! } }).then(() => "answered", () => "no answer")).toBe("no answer");
      // Within that lease (3 s from the lock) the payer's funds cover the dead one's payment, not a second.
      refused = await fetch(`${a.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": second! } });
      await new Promise<void>((r) => (dying.child.exitCode !== null || dying.child.signalCode !== null ? r() : dying.child.once("exit", () => r())));
      expect(dying.child.signalCode).toBe("SIGKILL");
    } finally {
      await dying.stop();
    }
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: "payment_invalid", reason: "funds_in_flight" });
    // Once the lease ran out, the dead one no longer counts: served. (A recovery pass may hold
    // the row for the moment it reads the chain; a refusal then says the same, and the retry is what a client does.)
    await new Promise((r) => setTimeout(r, 3500));
    let served: { status: number; body: { code?: string; reason?: string } } = { status: 0, body: {} };
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${a.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": second! } });
      served = { status: r.status, body: await r.json() };
      if (served.status !== 402 || served.body.reason !== "funds_in_flight") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    // The dead one presented again: taken over, its payer's funds gone, refused with nothing sent.
    const again = await fetch(`${b.url}/v1/fng`, { headers: { "PAYMENT-SIGNATURE": first! } });
    expect(again.status).toBe(402);
    expect((await again.json()).code).toBe("payment_invalid");
    expect(await keyTransactionsSince(nonceBefore)).toBe(1);
    expect(await chain.usdcBalance(payer.address)).toBe(0n);
  });

  it("a payer paying faster than blocks come (optimistic, 2 s blocks): its balance is read in the simulation's own request, or on its own from a node that takes no batches; funds it moved since the last read refuse its next payment with nothing sent, and the key's next transaction takes the nonce that payment's lock took", async () => {
    const proxy = await rpcProxy(chain.rpcUrl);
    const c = await startService({ env: { ...sharedEnv, SETTLEMENT_RPC_URL: proxy.url }, timeoutMs: 240_000 });
    await chain.setIntervalMining(2000);
    try {
      const payer = await payerWith(20_000n);
      const req = await requirement("/v1/sentiment");
      const pay = async () => {
        const h = v2Header(req, await signAuthorization(payer, { to: req.payTo as Address, value: BigInt(req.amount) }));
        return fetch(`${c.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": h } });
      };
      const nonceBefore = await chain.publicClient.getTransactionCount({ address: key(), blockTag: "latest" });
      // balanceOf(payer), and the simulation's transferWithAuthorization from the payer.
      const balanceOf = `0x70a08231${payer.address.slice(2).toLowerCase().padStart(64, "0")}`;
      const reads = () => proxy.requests.filter((r) => r.toLowerCase().includes(balanceOf));
      const withSimulation = (r: string) => r.trimStart().startsWith("[") && r.includes('"0xe3ee160e');

      // The first payment's broadcast is held on its way to the node: it stays in flight.
      const held = proxy.hold();
      const first = pay();
      await held;
      // The second finds the first in flight: its balance (20 000) is read, on its own.
      expect((await pay()).status).toBe(200);
      expect(reads()).toHaveLength(1);
      expect(withSimulation(reads()[0]!)).toBe(false);
      // The payer moves 6 000 elsewhere (mined): 14 000 left, short of the 10 000 in flight and
      // 5 000 more, while the instance's last read (20 000) covered them.
      await useAuthorization(chain.rpcUrl, chain.accounts[9]!, await signAuthorization(payer, { to: chain.accounts[3]!.address, value: 6_000n }));
      const sendsBefore = proxy.state.sends;
      const readsBefore = reads().length;
      const refused = await pay();
      expect(refused.status).toBe(402);
      expect(await refused.json()).toMatchObject({ code: "payment_invalid", reason: "funds_in_flight" });
      expect(proxy.state.sends, "nothing sent for the refused payment").toBe(sendsBefore);
      // Its balance travelled with its simulation (a shortfall is read once more before the refusal).
      expect(withSimulation(reads()[readsBefore]!)).toBe(true);
      proxy.release();
      expect((await first).status).toBe(200);
      // Both transfers land (14 000 covers them); the refused payment's nonce went to the next
      // transaction of the key: no gap waits and no filler is sent (keyTransactionsSince counts
      // every transaction of the key since, each succeeded).
      const other = await payerWith(1_000_000n);
      const h = v2Header(req, await signAuthorization(other, { to: req.payTo as Address, value: BigInt(req.amount) }));
      expect((await fetch(`${c.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": h } })).status).toBe(200);
      expect(await keyTransactionsSince(nonceBefore)).toBe(3);
      expect(await chain.usdcBalance(payer.address)).toBe(4_000n);

      // A payer seen busy on a node that takes no batches: its balance is read on its own, and it is served.
      proxy.state.refuseBatches = true;
      const busy = await payerWith(1_000_000n);
      const busyBalanceOf = `0x70a08231${busy.address.slice(2).toLowerCase().padStart(64, "0")}`;
      const paidBy = async () => fetch(`${c.url}/v1/sentiment`, { headers: { "PAYMENT-SIGNATURE": v2Header(req, await signAuthorization(busy, { to: req.payTo as Address, value: BigInt(req.amount) })) } });
      const heldAgain = proxy.hold();
      const firstOfBusy = paidBy();
      await heldAgain;
      expect((await paidBy()).status).toBe(200);
      expect((await paidBy()).status).toBe(200);
      proxy.release();
      expect((await firstOfBusy).status).toBe(200);
      const busyReads = proxy.requests.filter((r) => r.toLowerCase().includes(busyBalanceOf));
      expect(busyReads.some(withSimulation), "the batch was tried (and refused)").toBe(true);
      expect(busyReads.filter((r) => !r.trimStart().startsWith("[")).length, "then read on its own").toBeGreaterThanOrEqual(2);
    } finally {
      await chain.setIntervalMining(0);
      await c.stop();
      await proxy.close();
    }
  });
});
