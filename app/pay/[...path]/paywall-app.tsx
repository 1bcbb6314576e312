"use client";
// The interactive paywall: connect a browser wallet (EVM through wagmi, Solana through the
// Wallet Standard), pay for one call of the paid URL (or buy the bundle it sells) with the
// official x402 client, capped at the price shown; or run the call with a bundle token or
// a free key. A pending settlement, a lost answer or a reload does not lose what was paid
// for: the signed payment is kept in this tab and presented again until the service answers.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { WagmiProvider, useConnect, useConnection, useConnectors, useSignTypedData, useSwitchChain } from "wagmi";
import { BundleToken, PaidData, PendingNotice, usePaymentResolution, type Paid } from "@/app/components/payment-progress";
import { useFocusOnShow } from "@/app/components/use-focus-on-show";
import { PayWithChoice, SolanaWalletPanel, useSolanaPayer, type SolanaTerms } from "@/app/components/solana-wallet";
import { chainName, injectedProvider, makeWagmiConfig, TARGET_CHAIN } from "@/lib/web/wagmi";
import { networkName } from "@/lib/web/chain-name";
import { evmChainId } from "@/lib/payments/x402/eip3009";
import { evmScheme, tokenBalance, type Eip1193 } from "@/lib/web/evm-payer";
import { isApiKeyShaped } from "@/lib/access/credentials";
import { evmOffer, explainPurchaseError, isUserRejection, PurchaseError, requestTerms, signPayment, usdc, wrongNetworkMessage, type BundleResult, type SignedPayment } from "@/lib/web/x402-browser";

interface Props {
  /** The paid URL's path and query, e.g. /v1/fng. */
  target: string;
  /** Its parameters are valid (the form above says what is missing otherwise). */
  ready: boolean;
  kind: "bundle" | "data";
  title: string;
  priceLabel: string;
  /** The price in USDC base units: the spending limit of the payment signed here. */
  priceAtomic: string;
  /** A free key covers it. */
  freeTier: boolean;
  evm: { network: string; usdcAddress: `0x${string}` } | null;
  solana: SolanaTerms | null;
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

/** A message about one wallet account and chain (`scope`): it goes when they change. Null scope: it stays. */
type Status = { tone: "info" | "error" | "success"; text: string; kind?: string; scope: string | null } | null;

function Paywall({ target, ready, kind, title, priceLabel, priceAtomic, freeTier, evm, solana }: Props) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const conn = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const switchChain = useSwitchChain();
  const sign = useSignTypedData();
  const sol = useSolanaPayer(solana);
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const [paid, setPaid] = useState<Paid | null>(null);
  const [payWith, setPayWith] = useState<"evm" | "svm">("evm");
  const walletHeading = useRef<HTMLHeadingElement>(null);

  const address = conn.address;
  const connected = conn.isConnected && Boolean(address);
  const onTarget = connected && conn.chainId === TARGET_CHAIN.id;
  const supported = evm !== null && evmChainId(evm.network) === TARGET_CHAIN.id;
  const solConnected = Boolean(sol.connected);
  const payer: "evm" | "svm" | null = connected && solConnected ? payWith : connected ? "evm" : solConnected ? "svm" : null;
  const scope = `${payer}:${payer === "svm" ? sol.connected?.account.address : `${address ?? "none"}@${conn.chainId ?? "none"}`}`;
  const shown = status && (status.scope === null || status.scope === scope) ? status : null;
  const announced = connectors.filter((c) => c.id !== "injected");
  const choices = announced.length ? announced : connectors.filter((c) => c.id === "injected");
  const hasWallet = mounted && (announced.length > 0 || Boolean(injectedProvider()));
  const what = kind === "bundle" ? "this bundle" : "this call";
  const current = chainName(conn.chainId ?? 0);

  const resolution = usePaymentResolution(
    (path) => path === target,
    (p) => {
      setPaid(p);
      setStatus({ tone: "success", text: kind === "bundle" ? "Paid. Your bundle token is below." : "Paid. The result of this call is below; opening the URL again asks for a new payment.", scope: null });
      void sol.refreshBalance();
    },
    (e) => setStatus({ tone: "error", text: e.message, kind: e.kind, scope: null }),
  );

