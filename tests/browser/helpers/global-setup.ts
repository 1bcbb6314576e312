/**
 * Starts what the browser tests run against, once for all workers: the app build (when
 * stale; honours NEXT_DIST_DIR), a Hardhat chain with the EIP-3009 test USDC, and the
 * real service (offline upstream simulator, in-process facilitator settling on the
 * chain, admin token for the ledger view). Workers read the addresses from E2E_* env.
 */
import { randomBytes } from "node:crypto";
import { startChain } from "../../helpers/chain";
import { startService } from "../../helpers/service";
import { ACCOUNTS, FUNDED, FUNDED_USDC, type E2EEnv } from "./env";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const { ensureBuild } = (await import("../../../scripts/start.mjs")) as { ensureBuild: () => void };
  ensureBuild();
  const chain = await startChain();
  try {
    for (const i of FUNDED) await chain.mintUsdc(chain.accounts[i]!.address, FUNDED_USDC);
    const admin = `admin-${randomBytes(12).toString("hex")}`;
    const svc = await startService({
      env: {
        UPSTREAM_MODE: "simulated",
        PAY_TO_ADDRESS: chain.accounts[ACCOUNTS.payTo]!.address,
        FACILITATOR_PRIVATE_KEY: chain.privateKey(ACCOUNTS.facilitator),
        SETTLEMENT_RPC_URL: chain.rpcUrl,
        ADMIN_TOKEN: admin,
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
    };
    process.env.E2E_ENV = JSON.stringify(env);
    return async () => {
      await svc.stop();
      await chain.stop();
    };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}
