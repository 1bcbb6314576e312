// A settlement that takes 25 s: the chain stops producing blocks, so the service's first
// answer is 503 settlement_pending (its PAYMENT_TIMEOUT_MS is 8 s here). The page says
// honestly that the payment is pending, never that nothing was charged; it keeps the
// signed payment in sessionStorage, survives a reload, presents the same payment again
// with backoff, and shows the bundle token once the transfer lands: charged once. Runs
// alone (its own project): nothing else may settle while the chain is stalled.
import { privateKeyToAccount } from "viem/accounts";
import { test, expect } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS } from "./helpers/env";
import { chainControl } from "./helpers/chain-control";
import { snap } from "./helpers/snap";
import { DEVICES } from "./helpers/devices";

test("a settlement that takes 25 s: pending, then the bundle token recovered after a reload, charged once", async ({ page, svc }, info) => {
  test.setTimeout(150_000);
  const bundle = (await svc.manifest()).filter((e) => e.tags.includes("bundle")).sort((a, b) => Number(a.price_atomic) - Number(b.price_atomic))[0]!;
  const key = svc.env.extra.slowSettlement;
  const payer = privateKeyToAccount(key);
  const payTo = svc.account(ACCOUNTS.payTo).address;
  const ctl = chainControl(svc.env.rpcUrl);
  const price = BigInt(bundle.price_atomic);
  const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  const before = { payer: await svc.usdcBalance(payer.address), payTo: await svc.usdcBalance(payTo), bundles: await svc.bundleCount() };
  const answers: Array<{ status: number; code: string | null }> = [];
  page.on("response", async (r) => {
    if (!r.url().endsWith(bundle.path) || !r.request().headers()["payment-signature"]) return;
    const body = (await r.json().catch(() => null)) as { error?: { code?: string } } | null;
    answers.push({ status: r.status(), code: body?.error?.code ?? null });
  });

  await page.goto("/wallet");
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await expect(page.getByTestId("wallet-address")).toHaveText(payer.address);

  await ctl.setAutomine(false);
  let stalledAt = 0;
  try {
    stalledAt = Date.now();
    await page.locator(`[data-testid="bundle-offer"][data-path="${bundle.path}"]`).getByRole("button", { name: /^Buy for/ }).click();
    const pending = page.getByTestId("payment-pending");
    await expect(pending).toBeVisible({ timeout: 25_000 });
    await expect(pending).toContainText("Payment pending");
    await expect(pending).toContainText("Do not pay again");
    await expect(page.getByRole("main")).not.toContainText(/nothing was charged/i);
    await snap(page, info, "wallet-payment-pending", "desktop");
    await page.setViewportSize(DEVICES.phone.viewport);
    await snap(page, info, "wallet-payment-pending", "phone");
    await page.setViewportSize(DEVICES.desktop.viewport);

    // A reload does not lose it: the page presents the kept payment again on arrival.
    await page.reload();
    await expect(page.getByTestId("payment-pending")).toBeVisible({ timeout: 25_000 });
    expect(wallet.signatures).toBe(1);
    await page.waitForTimeout(Math.max(0, 25_000 - (Date.now() - stalledAt)));
    await ctl.mine();
  } finally {
    await ctl.setAutomine(true);
  }
  const token = page.getByTestId("bundle-token");
  await expect(token).toHaveValue(/^echo_bt_/, { timeout: 60_000 });
  await expect(page.getByTestId("payment-recovered")).toBeVisible();
  await expect(page.getByTestId("payment-pending")).toHaveCount(0);
  await snap(page, info, "wallet-payment-recovered", "desktop");
  await page.setViewportSize(DEVICES.phone.viewport);
  await snap(page, info, "wallet-payment-recovered", "phone");

  // The first answer was the honest pending one; the token came from the same payment.
  expect(answers[0]).toEqual({ status: 503, code: "settlement_pending" });
  expect(answers.at(-1)!.status).toBe(200);
  expect(wallet.signatures).toBe(1);
  expect(await ctl.authorizationUsed(payer.address, wallet.signed[0]!.nonce)).toBe(true);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(price);
  expect((await svc.usdcBalance(payTo)) - before.payTo).toBe(price);
  expect(await svc.bundleCount()).toBe(before.bundles + 1);
  // The token pays.
  const res = await svc.get("/v1/usage", { "X-Bundle-Token": await token.inputValue() });
  expect(res.status).toBe(200);
  // Resolved: nothing is left to present again.
  await page.reload();
  await expect(page.getByTestId("bundle-offer").first()).toBeVisible();
  await expect(page.getByTestId("payment-pending")).toHaveCount(0);
});
