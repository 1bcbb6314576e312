// Wallet page end to end with an injected test wallet: buy a bundle (the payment settles
// on the local chain), use its token, see the spent credit on the usage page; and the
// refusals (declined signature, wrong network, no funds) that must charge nothing.
import type { Page } from "@playwright/test";
import { test, expect, type ManifestEndpoint, type Service } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS, FUNDED_USDC } from "./helpers/env";
import { snap } from "./helpers/snap";

// Tests here compare ledger counts, so they run one after another in one worker.
test.describe.configure({ mode: "serial" });

/** The cheapest bundle of the catalog (the standard one) and a data product it pays for. */
async function fixturesFrom(svc: Service): Promise<{ bundle: ManifestEndpoint; product: ManifestEndpoint }> {
  const endpoints = await svc.manifest();
  const bundle = endpoints.filter((e) => e.tags.includes("bundle")).sort((a, b) => Number(a.price_atomic) - Number(b.price_atomic))[0]!;
  const product = endpoints.find((e) => !e.tags.includes("bundle") && e.credits === 1 && e.params.every((p) => !p.required))!;
  return { bundle, product };
}

async function connect(page: Page, address: string) {
  await page.goto("/wallet");
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await expect(page.getByTestId("wallet-address")).toHaveText(address);
}

function offer(page: Page, path: string) {
  return page.locator(`[data-testid="bundle-offer"][data-path="${path}"]`);
}

test("buys a bundle end to end: settles on chain, the token pays, usage shows the spent credit", async ({ page, svc }, info) => {
  const { bundle, product } = await fixturesFrom(svc);
  const payer = svc.account(ACCOUNTS.payer);
  const payTo = svc.account(ACCOUNTS.payTo);
  const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.payer]!, rpcUrl: svc.env.rpcUrl });
  const before = { payer: await svc.usdcBalance(payer.address), payTo: await svc.usdcBalance(payTo.address), bundles: await svc.bundleCount() };

  await connect(page, payer.address);
  await expect(page.getByTestId("wallet-network")).toContainText("Base (chain id 8453)");
  await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(before.payer) / 1e6} USDC`);

  await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
  const tokenBox = page.getByTestId("bundle-token");
  await expect(tokenBox).toBeVisible();
  const token = await tokenBox.inputValue();
  expect(token.length).toBeGreaterThan(20);
  const credits = Number(await page.getByTestId("bundle-credits").textContent());
  expect(credits).toBeGreaterThan(0);
  await expect(page.getByTestId("bundle-tx")).toHaveText(/^0x[0-9a-f]{64}$/);
  expect(wallet.signatures).toBe(1);
  await snap(page, info, "wallet-bought");

  // Exactly the bundle's price moved from the payer to the pay-to address.
  const price = BigInt(bundle.price_atomic);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(price);
  expect((await svc.usdcBalance(payTo.address)) - before.payTo).toBe(price);
  expect(await svc.bundleCount()).toBe(before.bundles + 1);
  await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(before.payer - price) / 1e6} USDC`);

  // The token shown pays for a data product.
  const res = await svc.get(product.path, { "X-Bundle-Token": token });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("x-bundle-credits-remaining")).toBe(String(credits - 1));

  // The usage page shows the spent credit and the charged call.
  await page.getByRole("link", { name: "usage page" }).click();
  await page.getByLabel("Bundle token or API key").fill(token);
  await page.getByRole("button", { name: "Show usage" }).click();
  await expect(page.getByTestId("credits-remaining")).toHaveText(`${credits - 1} of ${credits}`);
  await expect(page.getByTestId("credits-spent")).toHaveText("1");
  await expect(page.getByTestId("recent-calls")).toContainText(product.title);
  await expect(page.getByTestId("recent-calls")).toContainText("1 credit");
  await snap(page, info, "usage-bundle");
});

test("a declined signature shows its message and charges nothing", async ({ page, svc }, info) => {
  const { bundle } = await fixturesFrom(svc);
  const who = svc.account(ACCOUNTS.rejecter);
  const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.rejecter]!, rpcUrl: svc.env.rpcUrl, rejectSignatures: true });
  const before = { balance: await svc.usdcBalance(who.address), bundles: await svc.bundleCount() };

  await connect(page, who.address);
  await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
  await expect(page.getByTestId("purchase-error")).toHaveText("Signature rejected — nothing was charged.");
  await snap(page, info, "wallet-rejected");
  expect(wallet.calls).toContain("eth_signTypedData_v4");
  await expect(page.getByTestId("bundle-token")).toHaveCount(0);
  expect(await svc.bundleCount()).toBe(before.bundles);
  expect(await svc.usdcBalance(who.address)).toBe(before.balance);
});

test("a wallet on the wrong network is told to switch, cannot buy, and can switch to Base", async ({ page, svc }, info) => {
  const { bundle } = await fixturesFrom(svc);
  const who = svc.account(ACCOUNTS.wrongNetwork);
  const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.wrongNetwork]!, rpcUrl: svc.env.rpcUrl, chainId: 1 });
  const before = { balance: await svc.usdcBalance(who.address), bundles: await svc.bundleCount() };

  await connect(page, who.address);
  await expect(page.getByTestId("wrong-network")).toContainText("Wrong network: your wallet is on Ethereum");
  await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
  await expect(page.getByTestId("purchase-error")).toHaveText(/^Wrong network: switch your wallet to Base.*Nothing was charged\.$/);
  await snap(page, info, "wallet-wrong-network");
  expect(wallet.signatures).toBe(0);
  expect(wallet.calls).not.toContain("eth_signTypedData_v4");
  expect(await svc.bundleCount()).toBe(before.bundles);
  expect(await svc.usdcBalance(who.address)).toBe(before.balance);

  await page.getByRole("button", { name: "Switch to Base" }).click();
  await expect(page.getByTestId("wallet-network")).toContainText("Base (chain id 8453)");
  await expect(page.getByTestId("wrong-network")).toHaveCount(0);
  await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(FUNDED_USDC) / 1e6} USDC`);
});

test("a wallet without enough USDC is told so before signing", async ({ page, svc }) => {
  const { bundle } = await fixturesFrom(svc);
  const who = svc.account(ACCOUNTS.poor);
  const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.poor]!, rpcUrl: svc.env.rpcUrl });
  const bundles = await svc.bundleCount();

  await connect(page, who.address);
  await expect(page.getByTestId("wallet-balance")).toHaveText("0 USDC");
  await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
  await expect(page.getByTestId("purchase-error")).toContainText("Insufficient USDC balance");
  await expect(page.getByTestId("purchase-error")).toContainText("Nothing was charged.");
  expect(wallet.signatures).toBe(0);
  expect(await svc.bundleCount()).toBe(bundles);
});
