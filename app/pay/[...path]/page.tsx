// GET /pay/v1/<product> — the paywall a browser lands on when it opens a paid URL: fill in
// the call's parameters, connect a wallet (EVM or Solana) and pay for one call (or buy the
// bundle the URL sells) with the official x402 client, or run it with a bundle token or a
// free key; see the result.
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PaywallApp } from "@/app/pay/[...path]/paywall-app";
import { productByPath } from "@/lib/catalog";
import { paramsSchema } from "@/lib/catalog/params";
import { validateOrThrow } from "@/lib/catalog/validate";
import { ValidationError } from "@/lib/errors";
import { usableFactsOf } from "@/lib/payments/methods/facts";
import { usdLabel, usdToAtomic } from "@/lib/payments/price";
import { bundleCredits, paramViews } from "@/lib/web/catalog-view";
import { formatCount } from "@/lib/catalog/format";
import { methodLabel } from "@/lib/web/chain-name";
import { PAYWALL_PREFIX } from "@/lib/web/pages";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Pay for a call", robots: { index: false } };

type Props = { params: Promise<{ path: string[] }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function PayPage({ params, searchParams }: Props) {
  const { path } = await params;
  const product = productByPath(`/${path.join("/")}`);
  if (!product) notFound();
  const fields = paramViews(product);
  // Empty fields of the form below mean "not given" (the call's defaults apply).
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of [v].flat()) if (one !== undefined && one !== "") query.append(k, one);
  const target = `${product.path}${query.size ? `?${query}` : ""}`;
  // The call's own validation, run here so the form shows what the API would answer 422 for.
  const errors = new Map<string, string>();
  if (fields.length) {
    try {
      validateOrThrow(paramsSchema(product.params), Object.fromEntries([...query.entries()].filter(([k]) => fields.some((f) => f.name === k))), "query");
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      for (const d of err.detail) errors.set(String(d.loc[1] ?? ""), d.msg);
    }
  }
  const evm = usableFactsOf("evm-exact");
  const svm = usableFactsOf("svm-exact");
  const bundle = product.kind === "bundle";
  const credits = bundle ? (bundleCredits(product) ?? 0) : 0;
  const price = usdLabel(product.httpPrice);
  const methods = [evm, svm].filter((m) => m !== null).map((m) => methodLabel(m));
  return (
    <>
      <h1>{bundle ? `Buy the ${product.title.toLowerCase()}` : "Payment required"}</h1>
      {bundle ? (
        <p className="lead" data-testid="paywall-offer">
          <strong>{formatCount(credits)} prepaid credits for {price}</strong>, paid once{methods.length ? ` with ${methods.join(" or ")}` : ""}. {product.description} The bundle
          token is shown once, on this page; spend its credits on any paid endpoint or MCP tool.
        </p>
      ) : (
        <p className="lead" data-testid="paywall-offer">
          <strong>{product.title}</strong> (<code>{target}</code>) costs {price} per call. {product.description}
        </p>
      )}
      {fields.length ? (
        <form method="get" action={`${PAYWALL_PREFIX}${product.path}`} className="card stack" aria-labelledby="params-heading" data-testid="paywall-params" noValidate>
          <h2 id="params-heading">Parameters</h2>
          {errors.size ? (
            <p className="notice error" role="alert" data-testid="params-error">
              Fill in the parameters below: the call cannot run without them.
            </p>
          ) : null}
          <div className="inline-form">
            {fields.map((f) => {
              const error = errors.get(f.name);
              const hint = [f.description, f.constraints, f.default !== null ? `default ${f.default}` : null].filter(Boolean).join("; ");
              return (
                <div className="field" key={f.name}>
                  <label htmlFor={`param-${f.name}`}>
                    {f.name}
                    {f.required ? " (required)" : ""}
                  </label>
                  <input
                    id={`param-${f.name}`}
                    name={f.name}
                    defaultValue={query.get(f.name) ?? ""}
                    placeholder={f.example ?? f.default ?? ""}
                    required={f.required}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={`param-${f.name}-hint${error ? ` param-${f.name}-error` : ""}`}
                  />
                  <p className="hint" id={`param-${f.name}-hint`}>
                    {hint}
                  </p>
                  {error ? (
                    <p className="notice error small" id={`param-${f.name}-error`}>
                      {error}
                    </p>
                  ) : null}
                </div>
              );
            })}
          </div>
          <div>
            <button type="submit" className="secondary">
              Use these parameters
            </button>
          </div>
        </form>
      ) : null}
      {!evm && !svm ? (
        <p className="card" data-testid="paywall-no-method">
          This instance does not take per-call payments from browser wallets. Pay with a prepaid bundle token (<a href="/wallet">wallet &amp; bundles</a>) or a free-tier API key (
          <a href="/free-key">free key</a>) sent as a header{bundle ? "" : ", or paste one below"}.
        </p>
      ) : null}
      <PaywallApp
        target={target}
        ready={errors.size === 0}
        kind={bundle ? "bundle" : "data"}
        title={product.title}
        priceLabel={price}
        priceAtomic={usdToAtomic(product.httpPrice).toString()}
        freeTier={product.freeTier}
        evm={evm ? { network: evm.network, usdcAddress: evm.asset.address as `0x${string}` } : null}
        solana={svm ? { network: svm.network, mint: svm.asset.address } : null}
      />
      <p className="muted">
        Agents get this call&apos;s payment requirement as JSON (HTTP 402 with <code>PAYMENT-REQUIRED</code>) and pay it with any x402 client; see the <a href="/catalog">catalog</a>.
      </p>
    </>
  );
}
