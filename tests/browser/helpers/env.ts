/** What the global setup started, as seen from a test worker. */
import type { Hex } from "viem";

export interface E2EEnv {
  baseUrl: string;
  rpcUrl: string;
  adminToken: string;
  /** Private keys of the local chain's test accounts (Hardhat's public test mnemonic). */
  keys: Hex[];
  /** Fresh EVM accounts made at setup (no ETH: they only sign), by role, funded with EXTRA_USDC[role]. */
  extra: Record<ExtraRole, Hex>;
  /** The local Solana ledger (litesvm behind a loopback RPC) the service settles Solana payments on. */
  solana: { rpcUrl: string; mint: string; payTo: string; payer: { address: string; secret: string }; poor: { address: string; secret: string } };
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

/**
 * Accounts made fresh at setup for the flows added later, each paying from its own so
 * balances are exact, with the USDC each is given.
 */
export const EXTRA_USDC = {
  /** Buys the $25 enterprise bundle twice: on the wallet page and from its paywall. */
  enterprise: 60_000_000n,
  /** Its settlement waits 25 s for a block: the page must recover the bundle. */
  slowSettlement: FUNDED_USDC,
  /** Its answers are lost on the way back: the page presents the payment again. */
  lostAnswer: FUNDED_USDC,
  /** Buys the standard bundle from the /v1/bundle paywall. */
  bundlePaywall: FUNDED_USDC,
  /** Holds nothing: the paywall's insufficient-funds message, which a switch of account clears. */
  empty: 0n,
  /** Pays from the paywall at phone width. */
  phonePayer: FUNDED_USDC,
} as const;

export type ExtraRole = keyof typeof EXTRA_USDC;

/** USDC (6 decimals) the Solana payer holds: 5 USDC. */
export const SOLANA_PAYER_USDC = 5_000_000n;

export function e2eEnv(): E2EEnv {
  const raw = process.env.E2E_ENV;
  if (!raw) throw new Error("E2E_ENV is not set: run the browser tests with `npx playwright test` (the global setup starts the service)");
  return JSON.parse(raw) as E2EEnv;
}
