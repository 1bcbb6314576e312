// A person holding USDC on Solana pays from the pages: an injected Wallet Standard wallet
// (as Phantom, Solflare or Backpack announce themselves) connects on the paywall, signs
// the transaction @x402/svm's client scheme builds, and the service settles it on the
// local Solana ledger (litesvm behind a loopback RPC): the payer's USDC goes down by
// exactly the price. The wallet page sells a bundle the same way, and a wallet without
// USDC is told so before it signs.
import { test, expect } from "./helpers/fixtures";
import { installSolanaWallet } from "./helpers/solana-wallet";
import { snap } from "./helpers/snap";
import { DEVICES } from "./helpers/devices";
import { SOLANA_PAYER_USDC } from "./helpers/env";

test.describe.configure({ mode: "serial" });

test("pays from the paywall with a Solana wallet: the data appears, the payer's USDC drops by exactly the price", async ({ page, svc }, info) => {
  const product = (await svc.manifest()).find((e) => !e.tags.includes("bundle") && e.credits === 1 && e.params.every((p) => !p.required))!;
  const { payer, payTo } = svc.env.solana;
  const wallet = await installSolanaWallet(page, { secret: payer.secret, address: payer.address });
  const before = { payer: await svc.solanaUsdc(payer.address), payTo: await svc.solanaUsdc(payTo) };
  expect(before.payer).toBe(SOLANA_PAYER_USDC);

  await page.goto(product.path);
  await page.waitForURL(`**/pay${product.path}`);
  await page.getByRole("button", { name: `Connect ${wallet.name}` }).click();
  await expect(page.getByTestId("solana-address")).toHaveText(payer.address);
  await expect(page.getByTestId("solana-balance")).toHaveText(`${Number(before.payer) / 1e6} USDC`);
  await expect(page.getByRole("heading", { name: "Solana wallet" })).toBeFocused();
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  const result = page.getByTestId("paywall-result");
  await expect(result).toBeVisible({ timeout: 30_000 });
  expect(JSON.parse((await result.textContent())!).error).toBeUndefined();
  await expect(page.getByTestId("paywall-tx")).toHaveText(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
  expect(wallet.signed).toHaveLength(1);
  await snap(page, info, "paywall-solana-paid", "desktop");
  await page.setViewportSize(DEVICES.phone.viewport);
  await snap(page, info, "paywall-solana-paid", "phone");

  const price = BigInt(product.price_atomic);
  expect(before.payer - (await svc.solanaUsdc(payer.address))).toBe(price);
  expect((await svc.solanaUsdc(payTo)) - before.payTo).toBe(price);
});

test("buys a bundle on the wallet page with a Solana wallet", async ({ page, svc }) => {
  const bundle = (await svc.manifest()).filter((e) => e.tags.includes("bundle")).sort((a, b) => Number(a.price_atomic) - Number(b.price_atomic))[0]!;
  const { payer } = svc.env.solana;
  const wallet = await installSolanaWallet(page, { secret: payer.secret, address: payer.address });
  const before = { payer: await svc.solanaUsdc(payer.address), bundles: await svc.bundleCount() };
  await page.goto("/wallet");
  await page.getByRole("button", { name: `Connect ${wallet.name}` }).click();
  await expect(page.getByTestId("solana-address")).toHaveText(payer.address);
  await page.locator(`[data-testid="bundle-offer"][data-path="${bundle.path}"]`).getByRole("button", { name: /^Buy for/ }).click();
  await expect(page.getByTestId("bundle-token")).toHaveValue(/^echo_bt_/, { timeout: 30_000 });
  expect(before.payer - (await svc.solanaUsdc(payer.address))).toBe(BigInt(bundle.price_atomic));
  expect(await svc.bundleCount()).toBe(before.bundles + 1);
});

test("a Solana wallet without USDC is told so before it signs, and nothing moves", async ({ page, svc }) => {
  const { poor } = svc.env.solana;
  const wallet = await installSolanaWallet(page, { secret: poor.secret, address: poor.address, name: "E2E Empty Wallet" });
  await page.goto("/pay/v1/quote");
  await page.getByRole("button", { name: `Connect ${wallet.name}` }).click();
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  const status = page.getByTestId("paywall-status");
  await expect(status).toContainText("Insufficient USDC balance");
  await expect(status).toContainText("holds 0 USDC");
  expect(wallet.signed).toHaveLength(0);
});

test("the pages' Solana relay forwards only the reads a payment needs, one at a time", async ({ baseURL }) => {
  const post = (body: unknown) => fetch(`${baseURL}/api/solana-rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const ok = await post({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash", params: [] });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { result: { value: { blockhash: string } } }).result.value.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  const send = await post({ jsonrpc: "2.0", id: 2, method: "sendTransaction", params: ["AAAA"] });
  expect(send.status).toBe(400);
  expect(((await send.json()) as { error: { code: number } }).error.code).toBe(-32601);
  const batch = await post([{ jsonrpc: "2.0", id: 3, method: "getLatestBlockhash" }]);
  expect(batch.status).toBe(400);
  const get = await fetch(`${baseURL}/api/solana-rpc`);
  expect(get.status).toBe(405);
  expect(get.headers.get("allow")).toBe("OPTIONS, POST");
});
