// GET /free-key — claim a free-tier API key and watch its daily quota.
import type { Metadata } from "next";
import { FreeKeyForm } from "@/app/free-key/free-key-form";
import { PRODUCTS } from "@/lib/catalog";
import { countOf } from "@/lib/catalog/format";
import { env } from "@/lib/config/env";
import { FREE_KEY, USAGE } from "@/lib/web/endpoints";
import { FREE_TOOLS } from "@/lib/catalog/free";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Free key" };

export default function FreeKeyPage() {
  const quota = env().FREE_KEY_DAILY_QUOTA;
  const covered = PRODUCTS.filter((p) => p.kind === "data" && p.freeTier).length;
  return (
    <>
      <h1>Free key</h1>
      <p className="lead">
        A free-tier API key gives {countOf(quota, "call")} per UTC day on {covered} standard endpoints. No account, no payment. Agents can mint one at{" "}
        <code>{FREE_KEY.path}</code> or with the MCP tool <code>{FREE_TOOLS.freeKey}</code>.
      </p>
      <FreeKeyForm freeKeyPath={FREE_KEY.path} usagePath={USAGE.path} />
    </>
  );
}
