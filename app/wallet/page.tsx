// GET /wallet — connect a browser wallet (EVM or Solana) and buy a prepaid bundle with an x402 payment.
import type { Metadata } from "next";
import { WalletApp, type BundleOffer } from "@/app/wallet/wallet-app";
import { usableFactsOf } from "@/lib/payments/methods/facts";
import { paymentFacts } from "@/lib/discovery/service";
import { methodLabel } from "@/lib/web/chain-name";
import { usdLabel, usdToAtomic } from "@/lib/payments/price";
import { bundleCredits, bundleProducts } from "@/lib/web/catalog-view";
import { USAGE } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Wallet & bundles" };

export default function WalletPage() {
  // The page pays with the EVM and Solana methods' facts (network, token), as the 402 offers them.
  const evm = usableFactsOf("evm-exact");
  const svm = usableFactsOf("svm-exact");
  const offers: BundleOffer[] = bundleProducts().map((p) => ({
    id: p.id,
    path: p.path,
    title: p.title,
    description: p.description,
    priceLabel: usdLabel(p.httpPrice),
    priceAtomic: usdToAtomic(p.httpPrice).toString(),
    credits: bundleCredits(p) ?? 0,
  }));
  if (!evm && !svm) {
    const others = paymentFacts().methods.map((m) => methodLabel(m));
    return (
      <>
        <h1>Wallet &amp; bundles</h1>
        <p className="lead card" data-testid="wallet-no-evm">
          This instance does not take USDC payments from browser wallets, so bundles cannot be bought on this page.{" "}
          {others.length > 0
            ? `Agents can buy them over HTTP or MCP, paying with ${others.join(" or ")}.`
            : "It takes no per-call payment at all, so no bundle can be bought here; a bundle token bought earlier keeps working."}{" "}
          A <a href="/free-key">free key</a> needs no wallet.
        </p>
      </>
    );
  }
  const chains = [evm, svm].filter((m) => m !== null).map((m) => methodLabel(m));
  return (
    <>
      <h1>Wallet &amp; bundles</h1>
      <p className="lead">
        Connect a browser wallet and buy a prepaid bundle with {chains.join(" or ")}. Your wallet signs an x402 payment for the exact price you press, never more; the service
        settles it and shows the bundle token once. If the settlement is slow or the answer is lost, this page keeps the signed payment and presents it again until the
        service answers, so you are never charged twice.
      </p>
      <WalletApp
        offers={offers}
        evm={evm ? { network: evm.network, usdcAddress: evm.asset.address as `0x${string}` } : null}
        solana={svm ? { network: svm.network, mint: svm.asset.address } : null}
        usagePath={USAGE.path}
      />
    </>
  );
}
