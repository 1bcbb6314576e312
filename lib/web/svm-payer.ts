/**
 * A Solana browser wallet (Phantom, Solflare, Backpack...) as a payer, through the Wallet
 * Standard: wallets announce themselves (`@wallet-standard/app`'s registry), the page
 * connects one (`standard:connect`) and has it sign the payment transaction that
 * `@x402/svm`'s exact client scheme builds (`solana:signTransaction`; the service's
 * facilitator adds the fee payer's signature and sends it). Reads (the mint, a recent
 * blockhash, the payer's USDC balance) go through the same-origin relay
 * (lib/http/solana-relay.ts), so the page needs no RPC node of its own.
 */
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import {
  address,
  createSolanaRpc,
  getAddressEncoder,
  getProgramDerivedAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
  type TransactionPartialSigner,
} from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";

/** The relay the pages read Solana through. */
export const SOLANA_RELAY_PATH = "/api/solana-rpc";

const SIGN = "solana:signTransaction";
const CONNECT = "standard:connect";
const DISCONNECT = "standard:disconnect";

/** CAIP-2 Solana networks → the Wallet Standard's chain names. */
const CHAINS: Record<string, string> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "solana:mainnet",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "solana:devnet",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "solana:testnet",
};

/** The Wallet Standard chain of a CAIP-2 Solana network ("solana:mainnet"), or null. */
export function walletChain(network: string): string | null {
  return CHAINS[network] ?? null;
}

/** The Solana wallets the browser announces that can sign transactions on `chain`. */
export function solanaWallets(chain: string): Wallet[] {
  if (typeof window === "undefined") return [];
  return getWallets()
    .get()
    .filter((w) => CONNECT in w.features && SIGN in w.features && w.chains.includes(chain as `${string}:${string}`));
}

/** Calls `fn` whenever a wallet registers or leaves; returns the unsubscribe. */
export function onWalletsChanged(fn: () => void): () => void {
  if (typeof window === "undefined") return () => undefined;
  const api = getWallets();
  const a = api.on("register", fn);
  const b = api.on("unregister", fn);
  return () => {
    a();
    b();
  };
}

type ConnectFeature = { connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }> };
type DisconnectFeature = { disconnect(): Promise<void> };
type SignFeature = {
  signTransaction(...inputs: Array<{ account: WalletAccount; transaction: Uint8Array; chain?: string }>): Promise<ReadonlyArray<{ signedTransaction: Uint8Array }>>;
};

/** Connects `wallet`; returns its first account on `chain`. */
export async function connectSolana(wallet: Wallet, chain: string): Promise<WalletAccount> {
  const { accounts } = await (wallet.features[CONNECT] as ConnectFeature).connect();
  const account = accounts.find((a) => a.chains.includes(chain as `${string}:${string}`)) ?? accounts[0];
  if (!account) throw new Error(`${wallet.name} shared no account.`);
  return account;
}

export async function disconnectSolana(wallet: Wallet): Promise<void> {
  await (wallet.features[DISCONNECT] as DisconnectFeature | undefined)?.disconnect();
}

/** A @solana/kit signer whose signature the wallet makes (it sees the whole transaction, as it must to show it). */
export function walletSigner(wallet: Wallet, account: WalletAccount, chain: string): TransactionPartialSigner {
  const sign = wallet.features[SIGN] as SignFeature;
  const me = address(account.address);
  return {
    address: me,
    async signTransactions(transactions) {
      return Promise.all(
        transactions.map(async (tx) => {
          const [out] = await sign.signTransaction({ account, transaction: new Uint8Array(getTransactionEncoder().encode(tx)), chain });
          if (!out) throw new Error(`${wallet.name} returned no signed transaction.`);
          const signature = getTransactionDecoder().decode(out.signedTransaction).signatures[me];
          if (!signature) throw new Error(`${wallet.name} did not sign the payment.`);
          return Object.freeze({ [me]: signature });
        }),
      );
    },
  };
}

function relayUrl(): string {
  return `${window.location.origin}${SOLANA_RELAY_PATH}`;
}

/** `@x402/svm`'s exact client scheme over the wallet's signer, reading through the relay. */
export function svmScheme(signer: TransactionPartialSigner): ExactSvmScheme {
  return new ExactSvmScheme(signer, { rpcUrl: relayUrl() });
}

const ATA_PROGRAM = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

/** `owner`'s balance of the token `mint` in base units (0 when it holds no account of it). */
export async function splBalance(owner: string, mint: string): Promise<bigint> {
  const rpc = createSolanaRpc(relayUrl());
  const info = await rpc.getAccountInfo(address(mint), { encoding: "base64" }).send();
  if (!info.value) throw new Error(`the token mint ${mint} was not found`);
  const enc = getAddressEncoder();
  const [ata] = await getProgramDerivedAddress({ programAddress: ATA_PROGRAM, seeds: [enc.encode(address(owner)), enc.encode(info.value.owner), enc.encode(address(mint))] });
  const acct = await rpc.getAccountInfo(ata as Address, { encoding: "base64" }).send();
  if (!acct.value) return 0n;
  return BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount);
}
