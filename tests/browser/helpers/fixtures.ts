/**
 * The browser tests' `test`: `baseURL` points at the service the global setup started,
 * and a few helpers talk to it and to the chain directly (never through the page).
 */
import { test as base, expect } from "@playwright/test";
import { createPublicClient, http, parseAbi, type Address } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { BASE_USDC, localBase } from "../../helpers/chain";
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
}

export const test = base.extend<object, { svc: Service }>({
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