  async function signEvm(): Promise<SignedPayment> {
    if (!address) throw new PurchaseError("error", "Connect a wallet first. Nothing was charged.");
    const envelope = await requestTerms(target);
    const accepted = evmOffer(envelope);
    if (evmChainId(accepted.network) !== conn.chainId) throw new PurchaseError("wrong_network", wrongNetworkMessage(networkName(accepted.network), what, current));
    const held = await tokenBalance((await conn.connector!.getProvider()) as Eip1193, accepted.asset, address);
    if (held < BigInt(accepted.amount)) {
      throw new PurchaseError("insufficient", `Insufficient USDC balance: ${what} costs ${usdc(accepted.amount)} USDC and the wallet holds ${usdc(held)} USDC on ${current}. Nothing was charged.`);
    }
    setStatus({ tone: "info", text: `Confirm the ${usdc(accepted.amount)} USDC payment in your wallet…`, scope });
    return signPayment(envelope, accepted, evmScheme(address, (m) => sign.mutateAsync({ account: address, ...m } as Parameters<typeof sign.mutateAsync>[0])), BigInt(priceAtomic));
  }

  async function pay() {
    setPaid(null);
    const say = (tone: "info" | "error" | "success", text: string, k?: string) => setStatus({ tone, text, kind: k, scope });
    if (!payer) return say("error", "Connect a wallet first. Nothing was charged.", "not_connected");
    if (payer === "evm" && !onTarget) return say("error", wrongNetworkMessage(TARGET_CHAIN.name, what, current), "wrong_network");
    setBusy(true);
    let signed: SignedPayment;
    try {
      say("info", "Requesting the payment terms…");
      signed = payer === "evm" ? await signEvm() : await sol.sign(target, BigInt(priceAtomic), what);
    } catch (err) {
      const e = explainPurchaseError(err);
      setBusy(false);
      return say("error", e.message, e.kind);
    }
    const net = networkName(signed.network);
    setStatus({ tone: "info", text: kind === "bundle" ? `Settling the payment on ${net}…` : `Settling the payment on ${net} and running the call…`, scope: null });
    try {
      await resolution.send({ ...signed, path: target, kind, label: kind === "bundle" ? `the ${title.toLowerCase()}` : `one call of ${target}`, networkName: net, signedAt: Date.now() });
    } finally {
      setBusy(false);
    }
  }

  function connectEvm(c: (typeof choices)[number]) {
    connect.mutate({ connector: c }, { onSuccess: () => (setPayWith("evm"), walletHeading.current?.focus()) });
  }

  const working = busy || resolution.sending;
  return (
    <div className="stack">
      {evm ? (
        <section className="card stack" aria-labelledby="paywall-heading" data-testid="paywall">
          <h2 id="paywall-heading" tabIndex={-1} ref={walletHeading}>
            Pay {priceLabel} with a browser wallet
          </h2>
          {!mounted ? (
            <p className="muted">Looking for a browser wallet…</p>
          ) : !supported ? (
            <p>This instance takes payments on {evm.network}, which this page cannot use.</p>
          ) : connected && address ? (
            <>
              <dl className="facts">
                <dt>Address</dt>
                <dd>
                  <code className="secret" data-testid="paywall-address">
                    {address}
                  </code>
                </dd>
                <dt>Network</dt>
                <dd data-testid="paywall-network">{conn.chainId ? chainName(conn.chainId) : "unknown"}</dd>
              </dl>
              {!onTarget ? (
                <div className="notice error stack" role="alert" data-testid="paywall-wrong-network">
                  <p>
                    Wrong network: your wallet is on {current}. This call is paid in USDC on {TARGET_CHAIN.name}.
                  </p>
                  <div>
                    <button type="button" onClick={() => switchChain.mutate({ chainId: TARGET_CHAIN.id })} disabled={switchChain.isPending}>
                      Switch to {TARGET_CHAIN.name}
                    </button>
                  </div>
                  {switchChain.error ? <p>{isUserRejection(switchChain.error) ? "Network switch rejected in the wallet." : `The wallet could not switch: ${switchChain.error.message.split("\n")[0]}`}</p> : null}
                </div>
              ) : null}
            </>
          ) : hasWallet ? (
            <div className="row">
              {choices.map((c) => (
                <button key={c.uid} type="button" onClick={() => connectEvm(c)} disabled={connect.isPending}>
                  {c.id === "injected" ? "Connect browser wallet" : `Connect ${c.name}`}
                </button>
              ))}
            </div>
          ) : (
            <p data-testid="paywall-no-wallet">
              No browser wallet was found for USDC on {TARGET_CHAIN.name}. Install one (for example a browser extension wallet) and reload
              {sol.available ? ", pay with a Solana wallet" : ""}
              {kind === "data" ? ", or run the call with a bundle token or a free key below" : ""}.
            </p>
          )}
          {connect.error ? (
            <p className="notice error" role="alert">
              {isUserRejection(connect.error) ? "Connection rejected in the wallet." : `Could not connect: ${connect.error.message.split("\n")[0]}`}
            </p>
          ) : null}
        </section>
      ) : null}

      <SolanaWalletPanel payer={sol} />

      {payer ? (
        <section className="card stack" aria-labelledby="pay-heading">
          <h2 id="pay-heading">{kind === "bundle" ? "Buy" : "Pay and run"}</h2>
          {connected && solConnected ? (
            <PayWithChoice value={payWith} onChange={setPayWith} evmName={TARGET_CHAIN.name} />
          ) : null}
          {!ready ? (
            <p className="notice info">Fill in the parameters above first: the call cannot run without them.</p>
          ) : payer === "evm" && !onTarget ? null : (
            <div>
              <button type="button" onClick={pay} disabled={working}>
                {working ? "Paying…" : kind === "bundle" ? `Pay ${priceLabel} and get the token` : `Pay ${priceLabel} and run the call`}
              </button>
            </div>
          )}
        </section>
      ) : null}

      <div aria-live="polite" className="stack">
        {resolution.pending ? <PendingNotice state={resolution.pending} onRetry={resolution.retryNow} busy={resolution.sending} /> : null}
        {shown && !resolution.pending ? (
          <p className={`notice ${shown.tone}`} role={shown.tone === "error" ? "alert" : "status"} data-testid="paywall-status" data-kind={shown.kind ?? ""}>
            {shown.text}
          </p>
        ) : null}
      </div>

      {paid ? (
        kind === "bundle" ? (
          <BundleToken bundle={paid.body as BundleResult} txHash={paid.txHash} title={title} recovered={paid.recovered} />
        ) : (
          <PaidData body={paid.body} txHash={paid.txHash} recovered={paid.recovered} />
        )
      ) : null}

      {kind === "data" ? <WithCredential target={target} ready={ready} freeTier={freeTier} /> : null}
    </div>
  );
}

