// axe-core on every page and on the states issue 26 added (the paywall's parameter form
// and credential field, the bundle paywall, both wallets on the wallet page): 0
// violations of WCAG 2.x A/AA rules.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { installSolanaWallet } from "./helpers/solana-wallet";
import { ACCOUNTS } from "./helpers/env";

async function violations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return r.violations.map((v) => `${page.url()} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")})`);
}

test("every page, as a new visitor sees it, has 0 axe-core violations", async ({ page }) => {
  test.setTimeout(240_000);
  const found: string[] = [];
  for (const path of ["/", "/catalog", "/market", "/free-key", "/wallet", "/usage", "/pay/v1/quote", "/pay/v1/bundle", "/pay/v1/token-safety"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    found.push(...(await violations(page)));
  }
  expect(found).toEqual([]);
});

test("the wallet page and the paywall with an EVM and a Solana wallet connected have 0 axe-core violations", async ({ page, svc }) => {
  await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.viewer]!, rpcUrl: svc.env.rpcUrl });
  const sol = await installSolanaWallet(page, { secret: svc.env.solana.poor.secret, address: svc.env.solana.poor.address });
  test.setTimeout(120_000);
  const found: string[] = [];
  for (const path of ["/wallet", "/pay/v1/quote"]) {
    // A new visitor each time: wagmi would otherwise reconnect the wallet by itself.
    await page.evaluate(() => localStorage.clear()).catch(() => undefined);
    await page.goto(path);
    await page.getByRole("button", { name: "Connect browser wallet" }).click();
    await page.getByRole("button", { name: `Connect ${sol.name}` }).click();
    await expect(page.getByTestId("pay-with")).toBeVisible();
    found.push(...(await violations(page)));
  }
  expect(found).toEqual([]);
});
