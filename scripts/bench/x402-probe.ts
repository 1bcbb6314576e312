/**
 * A quick look at the first block of the payments bench (issue 29: an x402 call against a
 * free-key call of the same product on the same instance; confirmed mode, automine, HTTP
 * RPC, embedded database), without the rest of the section: the service, chain and
 * simulator started as paymentsBench starts them, the same round-robin (key, key, bundle,
 * bundle, x402), and each x402 call's Server-Timing phases. For iterating on the paid
 * path; the figures that count are `npm run bench -- payments`'s.
 *
 *   node --import tsx scripts/bench/x402-probe.ts [rounds=50] [repeats=1]
 *
 * PROBE_CPU_PROF=<dir> starts the service with --cpu-prof into that folder; PROBE_B="K=v,…"
 * starts a second instance with that environment, measured interleaved with the first.
 *
 * Keep rounds × repeats × instances under about 500 paid calls: a third repeat of 150 rounds
 * on two instances had a settlement revert (402 settlement_failed, the transfer no longer
 * simulating), most likely because the automining chain stamps each block at least one
 * second after the last, so with several blocks a second its clock runs ahead of the wall
 * clock past the 600 s that signAuthorization's authorizations are valid for.
 */
import { ensureBuild } from "../start.mjs";
import { ensureSidePackage } from "../side-package.mjs";
import { loadavg } from "node:os";
import { startSimulator } from "@/lib/upstream-sim/server";
import { startChain } from "../../tests/helpers/chain";
import { startService } from "../../tests/helpers/service";
import { signAuthorization, v2Header } from "../../tests/helpers/payments";

const PRODUCT = "/v1/fng";
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(url: string, headers: Record<string, string>): Promise<{ ms: number; timing: string }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`answered ${res.status}: ${body.slice(0, 600)}`);
  return { ms: performance.now() - t0, timing: res.headers.get("server-timing") ?? "" };
}

const phase = (timing: string, name: string) => Number(new RegExp(`${name}[^,]*dur=([0-9.]+)`).exec(timing)?.[1] ?? NaN);

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 50);
  const repeats = Number(process.argv[3] ?? 1);
  (ensureBuild as () => void)();
  ensureSidePackage("tests/clients");
  const sim = await startSimulator({ seed: 402 });
  const chain = await startChain();
  await chain.mintUsdc(chain.accounts[1]!.address, 1_000_000_000n);
  const prof = process.env.PROBE_CPU_PROF;
  // PROBE_B="NAME=value,…": a second instance with that environment (and a facilitator key
  // of its own), measured interleaved with the first: a paired comparison in one run.
  const variants: Array<{ name: string; env: Record<string, string>; key: number }> = [{ name: "A", env: {}, key: 0 }];
  if (process.env.PROBE_B) variants.push({ name: "B", env: Object.fromEntries(process.env.PROBE_B.split(",").map((kv) => kv.split("=") as [string, string])), key: 3 });
  const svcs = await Promise.all(
    variants.map((v) =>
      startService({
        env: {
          ...sim.env,
          LOG_LEVEL: "warn",
          PAY_TO_ADDRESS: chain.accounts[2]!.address,
          FACILITATOR_PRIVATE_KEY: chain.privateKey(v.key),
          SETTLEMENT_RPC_URL: chain.rpcUrl,
          FREE_KEY_DAILY_QUOTA: "100000000",
          ENTERPRISE_BUNDLE_CREDITS: "100000000",
          ...v.env,
        },
        ...(prof ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${prof}`] } : {}),
      }),
    ),
  );
  try {
    const payer = chain.accounts[1]!;
    const ctx = await Promise.all(
      svcs.map(async (svc) => {
        const key = (await (await fetch(`${svc.url}/v1/free-key`)).json()).api_key as string;
        const req = JSON.parse(Buffer.from((await fetch(`${svc.url}${PRODUCT}`)).headers.get("payment-required")!, "base64").toString()).accepts[0];
        const sign = async (n: number) => Promise.all(Array.from({ length: n }, async () => v2Header(req, await signAuthorization(payer, { to: req.payTo, value: BigInt(req.amount) }))));
        return { svc, key, sign };
      }),
    );
    for (const c of ctx) {
      for (let i = 0; i < 20; i++) await timed(`${c.svc.url}${PRODUCT}`, { "X-Api-Key": c.key });
      for (const h of await c.sign(5)) await timed(`${c.svc.url}${PRODUCT}`, { "PAYMENT-SIGNATURE": h });
    }
    for (let r = 0; r < repeats; r++) {
      const runs = await Promise.all(ctx.map(async (c) => ({ c, headers: await c.sign(rounds), keyLat: [] as number[], paid: [] as Array<{ ms: number; timing: string }> })));
      const load0 = loadavg()[0]!;
      for (let i = 0; i < rounds; i++) {
        // Which instance goes first alternates.
        for (const run of i % 2 === 0 ? runs : [...runs].reverse()) {
          const url = `${run.c.svc.url}${PRODUCT}`;
          for (let k = 0; k < 2; k++) run.keyLat.push((await timed(url, { "X-Api-Key": run.c.key })).ms);
          // The bench's bundle calls, as keys here: the same rhythm between paid calls.
          for (let k = 0; k < 2; k++) await timed(url, { "X-Api-Key": run.c.key });
          run.paid.push(await timed(url, { "PAYMENT-SIGNATURE": run.headers[i]! }));
        }
      }
      const load1 = loadavg()[0]!;
      if (runs.length === 2) {
        // Round by round, A's call minus B's (adjacent in time): the machine's drift cancels.
        const diff = (f: (r: (typeof runs)[number], i: number) => number) => p50(Array.from({ length: rounds }, (_, i) => f(runs[0]!, i) - f(runs[1]!, i))).toFixed(2);
        const phaseOf = (n: string) => (r: (typeof runs)[number], i: number) => phase(r.paid[i]!.timing, n);
        console.log(`paired A-B p50: x402 ${diff((r, i) => r.paid[i]!.ms)} ms, key ${diff((r, i) => r.keyLat[2 * i]!)} ms, verify ${diff(phaseOf("verify"))}, settle ${diff(phaseOf("settle"))}`);
      }
      for (const [i, run] of runs.entries()) {
        const k50 = p50(run.keyLat);
        const x50 = p50(run.paid.map((p) => p.ms));
        const ph = (n: string) => p50(run.paid.map((p) => phase(p.timing, n))).toFixed(2);
        console.log(
          `${variants[i]!.name}: key p50 ${k50.toFixed(2)} ms, x402 p50 ${x50.toFixed(2)} ms, ratio ${(x50 / k50).toFixed(3)}; x402 phases p50: verify ${ph("verify")}, handler ${ph("handler")}, settle ${ph("settle")}; load ${load0.toFixed(2)}→${load1.toFixed(2)}`,
        );
      }
    }
  } finally {
    await Promise.all(svcs.map((s) => s.stop()));
    await chain.stop();
    await sim.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
