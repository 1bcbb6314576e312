// GET /catalog — every product of the catalog with prices, parameters and examples.
import type { Metadata } from "next";
import { CatalogBrowser } from "@/app/catalog/catalog-browser";
import { TryEndpoint } from "@/app/components/try-it";
import { PUBLIC_FREE_ENDPOINTS } from "@/lib/catalog/free";
import { catalogViews, freeToolViews } from "@/lib/web/catalog-view";
import { pageBaseUrl } from "@/lib/web/base-url";
import { ENDPOINT_PAGES } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Catalog" };

export default async function CatalogPage() {
  const base = await pageBaseUrl();
  const products = catalogViews(base);
  const freeTools = freeToolViews();
  return (
    <>
      <h1>Catalog</h1>
      <p className="lead">
        Every paid product with its HTTP price, MCP tool price and bundle credit cost. Pay per call with x402, spend credits of a bundle token, or use a free key on
        products marked “free key”.
      </p>
      <section aria-labelledby="products">
        <h2 id="products" className="visually-hidden">
          Products
        </h2>
        <CatalogBrowser products={products} />
      </section>
      <section className="section" aria-labelledby="free">
        <h2 id="free">Free endpoints</h2>
        <div className="grid">
          {PUBLIC_FREE_ENDPOINTS.map((e) => (
            <article className="card" key={e.path} data-testid="free-endpoint" data-path={e.path}>
              <h3>{e.title}</h3>
              <p className="path mono small">GET {e.path}</p>
              <p className="small">{e.description}</p>
              {ENDPOINT_PAGES[e.path] ? (
                <a href={ENDPOINT_PAGES[e.path]}>Open the {e.title.toLowerCase()} page</a>
              ) : (
                <TryEndpoint path={e.path} />
              )}
            </article>
          ))}
        </div>
      </section>
      <section className="section" aria-labelledby="free-tools">
        <h2 id="free-tools">Free MCP tools</h2>
        <p className="muted">
          Served at <code>{base}/mcp</code> with no payment and no credential.
        </p>
        <div className="grid">
          {freeTools.map((t) => (
            <article className="card" key={t.name} data-testid="free-tool" data-tool={t.name}>
              <h3>{t.title}</h3>
              <p className="path mono small">
                <code>{t.name}</code>
                {t.endpoint ? ` (same as GET ${t.endpoint})` : ""}
              </p>
              <p className="small">{t.description}</p>
            </article>
          ))}
        </div>
      </section>
    </>
  );
}
