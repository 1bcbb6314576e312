// A paid URL opened in a browser: the 402 stays a 402 but its body is HTML that forwards
// to the paywall; connecting the injected test wallet and paying runs the call once with
// the official x402 client, shows its JSON and the settlement transaction, and moves
// exactly the price on the local chain. Agents asking for JSON keep the JSON 402.
import { test, expect } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS } from "./helpers/env";
import { snap } from "./helpers/snap";

test.describe.configure({ mode: "serial" });

test("pays from the paywall page: the data appears, the payer's balance drops by exactly the price", async ({ page, svc }, info) => {
  const endpoints = await svc.manifest();
  const product = endpoints.find((e) => !e.tags.includes("bundle") && e.credits === 1 && e.params.every((p) => !p.required))!;
  const payer = svc.account(ACCOUNTS.paywallPayer);
  const payTo = svc.account(ACCOUNTS.payTo);
  const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.paywallPayer]!, rpcUrl: svc.env.rpcUrl });
  const before = { payer: await svc.usdcBalance(payer.address), payTo: await svc.usdcBalance(payTo.address) };

  const first = await page.goto(product.path);
  expect(first!.status()).toBe(402);
  await page.waitForURL(`**/pay${product.path}`);
  const paywall = page.getByTestId("paywall");
  await expect(paywall).toContainText(/Pay \$[0-9.]+ with a browser wallet/);
  const shown = /Pay \$([0-9.]+) with/.exec((await paywall.textContent())!)![1];
  expect(Number(shown)).toBe(Number(product.price_usd));
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await expect(page.getByTestId("paywall-address")).toHaveText(payer.address);
  await page.getByRole("button", { name: /^Pay \$/ }).click();

  const result = page.getByTestId("paywall-result");
  await expect(result).toBeVisible({ timeout: 30_000 });
  const data = JSON.parse((await result.textContent())!);
  expect(typeof data).toBe("object");
  expect(data.error).toBeUndefined();
  await expect(page.getByTestId("paywall-tx")).toHaveText(/^0x[0-9a-f]{64}$/);
  expect(wallet.signatures).toBe(1);
  await snap(page, info, "paywall-paid", "desktop");

  const price = BigInt(product.price_atomic);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(price);
  expect((await svc.usdcBalance(payTo.address)) - before.payTo).toBe(price);

  // Nothing is kept: opening the URL again asks for a new payment.
  await page.goto(product.path);
  await page.waitForURL(`**/pay${product.path}`);
  await expect(page.getByTestId("paywall")).toBeVisible();
  await expect(page.getByTestId("paywall-result")).toHaveCount(0);
});

test("agents keep the JSON 402; a browser's Accept gets the HTML 402 with the same requirement and Vary: Accept", async ({ svc }) => {
  const endpoints = await svc.manifest();
  const product = endpoints.find((e) => !e.tags.includes("bundle") && e.credits === 1 && e.params.every((p) => !p.required))!;
  for (const accept of [undefined, "*/*", "application/json", "text/html, application/json"]) {
    const res = await svc.get(product.path, accept ? { Accept: accept } : {});
    expect(res.status, accept).toBe(402);
    expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
    expect((await res.json()).code).toBe("payment_required");
  }
  const browser = await svc.get(product.path, { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" });
  expect(browser.status).toBe(402);
  expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
  expect(browser.headers.get("vary")).toMatch(/Accept/i);
  expect(browser.headers.get("payment-required")).toBeTruthy();
  const html = await browser.text();
  expect(html).toContain(`/pay${product.path}`);
  expect(html).toContain(product.title);
});
