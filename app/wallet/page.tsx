// GET /wallet — connect a browser wallet and buy a prepaid bundle with an x402 payment.
import type { Metadata } from "next";
import { WalletApp, type BundleOffer } from "@/app/wallet/wallet-app";
import { usableFactsOf } from "@/lib/payments/methods/facts";
import { paymentFacts } from "@/lib/discovery/service";
import { networkName } from "@/lib/web/chain-name";
import { usdLabel } from "@/lib/payments/price";
import { bundleCredits, bundleProducts } from "@/lib/web/catalog-view";
import { USAGE } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Wallet & bundles" };

export default function WalletPage() {
  // The page pays with the EVM method's facts (network, token), as the 402 offers them.
  const evm = usableFactsOf("evm-exact");
  const offers: BundleOffer[] = bundleProducts().map((p) => ({
    id: p.id,
    path: p.path,
    title: p.title,
    description: p.description,
    priceLabel: usdLabel(p.httpPrice),
    credits: bundleCredits(p) ?? 0,
  }));
  if (!evm) {
    const others = paymentFacts().methods.map((m) => m.label);
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
  const chain = networkName(evm.network);
  return (
    <>
      <h1>Wallet &amp; bundles</h1>
      <p className="lead">
        Connect a browser wallet on {chain} and buy a prepaid bundle with {evm.asset.symbol}. Your wallet signs an x402 payment (an EIP-3009 transfer authorization for the
        exact price); the service settles it and shows the bundle token once. Nothing is charged when a purchase fails.
      </p>
      <WalletApp offers={offers} network={evm.network} usdcAddress={evm.asset.address as `0x${string}`} usagePath={USAGE.path} />
    </>
  );
}
