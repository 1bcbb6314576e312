"use client";
// Wallet connection (wagmi, injected connector) and bundle purchase: 402 → the wallet
// signs the EIP-3009 authorization → PAYMENT-SIGNATURE → bundle token shown once.
import { useEffect, useState } from "react";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { WagmiProvider, useConnect, useConnection, useConnectors, useDisconnect, useSignTypedData, useSwitchChain } from "wagmi";
import type { Address } from "viem";
import type { ClientEvmSigner } from "@x402/evm";
import { CopyButton } from "@/app/components/copy-button";
import { formatCount } from "@/lib/catalog/format";
import { chainName, injectedProvider, makeWagmiConfig, TARGET_CHAIN } from "@/lib/web/wagmi";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import {
  explainPurchaseError,
  isUserRejection,
  PurchaseError,
  requestRequirement,
  submitPurchase,
  tokenBalance,
  signPayment,
  usdc,
  wrongNetworkMessage,
  type BundleResult,
} from "@/lib/web/x402-browser";

export interface BundleOffer {
  id: string;
  path: string;
  title: string;
  description: string;
  priceLabel: string;
  credits: number;
}

interface Props {
  offers: BundleOffer[];
  /** CAIP-2 network payments are taken on (X402_NETWORK). */
  network: string;
  usdcAddress: Address;
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
 * such as "wrong network" must not outlive a switch to Base, so it is shown only while
 * the wallet is still where it was (null: shown whatever happens, for a possibly settled
 * payment whose nonce the person needs). `reference` is that nonce.
 */
type Status = { tone: "info" | "error" | "success"; text: string; kind?: string; scope: string | null; reference?: string | null } | null;

function Wallet({ offers, network, usdcAddress }: Props) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const conn = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const sign = useSignTypedData();
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [bought, setBought] = useState<{ bundle: BundleResult; txHash: string | null; offer: BundleOffer } | null>(null);

  const targetId = evmChainId(network);
  const supported = targetId === TARGET_CHAIN.id;
  const address = conn.address;
  const connected = conn.isConnected && Boolean(address);
  const onTarget = connected && conn.chainId === TARGET_CHAIN.id;
  const scope = `${address ?? "none"}@${conn.chainId ?? "none"}`;
  const shownStatus = status && (status.scope === null || status.scope === scope) ? status : null;
  const wrongNetwork = wrongNetworkMessage(TARGET_CHAIN.name, "a bundle");

  const balance = useQuery({
    queryKey: ["usdc-balance", address, conn.chainId, usdcAddress],
    enabled: onTarget && Boolean(conn.connector),
    queryFn: async () => {
      const provider = (await conn.connector!.getProvider()) as Parameters<typeof tokenBalance>[0];
      return tokenBalance(provider, usdcAddress, address!);
    },
  });

  // EIP-6963 wallets announce themselves; the generic injected connector is the fallback.
  const announced = connectors.filter((c) => c.id !== "injected");
  const choices = announced.length ? announced : connectors.filter((c) => c.id === "injected");
  const hasWallet = mounted && (announced.length > 0 || Boolean(injectedProvider()));

