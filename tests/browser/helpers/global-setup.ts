/**
 * Starts what the browser tests run against, once for all workers: the app build (when
 * stale; honours NEXT_DIST_DIR), a Hardhat chain with the EIP-3009 test USDC, and the
 * real service (offline upstream simulator, in-process facilitator settling on the
 * chain, admin token for the ledger view), which also takes USDC on a local Solana ledger
 * (litesvm behind a loopback RPC, tests/helpers/solana.ts) with an in-process fee payer.
 * Payment calls time out after 8 s (PAYMENT_TIMEOUT_MS), so a chain that stops mining
 * for 25 s gets a `settlement_pending` answer first. Workers read the addresses from E2E_ENV.
 */
import { randomBytes } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { startChain } from "../../helpers/chain";
import { startService } from "../../helpers/service";
import { startSolana } from "../../helpers/solana";
import { ACCOUNTS, EXTRA_USDC, FUNDED, FUNDED_USDC, SOLANA_PAYER_USDC, type E2EEnv, type ExtraRole } from "./env";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const { ensureBuild } = (await import("../../../scripts/start.mjs")) as { ensureBuild: () => void };
  ensureBuild();
  const chain = await startChain();
  const sol = await startSolana();
  try {
    for (const i of FUNDED) await chain.mintUsdc(chain.accounts[i]!.address, FUNDED_USDC);
    const extra = {} as Record<ExtraRole, Hex>;
    for (const [role, usdc] of Object.entries(EXTRA_USDC) as Array<[ExtraRole, bigint]>) {
      extra[role] = generatePrivateKey();
      if (usdc > 0n) await chain.mintUsdc(privateKeyToAccount(extra[role]).address, usdc);
    }
    const [feePayer, payTo, payer, poor] = await Promise.all([sol.wallet(), sol.wallet(), sol.wallet(), sol.wallet()]);
    sol.fundSol(feePayer.address);
    sol.fundSol(payer.address);
    sol.fundSol(poor.address);
    await sol.setUsdc(payer.address, SOLANA_PAYER_USDC);
    await sol.setUsdc(poor.address, 0n);
    await sol.setUsdc(payTo.address, 0n);
    const admin = `admin-${randomBytes(12).toString("hex")}`;
    const svc = await startService({
      env: {
        UPSTREAM_MODE: "simulated",
        PAY_TO_ADDRESS: chain.accounts[ACCOUNTS.payTo]!.address,
        FACILITATOR_PRIVATE_KEY: chain.privateKey(ACCOUNTS.facilitator),
        SETTLEMENT_RPC_URL: chain.rpcUrl,
        ADMIN_TOKEN: admin,
        PAYMENT_TIMEOUT_MS: "8000",
        SOLANA_PAY_TO_ADDRESS: payTo.address,
        SOLANA_RPC_URL: sol.rpcUrl,
        SOLANA_FEE_PAYER_SECRET: feePayer.secret,
        FREE_KEY_MINTS_PER_HOUR: "1000",
        SAMPLE_LIMIT_PER_HOUR: "1000",
        LOG_LEVEL: "warn",
      },
    });
    const env: E2EEnv = {
      baseUrl: svc.url,
      rpcUrl: chain.rpcUrl,
      adminToken: admin,
      keys: chain.accounts.map((_, i) => chain.privateKey(i)),
      extra,
      solana: { rpcUrl: sol.rpcUrl, mint: sol.mint, payTo: payTo.address, payer: { address: payer.address, secret: payer.secret }, poor: { address: poor.address, secret: poor.secret } },
    };
    process.env.E2E_ENV = JSON.stringify(env);
    return async () => {
      await svc.stop();
      await chain.stop();
      await sol.stop();
    };
  } catch (err) {
    await chain.stop();
    await sol.stop();
    throw err;
  }
}
