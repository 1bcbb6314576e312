"use client";
// Wallet connection (wagmi for EVM wallets, the Wallet Standard for Solana ones) and bundle
// purchase: 402 → the wallet signs the payment (capped at the price the person pressed)
// → PAYMENT-SIGNATURE, presented until the service answers for good → bundle token shown
// once. A pending settlement, a lost answer or a reload does not lose the bundle: the
// signed payment is kept in this tab and presented again (app/components/payment-progress.tsx).
import { useEffect, useRef, useState } from "react";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { WagmiProvider, useConnect, useConnection, useConnectors, useDisconnect, useSignTypedData, useSwitchChain } from "wagmi";
import type { Address } from "viem";
import { BundleToken, PendingNotice, usePaymentResolution, type Paid } from "@/app/components/payment-progress";
import { PayWithChoice, SolanaWalletPanel, useSolanaPayer, type SolanaTerms } from "@/app/components/solana-wallet";
import { formatCount } from "@/lib/catalog/format";
import { chainName, injectedProvider, makeWagmiConfig, TARGET_CHAIN } from "@/lib/web/wagmi";
import { networkName } from "@/lib/web/chain-name";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { evmScheme, tokenBalance, type Eip1193 } from "@/lib/web/evm-payer";
import { evmOffer, explainPurchaseError, isUserRejection, PurchaseError, requestTerms, signPayment, usdc, wrongNetworkMessage, type BundleResult, type SignedPayment } from "@/lib/web/x402-browser";

export interface BundleOffer {
  id: string;
  path: string;
  title: string;
  description: string;
  priceLabel: string;
  /** Price in USDC base units: the spending limit of the payment the page signs for it. */
  priceAtomic: string;
  credits: number;
}

interface Props {
  offers: BundleOffer[];
  /** The EVM payment terms (X402_NETWORK and its USDC), when this instance takes them. */
  evm: { network: string; usdcAddress: Address } | null;
  /** The Solana payment terms, when this instance takes them. */
  solana: SolanaTerms | null;
  usagePath: string;
}

export function WalletApp(props: Props) {
  const [config] = useState(() => makeWagmiConfig());
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <Wallet {...props} />
      </QueryClientProvider>
    </WagmiProvider>
  );
}

/**
 * A purchase message. `scope` is the wallet account and chain it was about: a message
 * such as "wrong network" must not outlive a switch of chain or account, so it is shown
 * only while the wallet is still where it was (null: shown whatever happens).
 */
type Status = { tone: "info" | "error" | "success"; text: string; kind?: string; scope: string | null } | null;

