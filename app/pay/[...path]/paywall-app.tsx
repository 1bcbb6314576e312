"use client";
// The interactive paywall: connect a browser wallet (on the wagmi target chain), pay for one call of the paid
// URL with the official x402 client (the same code as the wallet page), show the answer.
import { useEffect, useState } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { WagmiProvider, useConnect, useConnection, useConnectors, useSignTypedData, useSwitchChain } from "wagmi";
import type { ClientEvmSigner } from "@x402/evm";
import { chainName, injectedProvider, makeWagmiConfig, TARGET_CHAIN } from "@/lib/web/wagmi";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { explainPurchaseError, PurchaseError, requestRequirement, signPayment, submitPayment, tokenBalance, usdc, wrongNetworkMessage } from "@/lib/web/x402-browser";

interface Props {
  /** The paid URL's path and query, e.g. /v1/fng. */
  target: string;
  priceLabel: string;
  network: string;
  usdcAddress: `0x${string}`;
}

export function PaywallApp(props: Props) {
  const [config] = useState(() => makeWagmiConfig());
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }));
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <Paywall {...props} />
      </QueryClientProvider>
    </WagmiProvider>
  );
}

type Status = { tone: "info" | "error" | "success"; text: string; kind?: string; reference?: string | null } | null;
const isJson = (b: unknown): b is Record<string, unknown> => typeof b === "object" && b !== null;

function Paywall({ target, priceLabel, network }: Props) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const conn = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const switchChain = useSwitchChain();
  const sign = useSignTypedData();
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ body: Record<string, unknown>; txHash: string | null } | null>(null);

  const address = conn.address;
  const connected = conn.isConnected && Boolean(address);
  const onTarget = connected && conn.chainId === TARGET_CHAIN.id;
  const supported = evmChainId(network) === TARGET_CHAIN.id;
  const announced = connectors.filter((c) => c.id !== "injected");
  const choices = announced.length ? announced : connectors.filter((c) => c.id === "injected");
  const hasWallet = mounted && (announced.length > 0 || Boolean(injectedProvider()));
  const wrongNetwork = wrongNetworkMessage(TARGET_CHAIN.name, "this call");

  async function pay() {
    setResult(null);
    const say = (tone: "info" | "error" | "success", text: string, kind?: string) => setStatus({ tone, text, kind });
    if (!connected || !address) return say("error", "Connect a wallet first. Nothing was charged.", "not_connected");
    if (!onTarget) return say("error", wrongNetwork, "wrong_network");
    setBusy(true);
    try {
      say("info", "Requesting the payment terms…");
      const { envelope, accepted } = await requestRequirement(target);
      if (evmChainId(accepted.network) !== conn.chainId) throw new PurchaseError("wrong_network", wrongNetwork);
      const provider = (await conn.connector!.getProvider()) as Parameters<typeof tokenBalance>[0];
      const held = await tokenBalance(provider, accepted.asset, address);
      if (held < BigInt(accepted.amount)) {
        throw new PurchaseError("insufficient", `Insufficient USDC balance: this call costs ${usdc(accepted.amount)} USDC and the wallet holds ${usdc(held)} USDC. Nothing was charged.`);
      }
      say("info", `Confirm the ${usdc(accepted.amount)} USDC payment in your wallet…`);
      const signer: ClientEvmSigner = { address, signTypedData: (m) => sign.mutateAsync({ account: address, ...m } as Parameters<typeof sign.mutateAsync>[0]) };
      const { header, nonce } = await signPayment(envelope, accepted, signer);
      say("info", "Settling the payment and running the call…");
      const paid = await submitPayment(target, header, nonce, isJson, "the call answered");
      setResult(paid);
      say("success", "Paid. The result of this call is below; opening the URL again asks for a new payment.");
    } catch (err) {
      const e = explainPurchaseError(err);
      setStatus({ tone: "error", text: e.message, kind: e.kind, reference: e.reference });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card stack" aria-labelledby="paywall-heading" data-testid="paywall">
      <h2 id="paywall-heading">Pay {priceLabel} with a browser wallet</h2>
      {!mounted ? (
        <p className="muted">Looking for a browser wallet…</p>
      ) : !supported ? (
        <p>This instance takes payments on {network}, which this page cannot use.</p>
      ) : connected && address ? (
        <>
          <dl className="facts">
            <dt>Address</dt>
            <dd>
              <code data-testid="paywall-address">{address}</code>
            </dd>
            <dt>Network</dt>
            <dd data-testid="paywall-network">{conn.chainId ? chainName(conn.chainId) : "unknown"}</dd>
          </dl>
          {!onTarget ? (
            <button type="button" onClick={() => switchChain.mutate({ chainId: TARGET_CHAIN.id })}>
              Switch to {TARGET_CHAIN.name}
            </button>
          ) : (
            <button type="button" onClick={pay} disabled={busy}>
              {busy ? "Paying…" : `Pay ${priceLabel} and run the call`}
            </button>
          )}
        </>
      ) : hasWallet ? (
        choices.map((c) => (
          <button key={c.uid} type="button" onClick={() => connect.mutate({ connector: c })}>
            Connect browser wallet
          </button>
        ))
      ) : (
        <p>No browser wallet was found. Install one (for example a browser extension wallet) and reload, or pay with a bundle token or a free key.</p>
      )}
      {status ? (
        <p className={`status ${status.tone}`} role={status.tone === "error" ? "alert" : "status"} data-testid="paywall-status" data-kind={status.kind ?? ""}>
          {status.text}
          {status.reference ? (
            <>
              {" "}
              <code data-testid="paywall-nonce">{status.reference}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {result ? (
        <div className="stack">
          {result.txHash ? (
            <p>
              Settlement transaction: <code data-testid="paywall-tx">{result.txHash}</code>
            </p>
          ) : null}
          <pre data-testid="paywall-result" className="json">
            {JSON.stringify(result.body, null, 2)}
          </pre>
        </div>
      ) : null}
    </section>
  );
}