/** The call run with a bundle token or a free key instead of a payment (sent only in a request header). */
function WithCredential({ target, ready, freeTier }: { target: string; ready: boolean; freeTier: boolean }) {
  const [credential, setCredential] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<unknown>(null);
  const heading = useFocusOnShow<HTMLHeadingElement>(result);
  async function run(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setResult(null);
    const c = credential.trim();
    if (!c) return setError("Paste a bundle token or a free key first.");
    setBusy(true);
    try {
      const res = await fetch(target, { headers: { Accept: "application/json", ...(isApiKeyShaped(c) ? { "X-Api-Key": c } : { "X-Bundle-Token": c }) }, cache: "no-store" });
      const body = (await res.json().catch(() => null)) as { error?: string | { message?: string }; detail?: Array<{ msg: string }> } | null;
      if (res.ok) setResult(body);
      else setError(typeof body?.error === "string" ? body.error : (body?.error?.message ?? body?.detail?.[0]?.msg ?? `The service answered HTTP ${res.status}.`));
    } catch {
      setError("Could not reach the service.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="card stack" aria-labelledby="credential-heading" data-testid="paywall-credential">
      <h2 id="credential-heading">Or use a bundle token or a free key</h2>
      <p className="small">
        No wallet? A <a href="/free-key">free key</a> {freeTier ? "covers this call" : "does not cover this call, but covers the standard endpoints"}; a bundle token (
        <a href="/wallet">wallet &amp; bundles</a>) pays for any call with its credits.
      </p>
      <form onSubmit={run} className="inline-form" aria-label="Run the call with a bundle token or a free key">
        <div className="field">
          <label htmlFor="paywall-credential-input">Bundle token or free key</label>
          <input id="paywall-credential-input" type="password" autoComplete="off" spellCheck={false} value={credential} onChange={(e) => setCredential(e.target.value)} />
        </div>
        <div>
          <button type="submit" className="secondary" disabled={busy || !ready}>
            {busy ? "Running…" : "Run the call with it"}
          </button>
        </div>
      </form>
      {error ? (
        <p className="notice error" role="alert" data-testid="credential-error">
          {error}
        </p>
      ) : null}
      {result ? (
        <div className="stack">
          <h3 id="credential-result-heading" tabIndex={-1} ref={heading}>
            Result
          </h3>
          <pre data-testid="credential-result" tabIndex={0} aria-label="Result of the call">
            {JSON.stringify(result, null, 2)}
          </pre>
        </div>
      ) : null}
    </section>
  );
}
