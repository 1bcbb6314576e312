/**
 * A local chain plus the real service settling x402 payments on it through the
 * in-process facilitator (account 0 is the facilitator, account 1 a funded payer,
 * account 2 the pay-to), with the response cache off so every call runs its product.
 */
import type { HDAccount } from "viem/accounts";
import { startChain, type Chain } from "./chain";
import { startFixture, type Fixture } from "./fixture";

export interface PaidFixture {
  chain: Chain;
  fx: Fixture;
  payer: HDAccount;
  payTo: HDAccount;
}

export async function startPaidFixture(env: Record<string, string> = {}): Promise<PaidFixture> {
  const chain = await startChain();
  const payer = chain.accounts[1]!;
  const payTo = chain.accounts[2]!;
  try {
    await chain.mintUsdc(payer.address, 50_000_000n);
    const fx = await startFixture({
      env: { PAY_TO_ADDRESS: payTo.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: chain.rpcUrl, CACHE_DISABLED: "1", ...env },
    });
    return { chain, fx, payer, payTo };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}
