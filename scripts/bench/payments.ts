/**
 * Payment figures (issue: payments and credentials):
 * - latency of an x402-paid call (verify + settle on the local chain) and of a
 *   bundle-token call, each as a ratio to a free-key call of the same cached product,
 *   one call at a time, the three kinds interleaved in the same run; the x402 pair again
 *   on an anvil node;
 * - ledger throughput: credits consumed per second under 100 concurrent callers on one
 *   bundle, embedded (PGlite) and PostgreSQL;
 * - settlement on real block times (interval mining): served ratio of 40 concurrent
 *   payments on two instances sharing one key vs one instance, those served payments
 *   presented again on the other instance (the kept answer's latency), and paid p50 in confirmed
 *   and optimistic mode against a free-key p50 on the same instance, at 2 s and 200 ms
 *   blocks.
 */
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startChain, type Chain } from "../../tests/helpers/chain";
import { startService, type Service } from "../../tests/helpers/service";
import { signAuthorization, v2Header } from "../../tests/helpers/payments";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../../tests/helpers/services";
import { load, report } from "./load";
import { BENCH_SECONDS } from "./core";

const PRODUCT = "/v1/fng";

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(n: number, call: (i: number) => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await call(i);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`call ${i} answered ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

async function paymentService(chain: Chain, sim: Simulator, extra: Record<string, string> = {}): Promise<Service> {
  return startService({
    env: {
      ...sim.env,
      LOG_LEVEL: "warn",
      PAY_TO_ADDRESS: chain.accounts[2]!.address,
      FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
      SETTLEMENT_RPC_URL: chain.rpcUrl,
      FREE_KEY_DAILY_QUOTA: "100000000",
      ENTERPRISE_BUNDLE_CREDITS: "100000000",
      ...extra,
    },
  });
}

async function buyEnterpriseBundle(svc: Service, chain: Chain): Promise<string> {
  const payer = chain.accounts[1]!;
  const first = await fetch(`${svc.url}/v1/bundle/enterprise`);
  const req = JSON.parse(Buffer.from(first.headers.get("payment-required")!, "base64").toString()).accepts[0];
  const payload = await signAuthorization(payer, { to: req.payTo, value: BigInt(req.amount) });
  const res = await fetch(`${svc.url}/v1/bundle/enterprise`, { headers: { "PAYMENT-SIGNATURE": v2Header(req, payload) } });
  if (res.status !== 200) throw new Error(`bundle purchase answered ${res.status}: ${await res.text()}`);
  return (await res.json()).bundle_token;
}

/**
 * The same x402 ÷ key pair on a local anvil node (Foundry): a node that has EIP-7966's
 * eth_sendRawTransactionSync, so the settlement's send is answered with its receipt, and
 * whose JSON-RPC answers take a fraction of Hardhat's (its server is Rust, Hardhat's
 * Node.js). What is left of the ratio is more the service's own work than the node's.
 */
async function x402OnAnvil(sim: Simulator): Promise<void> {
  const chain = await startChain({ node: "anvil" });
  try {
    await chain.mintUsdc(chain.accounts[1]!.address, 1_000_000_000n);
    const svc = await paymentService(chain, sim);
    try {
      await keyVsX402(svc, chain, "anvil_");
    } finally {
      await svc.stop();
    }
  } finally {
    await chain.stop();
  }
}

/**
 * Key, bundle and x402 calls of PRODUCT timed round-robin (key, bundle, x402, key, …) so
 * drift of the machine's speed falls on all three alike; measured in separate blocks the
 * baseline moved by ±20 % between them. Without a bundle its two calls are key calls
 * (the same rhythm, not reported). Figures `${prefix}api_key_call_p50_ms`,
 * `${prefix}x402_call_p50_ms`, `${prefix}x402_vs_api_key_latency_ratio`, and the bundle's.
 */
async function keyVsX402(svc: Service, chain: Chain, prefix: string, bundle?: string): Promise<void> {
  const key = (await (await fetch(`${svc.url}/v1/free-key`)).json()).api_key as string;
  const req = JSON.parse(Buffer.from((await fetch(`${svc.url}${PRODUCT}`)).headers.get("payment-required")!, "base64").toString()).accepts[0];
  const payer = chain.accounts[1]!;
  const keyCall = () => fetch(`${svc.url}${PRODUCT}`, { headers: { "X-Api-Key": key } });
  const second = bundle ? () => fetch(`${svc.url}${PRODUCT}`, { headers: { "X-Bundle-Token": bundle } }) : keyCall;
  // Warm-up of every path (JIT, caches, connections).
  await timed(20, keyCall);
  if (bundle) await timed(20, second);
  const headers = await Promise.all(Array.from({ length: 55 }, async () => v2Header(req, await signAuthorization(payer, { to: req.payTo, value: BigInt(req.amount) }))));
  await timed(5, (i) => fetch(`${svc.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": headers[i]! } }));
  const keyLat: number[] = [];
  const secondLat: number[] = [];
  const x402Lat: number[] = [];
  for (let i = 0; i < 50; i++) {
    keyLat.push(...(await timed(2, keyCall)));
    secondLat.push(...(await timed(2, second)));
    x402Lat.push(...(await timed(1, () => fetch(`${svc.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": headers[i + 5]! } }))));
  }
  const k50 = percentile(keyLat, 50);
  report(`${prefix}api_key_call_p50_ms`, k50);
  if (bundle) report(`${prefix}bundle_call_p50_ms`, percentile(secondLat, 50));
  report(`${prefix}x402_call_p50_ms`, percentile(x402Lat, 50));
  if (bundle) report(`${prefix}bundle_vs_api_key_latency_ratio`, percentile(secondLat, 50) / k50);
  report(`${prefix}x402_vs_api_key_latency_ratio`, percentile(x402Lat, 50) / k50);
}

export async function paymentsBench(): Promise<void> {
  const sim = await startSimulator({ seed: 402 });
  const chain = await startChain();
  try {
    await chain.mintUsdc(chain.accounts[1]!.address, 1_000_000_000n);
    const svc = await paymentService(chain, sim);
    try {
      const bundle = await buyEnterpriseBundle(svc, chain);
      await keyVsX402(svc, chain, "", bundle);

      await ledgerThroughput("embedded", svc, bundle);
    } finally {
      await svc.stop();
    }
    await x402OnAnvil(sim);
    await settlementBench(chain, sim);
    if (await hasPostgres()) {
      const pg = await paymentService(chain, sim, { DATABASE_URL: `${POSTGRES_URL}?schema=bench_${randomBytes(4).toString("hex")}` });
      try {
        await ledgerThroughput("postgres", pg, await buyEnterpriseBundle(pg, chain));
      } finally {
        await pg.stop();
      }
    } else {
      report("ledger_postgres_credits_per_s", "skipped (PostgreSQL not reachable)");
    }
  } finally {
    await chain.stop();
    await sim.close();
  }
}

async function ledgerThroughput(mode: string, svc: Service, bundle: string): Promise<void> {
  const before = (await (await fetch(`${svc.url}/v1/usage`, { headers: { "X-Bundle-Token": bundle } })).json()).credits_remaining as number;
  const r = await load({ url: `${svc.url}${PRODUCT}`, connections: 100, seconds: BENCH_SECONDS, headers: { "X-Bundle-Token": bundle } });
  const after = (await (await fetch(`${svc.url}/v1/usage`, { headers: { "X-Bundle-Token": bundle } })).json()).credits_remaining as number;
  const seconds = BENCH_SECONDS;
  report(`ledger_${mode}_credits_per_s`, (before - after) / seconds);
  report(`ledger_${mode}_ok_responses`, r.statuses[200] ?? 0);
  report(`ledger_${mode}_credits_consumed`, before - after);
  report(`ledger_${mode}_p99_ms`, r.p99);
}

const signedHeaders = async (svc: Service, chain: Chain, n: number, path = PRODUCT): Promise<string[]> => {
  const req = JSON.parse(Buffer.from((await fetch(`${svc.url}${path}`)).headers.get("payment-required")!, "base64").toString()).accepts[0];
  return Promise.all(Array.from({ length: n }, async () => v2Header(req, await signAuthorization(chain.accounts[1]!, { to: req.payTo, value: BigInt(req.amount) }))));
};

/** `n` points, one at random in each n-th of `[0, span)`, in shuffled order (see the settlement samples). */
const strata = (n: number, span: number): number[] => shuffle(Array.from({ length: n }, (_, i) => ((i + Math.random()) / n) * span));

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/**
 * When the chain's blocks appear, from the node's own newHeads subscription (WebSocket):
 * `next()` resolves when the next block is announced; the interval between announcements
 * is reported beside the figures (interval mining really runs at the set rate). In runs of
 * 2026-11-25 Hardhat stopped sending a subscription's notifications, without closing it,
 * about five minutes after it began (every later announcement was lost; a renewed one
 * fixed it), so it is renewed every minute; announcements are told apart
 * by block number, so the old and new subscription never announce one block twice.
 */
async function blockTimes(chain: Chain): Promise<{ next(timeoutMs?: number): Promise<void>; intervalP50(): number; missed(): number; stop(): void }> {
  const url = chain.rpcUrl.replace(/^http/, "ws");
  let waiting: Array<() => void> = [];
  let seen: number[] = [];
  let missed = 0;
  let stopped = false;
  let socket: WebSocket;
  const connect = async (): Promise<void> => {
    const ws = new WebSocket(url);
    // A subscription belongs to its connection: a new connection has none to end yet.
    subscription = null;
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as { id?: number; result?: string; method?: string; params?: { result?: { number?: string } } };
      if (m.id === 1 && typeof m.result === "string") {
        // A renewed subscription: the previous one is ended.
        if (subscription) ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "eth_unsubscribe", params: [subscription] }));
        subscription = m.result;
        return;
      }
      if (m.method !== "eth_subscription") return;
      const number = Number(m.params?.result?.number ?? -1);
      if (number <= lastBlock) return;
      lastBlock = number;
      seen.push(performance.now());
      const w = waiting;
      waiting = [];
      for (const r of w) r();
    });
    ws.on("close", () => {
      if (stopped) return;
      console.error("newHeads: the connection closed; subscribing again");
      void connect().catch((err: Error) => console.error(`newHeads: ${err.message}`));
    });
    ws.on("error", () => undefined);
    const subscribe = () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
    subscribe();
    clearInterval(renew);
    renew = setInterval(subscribe, 60_000);
    socket = ws;
  };
  let subscription: string | null = null;
  let lastBlock = -1;
  let renew: ReturnType<typeof setInterval> | undefined;
  await connect();
  return {
    // A block not announced within `timeoutMs` is counted and reported, rather than
    // stopping the bench for good.
    next: (timeoutMs = 10_000) =>
      new Promise<void>((r) => {
        const timer = setTimeout(() => {
          missed++;
          console.error(`newHeads: no block announced within ${timeoutMs} ms`);
          r();
        }, timeoutMs);
        waiting.push(() => {
          clearTimeout(timer);
          r();
        });
      }),
    missed: () => missed,
    intervalP50: () => {
      const gaps = seen.slice(1).map((t, i) => t - seen[i]!);
      seen = seen.slice(-1);
      return gaps.length ? percentile(gaps, 50) : Number.NaN;
    },
    stop: () => {
      stopped = true;
      clearInterval(renew);
      socket.terminate();
    },
  };
}

/** 40 concurrent payments split over `svcs`: how many were served, and each served payment with the instance that served it and its body. */
async function servedOf(svcs: Service[], chain: Chain): Promise<{ served: number; answers: Array<{ header: string; by: number; body: string }> }> {
  const headers = await signedHeaders(svcs[0]!, chain, 40);
  const results = await Promise.all(
    headers.map((h, i) => fetch(`${svcs[i % svcs.length]!.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": h } }).then(async (r) => ({ header: h, by: i % svcs.length, status: r.status, body: await r.text() }))),
  );
  const answers = results.filter((r) => r.status === 200);
  return { served: answers.length, answers };
}

/**
 * A served payment presented again on the other instance (issue 25: its kept answer, one
 * database read): latency of each re-presentation, one at a time, interleaved with a
 * free-key call of the same product on the same instance; every answer must be the
 * original body.
 */
async function replayBench(svcs: Service[], answers: Array<{ header: string; by: number; body: string }>): Promise<void> {
  const key = (await (await fetch(`${svcs[1]!.url}/v1/free-key`)).json()).api_key as string;
  const replayLat: number[] = [];
  const keyLat: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const a of answers) {
      const other = svcs[(a.by + 1) % svcs.length]!;
      keyLat.push(...(await timed(1, () => fetch(`${other.url}${PRODUCT}`, { headers: { "X-Api-Key": key } }))));
      const t0 = performance.now();
      const res = await fetch(`${other.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": a.header } });
      const body = await res.text();
      replayLat.push(performance.now() - t0);
      if (res.status !== 200 || body !== a.body) throw new Error(`a served payment presented again on the other instance answered ${res.status}, ${body === a.body ? "the same body" : "another body"}`);
    }
  }
  report("replay_other_instance_samples", replayLat.length);
  report("replay_other_instance_p50_ms", percentile(replayLat, 50));
  report("replay_other_instance_p99_ms", percentile(replayLat, 99));
  report("replay_other_instance_target_ms", 50);
  report("replay_vs_api_key_p50_ratio", percentile(replayLat, 50) / percentile(keyLat, 50));
}

async function settlementBench(chain: Chain, sim: Simulator): Promise<void> {
  if (!(await hasPostgres()) || !(await hasRedis())) {
    report("settlement_served_ratio_2_vs_1", "skipped (PostgreSQL and Redis needed)");
    return;
  }
  const shared = { DATABASE_URL: `${POSTGRES_URL}?schema=bench_settle_${randomBytes(4).toString("hex")}`, REDIS_URL, REDIS_KEY_PREFIX: `bench-${randomBytes(4).toString("hex")}` };
  try {
    await chain.setIntervalMining(2000);
    const one = await paymentService(chain, sim, shared);
    const two = await paymentService(chain, sim, shared);
    try {
      const single = (await servedOf([one], chain)).served;
      const double = await servedOf([one, two], chain);
      report("settlement_served_1_instance", single);
      report("settlement_served_2_instances", double.served);
      report("settlement_served_ratio_2_vs_1", double.served / single);
      await replayBench([one, two], double.answers);
    } finally {
      await two.stop();
      await one.stop();
    }
    // Both modes talk to the node over its WebSocket endpoint, the low-latency set-up the
    // docs/paying.md recommends; the optimistic ratio over HTTP is reported beside it.
    const ws = { ...shared, SETTLEMENT_RPC_URL: chain.rpcUrl.replace(/^http/, "ws") };
    const confirmed = await paymentService(chain, sim, { ...ws, X402_OPTIMISTIC_MAX_USD: "0" });
    const optimistic = await paymentService(chain, sim, { ...ws, X402_OPTIMISTIC_MAX_USD: "0.01", X402_OPTIMISTIC_PAYER_CAP_USD: "1000" });
    const optimisticHttp = await paymentService(chain, sim, { ...shared, X402_OPTIMISTIC_MAX_USD: "0.01", X402_OPTIMISTIC_PAYER_CAP_USD: "1000" });
    const blocks = await blockTimes(chain);
    try {
      const key = (await (await fetch(`${confirmed.url}/v1/free-key`)).json()).api_key as string;
      for (const blockMs of [2000, 200]) {
        await chain.setIntervalMining(blockMs);
        // Odd, so that the median sample is the one started in the middle stratum (with
        // stratified start points, below, an even count reports the upper of the two middle
        // values: half a stratum late, +25 ms at 2 s blocks). 81 at 2 s blocks: a call
        // started in the last ~15 ms before a block misses it (as a real caller's would), and
        // moves the median up by one whole stratum; with 41 strata of 49 ms that one draw
        // swung the reported p50 between ~995 and ~1065 ms from run to run (per-sample
        // profile: answer = 2010 ms - start point, every time), with 81 by half as much.
        const n = blockMs === 2000 ? 81 : 61;
        const conf = await signedHeaders(confirmed, chain, n + 2);
        const opt = await signedHeaders(optimistic, chain, n + 2);
        const optHttp = await signedHeaders(optimisticHttp, chain, n + 2);
        const keyConfLat: number[] = [];
        const keyOptLat: number[] = [];
        const keyOptHttpLat: number[] = [];
        const confLat: number[] = [];
        const optLat: number[] = [];
        const optHttpLat: number[] = [];
        await timed(2, (i) => fetch(`${confirmed.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": conf[i]! } }));
        await timed(2, (i) => fetch(`${optimistic.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": opt[i]! } }));
        await timed(2, (i) => fetch(`${optimisticHttp.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": optHttp[i]! } }));
        await blocks.next(3 * blockMs);
        // Callers arrive at any point of a block. A confirmed call's time is its own work
        // plus the wait for the next block, uniform over the interval: the median of 40
        // random start points has a standard deviation of about 160 ms at 2 s blocks (runs
        // gave 1087, 1143 and 1431 ms). So the start points are stratified instead: sample
        // i starts at a random point of the i-th n-th of the interval after a block is
        // announced (in shuffled order), the same distribution of waits with far less
        // sampling noise. A call starting too close to the next block for its transaction
        // to make it waits one more block, as a real caller would (with start points fixed
        // mid-stratum instead, no call would start that close at 2 s blocks, and the median
        // would leave out the service's own time before the send).
        const phases = strata(n, blockMs);
        // The free-key and optimistic calls likewise start at stratified points of the block
        // rather than right after one. Each iteration spends two blocks anyway (the confirmed
        // call returns just after a block, and the next one begins at the following block),
        // so the calls fit in the first before the second begins, at no cost in time. Taken
        // right after the confirmed call, as before 2026-11-25, every optimistic call met the
        // burst of work that follows each block (its own instance confirming the previous
        // payment, the node answering every instance's receipt looks): 1.54 at 2 s blocks in
        // one run, where a profiling script calling at random points gave 1.36-1.40.
        const CALLS_MS = 60;
        const callPhases = strata(n, blockMs - CALLS_MS);
        for (let i = 2; i < n + 2; i++) {
          await new Promise((r) => setTimeout(r, callPhases[i - 2]!));
          // The free-key baseline on each instance, so each mode is compared with a call to the same process.
          keyConfLat.push(...(await timed(1, () => fetch(`${confirmed.url}${PRODUCT}`, { headers: { "X-Api-Key": key } }))));
          // Which of a free-key and an optimistic call goes first alternates from sample to
          // sample. The first call to an instance after its idle stretch pays about 2-3 ms
          // more (profiling script, 150 pairs at 2 s blocks, 2026-11-25: free key 8.7-9.1 ms
          // first, 6.7 ms second; optimistic 12.8 ms first, 10.0-10.2 ms second), so a fixed
          // order gives its whole warm-up to one side: free key always first, as the bench did
          // until then, reported 1.25-1.27 where alternating gives 1.53-1.57 on the same code.
          const keyFirst = i % 2 === 0;
          const pairOn = async (url: string, payment: string, keyLat: number[], paidLat: number[]) => {
            const keyCall = async () => keyLat.push(...(await timed(1, () => fetch(`${url}${PRODUCT}`, { headers: { "X-Api-Key": key } }))));
            const paidCall = async () => paidLat.push(...(await timed(1, () => fetch(`${url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": payment } }))));
            for (const call of keyFirst ? [keyCall, paidCall] : [paidCall, keyCall]) await call();
          };
          await pairOn(optimistic.url, opt[i]!, keyOptLat, optLat);
          await pairOn(optimisticHttp.url, optHttp[i]!, keyOptHttpLat, optHttpLat);
          await blocks.next(3 * blockMs);
          if ((i - 1) % 20 === 0) console.error(`settlement at ${blockMs} ms blocks: ${i - 1} of ${n} samples`);
          await new Promise((r) => setTimeout(r, phases[i - 2]!));
          confLat.push(...(await timed(1, () => fetch(`${confirmed.url}${PRODUCT}`, { headers: { "PAYMENT-SIGNATURE": conf[i]! } }))));
        }
        const keyConf50 = percentile(keyConfLat, 50);
        const keyOpt50 = percentile(keyOptLat, 50);
        report(`settlement_${blockMs}ms_blocks_block_interval_p50_ms`, blocks.intervalP50());
        if (blocks.missed()) report(`settlement_${blockMs}ms_blocks_missed_block_notifications`, blocks.missed());
        report(`settlement_${blockMs}ms_blocks_key_p50_ms`, keyConf50);
        report(`settlement_${blockMs}ms_blocks_confirmed_p50_ms`, percentile(confLat, 50));
        report(`settlement_${blockMs}ms_blocks_confirmed_p90_ms`, percentile(confLat, 90));
        report(`settlement_${blockMs}ms_blocks_confirmed_p50_target_ms`, blockMs / 2 + 50);
        report(`settlement_${blockMs}ms_blocks_optimistic_instance_key_p50_ms`, keyOpt50);
        report(`settlement_${blockMs}ms_blocks_optimistic_p50_ms`, percentile(optLat, 50));
        report(`settlement_${blockMs}ms_blocks_optimistic_p90_ms`, percentile(optLat, 90));
        report(`settlement_${blockMs}ms_blocks_optimistic_vs_key_p50_ratio`, percentile(optLat, 50) / keyOpt50);
        report(`settlement_${blockMs}ms_blocks_optimistic_http_rpc_p50_ms`, percentile(optHttpLat, 50));
        report(`settlement_${blockMs}ms_blocks_optimistic_http_rpc_vs_key_p50_ratio`, percentile(optHttpLat, 50) / percentile(keyOptHttpLat, 50));
      }
    } finally {
      blocks.stop();
      await optimisticHttp.stop();
      await optimistic.stop();
      await confirmed.stop();
    }
  } finally {
    await chain.setIntervalMining(0);
  }
}
