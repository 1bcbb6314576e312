/** What the global setup started, as seen from a test worker. */
import type { Hex } from "viem";

export interface E2EEnv {
  baseUrl: string;
  rpcUrl: string;
  adminToken: string;
  /** Private keys of the local chain's test accounts (Hardhat's public test mnemonic). */
  keys: Hex[];
}

/** Chain account roles; each test that pays uses its own account so balances are exact. */
export const ACCOUNTS = {
  facilitator: 0,
  payer: 1,
  payTo: 2,
  rejecter: 3,
  wrongNetwork: 4,
  poor: 5,
  viewer: 6,
  /** Its settlement is made to fail on chain after the service accepted the payment. */
  settleFails: 7,
  /** Its balance drops between the page's balance check and the service's verification. */
  drained: 8,
  /** Pays from the paywall page: its spec runs beside the wallet spec, so it has its own payer (the token minter at setup, nothing after). */
  paywallPayer: 9,
} as const;

/** Accounts the global setup funds with FUNDED_USDC. */
export const FUNDED = [ACCOUNTS.payer, ACCOUNTS.rejecter, ACCOUNTS.wrongNetwork, ACCOUNTS.settleFails, ACCOUNTS.drained, ACCOUNTS.paywallPayer] as const;

/** USDC (6 decimals) minted to each paying account: 1 USDC. */
export const FUNDED_USDC = 1_000_000n;

export function e2eEnv(): E2EEnv {
  const raw = process.env.E2E_ENV;
  if (!raw) throw new Error("E2E_ENV is not set: run the browser tests with `npx playwright test` (the global setup starts the service)");
  return JSON.parse(raw) as E2EEnv;
}
