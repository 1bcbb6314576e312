// GET /usage — credits or quota left and recent charged calls of one key or bundle.
import type { Metadata } from "next";
import { UsageForm } from "@/app/usage/usage-form";
import { productNames } from "@/lib/web/catalog-view";
import { USAGE } from "@/lib/web/endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Usage" };

export default function UsagePage() {
  return (
    <>
      <h1>Usage</h1>
      <p className="lead">
        Paste a bundle token or a free key to see the credits or daily quota it has left and its most recent charged calls. Agents read the same figures from{" "}
        <code>{USAGE.path}</code> with the credential in the <code>X-Bundle-Token</code> or <code>X-Api-Key</code> header.
      </p>
      <UsageForm usagePath={USAGE.path} names={productNames()} />
    </>
  );
}
