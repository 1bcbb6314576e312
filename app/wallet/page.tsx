// GET /wallet — connect a browser wallet and buy a prepaid bundle with an x402 payment.
import type { Metadata } from "next";
import { WalletApp, type BundleOffer } from "@/app/wallet/wallet-app";
import { env } from "@/lib/config/env";
import { usdLabel } from "@/lib/payments/price";
import { bundleCredits, bundleProducts } from "@/lib/web/catalog-view";
import { USAGE } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Wallet & bundles" };

export default function WalletPage() {
  const cfg = env();
  const offers: BundleOffer[] = bundleProducts().map((p) => ({
    id: p.id,
    path: p.path,
    title: p.title,
    description: p.description,
    priceLabel: usdLabel(p.httpPrice),
    credits: bundleCredits(p) ?? 0,
  }));
  return (
    <>
      <h1>Wallet &amp; bundles</h1>
      <p className="lead">
        Connect a browser wallet on Base and buy a prepaid bundle with USDC. Your wallet signs an x402 payment (an EIP-3009 transfer authorization for the exact
        price); the service settles it and shows the bundle token once. Nothing is charged when a purchase fails.
      </p>
      <WalletApp offers={offers} network={cfg.X402_NETWORK} usdcAddress={cfg.USDC_ADDRESS as `0x${string}`} usagePath={USAGE.path} />
    </>
  );
}
