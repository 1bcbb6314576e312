/**
 * An injected Solana test wallet speaking the Wallet Standard, as Phantom, Solflare or
 * Backpack do: registered before the page's scripts run (the `wallet-standard:register-
 * wallet` event, and again on the app's `wallet-standard:app-ready`), with
 * `standard:connect`, `standard:disconnect`, `standard:events` and
 * `solana:signTransaction`. The transaction the page asks it to sign is signed in the
 * test process with the payer's key (@solana/kit), so the page never holds a key.
 */
import type { Page } from "@playwright/test";
import { createKeyPairFromBytes, getBase58Encoder, getBase64Decoder, getBase64Encoder, getTransactionDecoder, getTransactionEncoder, partiallySignTransaction } from "@solana/kit";

export interface SolanaWalletOptions {
  /** Base58 64-byte secret key (seed ‖ public key). */
  secret: string;
  address: string;
  name?: string;
  /** Decline every signature request. */
  rejectSignatures?: boolean;
}

export interface SolanaTestWallet {
  name: string;
  /** Transactions signed (base64 wire format, as returned to the page). */
  signed: string[];
}

export async function installSolanaWallet(page: Page, o: SolanaWalletOptions): Promise<SolanaTestWallet> {
  const name = o.name ?? "E2E Solana Wallet";
  const wallet: SolanaTestWallet = { name, signed: [] };
  const keyPair = await createKeyPairFromBytes(new Uint8Array(getBase58Encoder().encode(o.secret)));

  await page.exposeFunction("__e2eSolanaSign", async (b64: string): Promise<{ result?: string; error?: string }> => {
    if (o.rejectSignatures) return { error: "User rejected the request." };
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(b64));
    if (!(o.address in tx.signatures)) return { error: "This transaction does not need this wallet's signature." };
    const signed = await partiallySignTransaction([keyPair], tx as Parameters<typeof partiallySignTransaction>[1]);
    const out = getBase64Decoder().decode(getTransactionEncoder().encode(signed));
    wallet.signed.push(out);
    return { result: out };
  });

  const publicKey = Array.from(getBase58Encoder().encode(o.address));
  await page.addInitScript(
    ({ address, publicKey, name }) => {
      type Listener = (props: unknown) => void;
      const w = window as unknown as { __e2eSolanaSign: (b64: string) => Promise<{ result?: string; error?: string }> };
      const chains = ["solana:mainnet"] as const;
      const listeners: Record<string, Listener[]> = {};
      const toB64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
      const fromB64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const account = { address, publicKey: new Uint8Array(publicKey), chains, features: ["solana:signTransaction"], label: "E2E" };
      const wallet = {
        version: "1.0.0" as const,
        name,
        icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=",
        chains,
        accounts: [] as (typeof account)[],
        features: {
          "standard:connect": {
            version: "1.0.0",
            connect: async () => {
              wallet.accounts = [account];
              (listeners.change ?? []).forEach((fn) => fn({ accounts: wallet.accounts }));
              return { accounts: wallet.accounts };
            },
          },
          "standard:disconnect": {
            version: "1.0.0",
            disconnect: async () => {
              wallet.accounts = [];
              (listeners.change ?? []).forEach((fn) => fn({ accounts: wallet.accounts }));
            },
          },
          "standard:events": {
            version: "1.0.0",
            on: (event: string, fn: Listener) => {
              (listeners[event] ??= []).push(fn);
              return () => {
                listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn);
              };
            },
          },
          "solana:signTransaction": {
            version: "1.0.0",
            supportedTransactionVersions: ["legacy", 0],
            signTransaction: async (...inputs: Array<{ account: { address: string }; transaction: Uint8Array }>) =>
              Promise.all(
                inputs.map(async (input) => {
                  if (input.account.address !== address) throw new Error("Unknown account.");
                  const answer = await w.__e2eSolanaSign(toB64(input.transaction));
                  if (answer.error) throw Object.assign(new Error(answer.error), { code: 4001 });
                  return { signedTransaction: fromB64(answer.result!) };
                }),
              ),
          },
        },
      };
      const register = ({ register }: { register: (wallet: unknown) => unknown }) => register(wallet);
      window.addEventListener("wallet-standard:app-ready", (e) => register((e as CustomEvent).detail));
      window.dispatchEvent(
        new (class extends Event {
          constructor() {
            super("wallet-standard:register-wallet", { bubbles: false, cancelable: false, composed: false });
          }
          get detail() {
            return register;
          }
        })(),
      );
    },
    { address: o.address, publicKey, name },
  );
  return wallet;
}