function Wallet({ offers, evm, solana }: Props) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const conn = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const sign = useSignTypedData();
  const sol = useSolanaPayer(solana);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [bought, setBought] = useState<Paid | null>(null);
  const [payWith, setPayWith] = useState<"evm" | "svm">("evm");
  // The connect button goes once connected: focus moves to the wallet's heading, not the page body.
  const walletHeading = useRef<HTMLHeadingElement>(null);

  const targetId = evm ? evmChainId(evm.network) : null;
  const supported = targetId === TARGET_CHAIN.id;
  const address = conn.address;
  const connected = conn.isConnected && Boolean(address);
  const onTarget = connected && conn.chainId === TARGET_CHAIN.id;
  const solConnected = Boolean(sol.connected);
  // The wallet that pays: the one connected, or the one chosen when both are.
  const payer: "evm" | "svm" | null = connected && solConnected ? payWith : connected ? "evm" : solConnected ? "svm" : null;
  const scope = `${payer}:${payer === "svm" ? sol.connected?.account.address : `${address ?? "none"}@${conn.chainId ?? "none"}`}`;
  const shownStatus = status && (status.scope === null || status.scope === scope) ? status : null;

  const balance = useQuery({
    queryKey: ["usdc-balance", address, conn.chainId, evm?.usdcAddress],
    enabled: onTarget && Boolean(conn.connector) && Boolean(evm),
    queryFn: async () => {
      const provider = (await conn.connector!.getProvider()) as Eip1193;
      return tokenBalance(provider, evm!.usdcAddress, address!);
    },
  });

  const resolution = usePaymentResolution(
    (path) => offers.some((o) => o.path === path),
    (paid) => {
      setBought(paid);
      const b = paid.body as BundleResult;
      setStatus({ tone: "success", text: `Bundle bought: ${formatCount(b.credits)} credits.`, scope: null });
      void balance.refetch();
      void sol.refreshBalance();
    },
    (e) => {
      setStatus({ tone: "error", text: e.message, kind: e.kind, scope: null });
      void balance.refetch();
      void sol.refreshBalance();
    },
  );

  // EIP-6963 wallets announce themselves; the generic injected connector is the fallback.
  const announced = connectors.filter((c) => c.id !== "injected");
  const choices = announced.length ? announced : connectors.filter((c) => c.id === "injected");
  const hasWallet = mounted && (announced.length > 0 || Boolean(injectedProvider()));
  const target = TARGET_CHAIN.name;

  async function signEvm(offer: BundleOffer): Promise<SignedPayment> {
    if (!onTarget || !address) throw new PurchaseError("wrong_network", wrongNetworkMessage(target, "a bundle", chainName(conn.chainId ?? 0)));
    const envelope = await requestTerms(offer.path);
    const accepted = evmOffer(envelope);
    if (evmChainId(accepted.network) !== conn.chainId) throw new PurchaseError("wrong_network", wrongNetworkMessage(networkName(accepted.network), "a bundle", chainName(conn.chainId ?? 0)));
    const provider = (await conn.connector!.getProvider()) as Eip1193;
    const held = await tokenBalance(provider, accepted.asset, address);
    if (held < BigInt(accepted.amount)) {
      throw new PurchaseError("insufficient", `Insufficient USDC balance: this bundle costs ${usdc(accepted.amount)} USDC and the wallet holds ${usdc(held)} USDC. Nothing was charged.`);
    }
    setStatus({ tone: "info", text: `Confirm the ${usdc(accepted.amount)} USDC payment in your wallet…`, scope });
    return signPayment(envelope, accepted, evmScheme(address, (m) => sign.mutateAsync({ account: address, ...m } as Parameters<typeof sign.mutateAsync>[0])), BigInt(offer.priceAtomic));
  }

  async function buy(offer: BundleOffer) {
    setBought(null);
    const say = (tone: "info" | "error" | "success", text: string, kind?: string) => setStatus({ tone, text, kind, scope });
    if (!payer) return say("error", "Connect a wallet first. Nothing was charged.", "not_connected");
    if (payer === "evm" && !onTarget) return say("error", wrongNetworkMessage(target, "a bundle", chainName(conn.chainId ?? 0)), "wrong_network");
    setBusy(offer.id);
    let signed: SignedPayment;
    try {
      say("info", "Requesting the payment terms…");
      signed = payer === "evm" ? await signEvm(offer) : await sol.sign(offer.path, BigInt(offer.priceAtomic), "this bundle");
    } catch (err) {
      const e = explainPurchaseError(err);
      setBusy(null);
      return say("error", e.message, e.kind);
    }
    const net = networkName(signed.network);
    setStatus({ tone: "info", text: `Settling the payment on ${net}…`, scope: null });
    try {
      await resolution.send({ ...signed, path: offer.path, kind: "bundle", label: offer.title, networkName: net, signedAt: Date.now() });
    } finally {
      setBusy(null);
    }
  }

  const working = busy !== null || resolution.sending;

  return (
    <div className="stack">
      {evm ? (
        <section className="card stack" aria-labelledby="wallet-heading">
          <h2 id="wallet-heading" tabIndex={-1} ref={walletHeading}>
            Wallet
          </h2>
          {!mounted ? (
            <p className="muted">Looking for a browser wallet…</p>
          ) : connected && address ? (
            <>
              <dl className="facts" data-testid="wallet-info">
                <dt>Address</dt>
                <dd className="mono" data-testid="wallet-address">
                  {address}
                </dd>
                <dt>Network</dt>
                <dd data-testid="wallet-network">
                  {chainName(conn.chainId ?? 0)} (chain id {conn.chainId})
                </dd>
                <dt>USDC balance</dt>
                <dd data-testid="wallet-balance">
                  {!onTarget ? `switch to ${target} to see it` : balance.isPending ? "reading…" : balance.isError ? "could not be read" : `${usdc(balance.data ?? 0n)} USDC`}
                </dd>
              </dl>
              {!onTarget ? (
                <div className="notice error stack" role="alert" data-testid="wrong-network">
                  <p>
                    Wrong network: your wallet is on {chainName(conn.chainId ?? 0)}. Bundles are paid in USDC on {target} (chain id {TARGET_CHAIN.id}).
                  </p>
                  <div>
                    <button type="button" onClick={() => switchChain.mutate({ chainId: TARGET_CHAIN.id })} disabled={switchChain.isPending}>
                      {switchChain.isPending ? "Switching…" : `Switch to ${target}`}
                    </button>
                  </div>
                  {switchChain.error ? (
                    <p>{isUserRejection(switchChain.error) ? "Network switch rejected in the wallet." : `The wallet could not switch: ${switchChain.error.message.split("\n")[0]}`}</p>
                  ) : null}
                </div>
              ) : null}
              <div>
                <button type="button" className="secondary" onClick={() => disconnect.mutate({})}>
                  Disconnect
                </button>
              </div>
            </>
          ) : hasWallet ? (
            <>
              <p>Connect the wallet that holds your USDC on {target}.</p>
              <div className="row">
                {choices.map((c) => (
                  <button
                    key={c.uid}
                    type="button"
                    onClick={() => connect.mutate({ connector: c }, { onSuccess: () => (setPayWith("evm"), walletHeading.current?.focus()) })}
                    disabled={connect.isPending}
                  >
                    {connect.isPending ? "Connecting…" : c.id === "injected" ? "Connect browser wallet" : `Connect ${c.name}`}
                  </button>
                ))}
              </div>
              {connect.error ? (
                <p className="notice error" role="alert">
                  {isUserRejection(connect.error) ? "Connection rejected in the wallet." : `Could not connect: ${connect.error.message.split("\n")[0]}`}
                </p>
              ) : null}
            </>
          ) : (
            <p className="notice info" data-testid="no-wallet">
              No browser wallet found. Install a wallet extension (MetaMask, Coinbase Wallet, Rabby…) holding USDC on {target} to buy here
              {solana ? ", or connect a Solana wallet below" : ""}. Agents can buy the same bundles over HTTP or MCP, and a <a href="/free-key">free key</a> needs no wallet.
            </p>
          )}
        </section>
      ) : null}

      {evm && !supported ? (
        <p className="notice warn">
          This instance takes payments on {evm.network}; this page pays on {target} only. Use an x402 client for other networks.
        </p>
      ) : null}

      <SolanaWalletPanel payer={sol} />

      <section aria-labelledby="bundles-heading" className="stack">
        <h2 id="bundles-heading">Bundles</h2>
        {connected && solConnected ? (
          <PayWithChoice value={payWith} onChange={setPayWith} evmName={target} />
        ) : null}
        <div className="grid">
          {offers.map((o) => {
            // A blocked button stays operable: pressing it says why instead of doing nothing.
            const blocked = !payer ? "Connect a wallet to buy." : payer === "evm" && !onTarget ? `Switch to ${target} to buy.` : null;
            return (
              <article className="card stack" key={o.id} data-testid="bundle-offer" data-path={o.path}>
                <h3>{o.title}</h3>
                <p className="small">{o.description}</p>
                <dl className="facts">
                  <dt>Price</dt>
                  <dd>{o.priceLabel}, paid in USDC</dd>
                  <dt>Credits</dt>
                  <dd data-testid="offer-credits">{formatCount(o.credits)}</dd>
                </dl>
                <div>
                  <button type="button" onClick={() => buy(o)} aria-describedby={blocked ? `${o.id}-blocked` : undefined} disabled={working}>
                    {busy === o.id ? "Working…" : `Buy for ${o.priceLabel}`}
                  </button>
                  {blocked ? (
                    <p className="hint small muted" id={`${o.id}-blocked`}>
                      {blocked}
                    </p>
                  ) : null}
                </div>
              </article>
            );
          })}
        </div>
        <div aria-live="polite" role="status" className="stack">
          {resolution.pending ? <PendingNotice state={resolution.pending} onRetry={resolution.retryNow} busy={resolution.sending} /> : null}
          {shownStatus && !resolution.pending ? (
            <div className={`notice ${shownStatus.tone} stack`} data-testid={shownStatus.tone === "error" ? "purchase-error" : "purchase-status"} data-kind={shownStatus.kind}>
              <p>{shownStatus.text}</p>
            </div>
          ) : null}
        </div>
      </section>

      {bought ? (
        <BundleToken bundle={bought.body as BundleResult} txHash={bought.txHash} title={offers.find((o) => o.path === bought.payment.path)?.title ?? bought.payment.label} recovered={bought.recovered} />
      ) : null}
    </div>
  );
}

