// Full-page screenshots of every page at the project's width (desktop and phone), kept
// as artifacts: artifacts/screenshots/<page>-<desktop|phone>.png.
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
    // No horizontal scrolling at this width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `horizontal overflow on ${shot.path}`).toBeLessThanOrEqual(0);
    await snap(page, info, shot.name);
  });
}
