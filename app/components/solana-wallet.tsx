"use client";
// A Solana wallet on the wallet and paywall pages, through the Wallet Standard: the
// wallets the browser announces, connect and disconnect, the account's USDC balance, and
// the payment signed by the wallet with @x402/svm's client scheme (lib/web/svm-payer.ts).
import { useEffect, useState } from "react";
import { useFocusOnShow } from "@/app/components/use-focus-on-show";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import { connectSolana, disconnectSolana, onWalletsChanged, solanaWallets, splBalance, svmScheme, walletChain, walletSigner } from "@/lib/web/svm-payer";
import { isUserRejection, offerOn, PurchaseError, requestTerms, signPayment, usdc, type SignedPayment } from "@/lib/web/x402-browser";

export interface SolanaTerms {
  /** CAIP-2 network the service takes Solana payments on. */
  network: string;
  /** USDC mint. */
  mint: string;
}

export function useSolanaPayer(terms: SolanaTerms | null) {
  const chain = terms ? walletChain(terms.network) : null;
  const [wallets, setWallets] = useState<Wallet[]>([]);
  const [connected, setConnected] = useState<{ wallet: Wallet; account: WalletAccount } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [balance, setBalance] = useState<bigint | null | "error">(null);

  useEffect(() => {
    if (!chain) return;
    const read = () => setWallets(solanaWallets(chain));
    read();
    return onWalletsChanged(read);
  }, [chain]);

  async function refreshBalance(account = connected?.account) {
    if (!terms || !account) return;
    setBalance(null);
    try {
      setBalance(await splBalance(account.address, terms.mint));
    } catch {
      setBalance("error");
    }
  }

  async function connect(wallet: Wallet) {
    if (!chain) return;
    setError(null);
    setBusy(true);
    try {
      const account = await connectSolana(wallet, chain);
      setConnected({ wallet, account });
      void refreshBalance(account);
    } catch (err) {
      setError(isUserRejection(err) ? "Connection rejected in the wallet." : `Could not connect: ${(err as Error).message.split("\n")[0]}`);
    } finally {
      setBusy(false);
    }
  }

  async function disconnect() {
    if (!connected) return;
    await disconnectSolana(connected.wallet).catch(() => undefined);
    setConnected(null);
    setBalance(null);
  }

  /**
   * Signs the payment for `path` with the connected wallet, capped at `confirmed`
   * (atomic); checks the balance first. Throws a PurchaseError before anything is signed.
   */
  async function sign(path: string, confirmed: bigint, what: string): Promise<SignedPayment> {
    if (!terms || !chain || !connected) throw new PurchaseError("error", "Connect a Solana wallet first. Nothing was charged.");
    const envelope = await requestTerms(path);
    const accepted = offerOn(envelope, terms.network, "Solana wallets");
    const held = await splBalance(connected.account.address, accepted.asset).catch(() => {
      throw new PurchaseError("unavailable", "The Solana USDC balance could not be read. Nothing was charged.");
    });
    if (held < BigInt(accepted.amount)) {
      throw new PurchaseError("insufficient", `Insufficient USDC balance: ${what} costs ${usdc(accepted.amount)} USDC and the Solana wallet holds ${usdc(held)} USDC. Nothing was charged.`);
    }
    return signPayment(envelope, accepted, svmScheme(walletSigner(connected.wallet, connected.account, chain)), confirmed);
  }

  return { available: Boolean(chain), wallets, connected, error, busy, balance, connect, disconnect, sign, refreshBalance };
}

export type SolanaPayer = ReturnType<typeof useSolanaPayer>;

/** The Solana wallet's panel: its announced wallets to connect, or the connected account and balance. */
export function SolanaWalletPanel({ payer, headingLevel = 2 }: { payer: SolanaPayer; headingLevel?: 2 | 3 }) {
  const H = headingLevel === 2 ? "h2" : "h3";
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  // The connect buttons go once connected: focus moves to the panel's heading.
  const heading = useFocusOnShow<HTMLHeadingElement>(payer.connected);
  if (!payer.available) return null;
  return (
    <section className="card stack" aria-labelledby="solana-heading" data-testid="solana-wallet">
      <H id="solana-heading" tabIndex={-1} ref={heading}>
        Solana wallet
      </H>
      {!mounted ? (
        <p className="muted">Looking for a Solana wallet…</p>
      ) : payer.connected ? (
        <>
          <dl className="facts">
            <dt>Wallet</dt>
            <dd>{payer.connected.wallet.name}</dd>
            <dt>Address</dt>
            <dd className="mono" data-testid="solana-address">
              {payer.connected.account.address}
            </dd>
            <dt>USDC balance</dt>
            <dd data-testid="solana-balance">{payer.balance === null ? "reading…" : payer.balance === "error" ? "could not be read" : `${usdc(payer.balance)} USDC`}</dd>
          </dl>
          <div>
            <button type="button" className="secondary" onClick={() => void payer.disconnect()}>
              Disconnect Solana wallet
            </button>
          </div>
        </>
      ) : payer.wallets.length ? (
        <>
          <p>Pay with USDC on Solana from a wallet such as Phantom, Solflare or Backpack.</p>
          <div className="row">
            {payer.wallets.map((w) => (
              <button key={w.name} type="button" onClick={() => void payer.connect(w)} disabled={payer.busy}>
                Connect {w.name}
              </button>
            ))}
          </div>
        </>
      ) : (
        <p className="muted" data-testid="no-solana-wallet">
          No Solana wallet found. A Wallet Standard wallet (Phantom, Solflare, Backpack…) holding USDC on Solana can pay here too.
        </p>
      )}
      {payer.error ? (
        <p className="notice error" role="alert">
          {payer.error}
        </p>
      ) : null}
    </section>
  );
}

/** With an EVM and a Solana wallet both connected: which one pays. */
export function PayWithChoice({ value, onChange, evmName }: { value: "evm" | "svm"; onChange: (v: "evm" | "svm") => void; evmName: string }) {
  return (
    <fieldset className="row" data-testid="pay-with">
      <legend>Pay with</legend>
      <label className="inline">
        <input type="radio" name="pay-with" checked={value === "evm"} onChange={() => onChange("evm")} /> USDC on {evmName}
      </label>
      <label className="inline">
        <input type="radio" name="pay-with" checked={value === "svm"} onChange={() => onChange("svm")} /> USDC on Solana
      </label>
    </fieldset>
  );
}