  async function buy(offer: BundleOffer) {
    setBought(null);
    const say = (tone: "info" | "error" | "success", text: string, kind?: string) => setStatus({ tone, text, kind, scope });
    if (!connected || !address) return say("error", "Connect a wallet first. Nothing was charged.", "not_connected");
    if (!onTarget) return say("error", wrongNetwork, "wrong_network");
    setBusy(offer.id);
    try {
      say("info", "Requesting the payment terms…");
      const { envelope, accepted } = await requestRequirement(offer.path);
      if (evmChainId(accepted.network) !== conn.chainId) throw new PurchaseError("wrong_network", wrongNetwork);
      const provider = (await conn.connector!.getProvider()) as Parameters<typeof tokenBalance>[0];
      const held = await tokenBalance(provider, accepted.asset, address);
      if (held < BigInt(accepted.amount)) {
        throw new PurchaseError(
          "insufficient",
          `Insufficient USDC balance: this bundle costs ${usdc(accepted.amount)} USDC and the wallet holds ${usdc(held)} USDC. Nothing was charged.`,
        );
      }
      say("info", `Confirm the ${usdc(accepted.amount)} USDC payment in your wallet…`);
      // The official x402 client builds the authorization; the connected wallet signs it.
      const signer: ClientEvmSigner = { address, signTypedData: (m) => sign.mutateAsync({ account: address, ...m } as Parameters<typeof sign.mutateAsync>[0]) };
      const { header, nonce } = await signPayment(envelope, accepted, signer);
      say("info", `Settling the payment on ${TARGET_CHAIN.name}…`);
      const result = await submitPurchase(offer.path, header, nonce);
      setBought({ ...result, offer });
      say("success", `Bundle bought: ${formatCount(result.bundle.credits)} credits.`);
      void balance.refetch();
    } catch (err) {
      const e = explainPurchaseError(err);
      setStatus({ tone: "error", text: e.message, kind: e.kind, scope: e.reference ? null : scope, reference: e.reference });
      // A payment that may have moved money changes the balance shown.
      if (e.kind === "outcome_unknown" || e.kind === "settlement_failed") void balance.refetch();
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Wallet</h2>
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
                {!onTarget
                  ? `switch to ${TARGET_CHAIN.name} to see it`
                  : balance.isPending
                    ? "reading…"
                    : balance.isError
                      ? "could not be read"
                      : `${usdc(balance.data ?? 0n)} USDC`}
              </dd>
            </dl>
            {!onTarget ? (
              <div className="notice error stack" role="alert" data-testid="wrong-network">
                <p>
                  Wrong network: your wallet is on {chainName(conn.chainId ?? 0)}. Bundles are paid in USDC on {TARGET_CHAIN.name} (chain id {TARGET_CHAIN.id}).
                </p>
                <div>
                  <button type="button" onClick={() => switchChain.mutate({ chainId: TARGET_CHAIN.id })} disabled={switchChain.isPending}>
                    {switchChain.isPending ? "Switching…" : `Switch to ${TARGET_CHAIN.name}`}
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
            <p>Connect the wallet that holds your USDC on {TARGET_CHAIN.name}.</p>
            <div className="row">
              {choices.map((c) => (
                <button key={c.uid} type="button" onClick={() => connect.mutate({ connector: c })} disabled={connect.isPending}>
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
            No browser wallet found. Install a wallet extension (MetaMask, Coinbase Wallet, Rabby…) holding USDC on {TARGET_CHAIN.name} to buy here. Agents can buy the same bundles
            over HTTP or MCP, and a <a href="/free-key">free key</a> needs no wallet.
          </p>
        )}
      </section>

      {!supported ? (
        <p className="notice warn">
          This instance takes payments on {network}; this page pays on {TARGET_CHAIN.name} only. Use an x402 client for other networks.
        </p>
      ) : null}

      <section aria-labelledby="bundles-heading" className="stack">
        <h2 id="bundles-heading">Bundles</h2>
        <div className="grid">
          {offers.map((o) => {
            // A blocked button stays operable: pressing it says why instead of doing nothing.
            const blocked = !connected ? "Connect a wallet to buy." : !onTarget ? `Switch to ${TARGET_CHAIN.name} to buy.` : null;
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
                  <button
                    type="button"
                    onClick={() => buy(o)}
                    aria-describedby={blocked ? `${o.id}-blocked` : undefined}
                    disabled={busy !== null}
                  >
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
        <div aria-live="polite" role="status">
          {shownStatus ? (
            <div className={`notice ${shownStatus.tone} stack`} data-testid={shownStatus.tone === "error" ? "purchase-error" : "purchase-status"} data-kind={shownStatus.kind}>
              <p>{shownStatus.text}</p>
              {shownStatus.reference ? (
                <>
                  <p>
                    Authorization nonce:{" "}
                    <code className="secret" data-testid="purchase-nonce">
                      {shownStatus.reference}
                    </code>
                  </p>
                  <CopyButton value={shownStatus.reference} label="Copy nonce" />
                </>
              ) : null}
            </div>
          ) : null}
        </div>
      </section>

      {bought ? <Bought {...bought} /> : null}
    </div>
  );
}

function Bought({ bundle, txHash, offer }: { bundle: BundleResult; txHash: string | null; offer: BundleOffer }) {
  return (
    <section className="card stack" aria-labelledby="bought-heading" data-testid="bundle-bought">
      <h2 id="bought-heading">Your bundle token</h2>
      <p className="notice warn">Shown only once: copy it now. The service keeps only a hash and cannot show it again.</p>
      <div className="field">
        <label htmlFor="bundle-token">Bundle token ({offer.title})</label>
        <input id="bundle-token" readOnly value={bundle.bundle_token} data-testid="bundle-token" onFocus={(e) => e.currentTarget.select()} />
      </div>
      <CopyButton value={bundle.bundle_token} label="Copy token" className="button" />
      <dl className="facts">
        <dt>Credits</dt>
        <dd data-testid="bundle-credits">{formatCount(bundle.credits)}</dd>
        <dt>Bundle id</dt>
        <dd className="mono">{bundle.bundle_id}</dd>
        {txHash ? (
          <>
            <dt>Settlement</dt>
            <dd className="mono small" data-testid="bundle-tx">
              {txHash}
            </dd>
          </>
        ) : null}
      </dl>
      <p className="small">
        Use it as <code>X-Bundle-Token</code> over HTTP or as the <code>bundle_token</code> argument of an MCP tool. Follow its credits on the{" "}
        <a href="/usage">usage page</a>.
      </p>
    </section>
  );
}
