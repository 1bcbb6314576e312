/**
 * The browser tests' `test`: `baseURL` points at the service the global setup started,
 * and a few helpers talk to it and to the chains directly (never through the page).
 *
 * Every test's `page` is watched for Content-Security-Policy violations (the console
 * messages Chromium prints for them, and the `securitypolicyviolation` events, which the
 * page reports to the console): a test that saw one fails, so the whole suite passing
 * means 0 CSP violations across all browser tests.
 */
import { test as base, expect } from "@playwright/test";
import { createPublicClient, http, parseAbi, type Address } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { BASE_USDC, localBase } from "../../helpers/chain";
import { ataOf } from "../../helpers/solana";
import { e2eEnv, type E2EEnv } from "./env";

const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"]);

export interface ManifestEndpoint {
  path: string;
  title: string;
  tags: string[];
  price_usd: string;
  price_atomic: string;
  credits: number;
  free_tier: boolean;
  tool: { name: string; price_usd: string } | null;
  params: Array<{ name: string; required: boolean }>;
}

export interface Service {
  env: E2EEnv;
  account(index: number): PrivateKeyAccount;
  usdcBalance(address: Address): Promise<bigint>;
  manifest(): Promise<ManifestEndpoint[]>;
  /** Ledger counts from the admin-only debug view. */
  bundleCount(): Promise<number>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** `owner`'s USDC on the local Solana ledger (base units; 0 without a token account). */
  solanaUsdc(owner: string): Promise<bigint>;
}

/** Console text of a CSP violation (Chromium's own wording, and the page's report of the event). */
const CSP_TEXT = /Content Security Policy|CSP violation/i;

export const test = base.extend<{ cspViolations: string[] }, { svc: Service }>({
  cspViolations: async ({}, use) => {
    await use([]);
  },
  page: async ({ page, cspViolations }, use) => {
    page.on("console", (m) => {
      if (CSP_TEXT.test(m.text())) cspViolations.push(`${page.url()}: ${m.text().slice(0, 300)}`);
    });
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
    });
    await use(page);
    expect(cspViolations, "Content-Security-Policy violations in the console").toEqual([]);
  },
  svc: [
    async ({}, use) => {
      const env = e2eEnv();
      const chain = createPublicClient({ chain: localBase(env.rpcUrl), transport: http(env.rpcUrl, { retryCount: 0 }) });
      const get = (path: string, headers: Record<string, string> = {}) => fetch(env.baseUrl + path, { headers });
      await use({
        env,
        account: (i) => privateKeyToAccount(env.keys[i]!),
        usdcBalance: (address) => chain.readContract({ address: BASE_USDC, abi: erc20, functionName: "balanceOf", args: [address] }),
        manifest: async () => ((await (await get("/v1/manifest")).json()) as { endpoints: ManifestEndpoint[] }).endpoints,
        bundleCount: async () => {
          const res = await get("/v1/bundles/debug", { Authorization: `Bearer ${env.adminToken}` });
          expect(res.status).toBe(200);
          return ((await res.json()) as { bundles: { count: number } }).bundles.count;
        },
        get,
        solanaUsdc: async (owner) => {
          const ata = await ataOf(owner, env.solana.mint);
          const res = await fetch(env.solana.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getTokenAccountBalance", params: [ata] }) });
          const body = (await res.json()) as { result?: { value: { amount: string } }; error?: unknown };
          return body.result ? BigInt(body.result.value.amount) : 0n;
        },
      });
    },
    { scope: "worker" },
  ],
  baseURL: async ({}, use) => {
    await use(e2eEnv().baseUrl);
  },
});

export { expect };

/** "0.005000" → "$0.005", "25.000000" → "$25.00" (how the pages write prices). */
export function usdText(usd6: string): string {
  const [w, f = ""] = usd6.split(".");
  return `$${w}.${f.replace(/0+$/, "").padEnd(2, "0")}`;
}
