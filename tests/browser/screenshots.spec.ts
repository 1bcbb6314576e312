// Full-page screenshots of every page at the project's width (desktop and phone), kept as
// artifacts: artifacts/screenshots/<page>[-<state>]-<desktop|phone>.png. Each screenshot
// also checks the layout fits the width (snap → expectFitsWidth): no page scroll, and no
// element clipped or spilling unless it is a keyboard-reachable, named scroll region.
// States reached through a purchase or a key claim are photographed by wallet.spec.ts and
// free-key.spec.ts at both widths.
import { test, expect } from "./helpers/fixtures";
import { snap } from "./helpers/snap";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS } from "./helpers/env";

const SHOTS: Array<{ name: string; path: string; ready: string }> = [
  { name: "home", path: "/", ready: '[data-testid="live-sentiment"]' },
  { name: "catalog", path: "/catalog", ready: '[data-testid="product"]' },
  { name: "market", path: "/market", ready: "svg.recharts-surface" },
  { name: "free-key", path: "/free-key", ready: "#email" },
  { name: "wallet", path: "/wallet", ready: '[data-testid="wallet-address"]' },
  { name: "usage", path: "/usage", ready: "#credential" },
];

for (const shot of SHOTS) {
  test(`screenshot of ${shot.name}`, async ({ page, svc }, info) => {
    if (shot.name === "wallet") {
      // Show the connected state (an account without USDC; nothing is bought).
      await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.viewer]!, rpcUrl: svc.env.rpcUrl });
      await page.goto(shot.path);
      await page.getByRole("button", { name: "Connect browser wallet" }).click();
      await expect(page.getByTestId("wallet-balance")).toHaveText(/USDC$/);
    } else {
      await page.goto(shot.path);
    }
    await expect(page.locator(shot.ready).first()).toBeVisible();
    await snap(page, info, shot.name);
  });
}

test("screenshot of the wallet page without a browser wallet", async ({ page }, info) => {
  await page.goto("/wallet");
  await expect(page.getByTestId("no-wallet")).toContainText("No browser wallet found");
  // Buying says why it cannot, instead of doing nothing.
  await page.locator('[data-testid="bundle-offer"]').first().getByRole("button", { name: /^Buy for/ }).click();
  await expect(page.getByTestId("purchase-error")).toContainText("Connect a wallet first");
  await snap(page, info, "wallet-no-wallet");
});

test("screenshot of the wallet page with a wallet that is not connected yet", async ({ page, svc }, info) => {
  await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.viewer]!, rpcUrl: svc.env.rpcUrl });
  await page.goto("/wallet");
  await expect(page.getByRole("button", { name: "Connect browser wallet" })).toBeVisible();
  await expect(page.getByTestId("wallet-address")).toHaveCount(0);
  await snap(page, info, "wallet-not-connected");
});
