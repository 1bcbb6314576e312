// GET /pay/v1/<product> — the paywall a browser lands on when it opens a paid URL: connect
// a wallet, pay for one call with the official x402 client, see the result.
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PaywallApp } from "@/app/pay/[...path]/paywall-app";
import { productByPath } from "@/lib/catalog";
import { usableFactsOf } from "@/lib/payments/methods/facts";
import { usdLabel } from "@/lib/payments/price";
import { FREE_KEY } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Pay for a call", robots: { index: false } };

type Props = { params: Promise<{ path: string[] }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function PayPage({ params, searchParams }: Props) {
  const { path } = await params;
  const product = productByPath(`/${path.join("/")}`);
  if (!product) notFound();
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of [v].flat()) if (one !== undefined) query.append(k, one);
  const target = `${product.path}${query.size ? `?${query}` : ""}`;
  // The paywall pays with the EVM method's facts (network, token), as the 402 offers them.
  const evm = usableFactsOf("evm-exact");
  return (
    <>
      <h1>Payment required</h1>
      <p className="lead">
        <strong>{product.title}</strong> (<code>{target}</code>) costs {usdLabel(product.httpPrice)} per call. {product.description}
      </p>
      {evm ? (
        <PaywallApp target={target} priceLabel={usdLabel(product.httpPrice)} network={evm.network} usdcAddress={evm.asset.address as `0x${string}`} />
      ) : (
        <p className="card" data-testid="paywall-no-wallet">
          This instance does not take per-call payments from browser wallets. Pay with a prepaid bundle token (<a href="/wallet">wallet &amp; bundles</a>) or a free-tier API key (
          <a href="/free-key">free key</a>, or <code>{FREE_KEY.path}</code>) sent as a header.
        </p>
      )}
      <p className="muted">
        Agents get this call&apos;s payment requirement as JSON (HTTP 402 with <code>PAYMENT-REQUIRED</code>) and pay it with any x402 client; see the <a href="/catalog">catalog</a>.
      </p>
    </>
  );
}
