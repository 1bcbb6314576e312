// A paid URL opened in a browser: the 402 stays a 402 but its body is HTML that forwards
// to the paywall; connecting the injected test wallet and paying runs the call once with
// the official x402 client, shows its JSON and the settlement transaction, and moves
// exactly the price on the local chain. Agents asking for JSON keep the JSON 402. A
// bundle's URL sells the bundle (token shown once); a call that needs parameters gets a
// form for them; without a wallet a bundle token or a free key runs the call; errors
// are styled as errors, name the wrong network and go when the wallet changes; a lost
// answer is recovered; and the page fits a phone after paying.
import { privateKeyToAccount } from "viem/accounts";
import { test, expect, type Service } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS } from "./helpers/env";
import { expectFitsWidth, snap } from "./helpers/snap";
import { DEVICES } from "./helpers/devices";

/** A data product without required parameters, paid per call. */
async function plainProduct(svc: Service) {
  return (await svc.manifest()).find((e) => !e.tags.includes("bundle") && e.credits === 1 && e.params.every((p) => !p.required))!;
}

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
  await expect(page.getByRole("heading", { name: /with a browser wallet/ })).toBeFocused();
  await page.getByRole("button", { name: /^Pay \$/ }).click();

  const result = page.getByTestId("paywall-result");
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("heading", { name: "Result", exact: true })).toBeFocused();
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

test.describe("at phone width", () => {
  test.use({ ...DEVICES.phone });

  test("pays at phone width and the page still fits: the transaction hash and the data wrap or scroll in their own box", async ({ page, svc }, info) => {
    const product = await plainProduct(svc);
    const key = svc.env.extra.phonePayer;
    const payer = privateKeyToAccount(key);
    await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
    const before = await svc.usdcBalance(payer.address);
    await page.goto(`/pay${product.path}`);
    await page.getByRole("button", { name: "Connect browser wallet" }).click();
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await expect(page.getByTestId("paywall-tx")).toHaveText(/^0x[0-9a-f]{64}$/, { timeout: 30_000 });
    await expect(page.getByRole("heading", { name: "Result", exact: true })).toBeInViewport();
    await expectFitsWidth(page);
    await snap(page, info, "paywall-paid", "phone");
    expect(before - (await svc.usdcBalance(payer.address))).toBe(BigInt(product.price_atomic));
  });
});

test("opening /v1/bundle in a browser sells the bundle: credits and price, the token shown once with a copy button, not raw JSON", async ({ page, svc }, info) => {
  const bundle = (await svc.manifest()).find((e) => e.path === "/v1/bundle")!;
  const key = svc.env.extra.bundlePaywall;
  const payer = privateKeyToAccount(key);
  const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  const before = { payer: await svc.usdcBalance(payer.address), bundles: await svc.bundleCount() };

  const first = await page.goto(bundle.path);
  expect(first!.status()).toBe(402);
  await page.waitForURL("**/pay/v1/bundle");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Buy the standard prepaid bundle");
  await expect(page.getByTestId("paywall-offer")).toContainText(/[\d,]+ prepaid credits for \$0\.05/);
  await expect(page.getByRole("main")).not.toContainText("per call");
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: "Pay $0.05 and get the token" }).click();
  const token = page.getByTestId("bundle-token");
  await expect(token).toBeVisible({ timeout: 30_000 });
  await expect(token).toHaveValue(/^echo_bt_/);
  await expect(page.getByTestId("bundle-bought")).toContainText("Shown only once");
  await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your bundle token" })).toBeFocused();
  // Not the agents' JSON.
  await expect(page.getByTestId("paywall-result")).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText('"bundle_token"');
  await snap(page, info, "paywall-bundle-bought", "desktop");
  expect(wallet.signatures).toBe(1);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(BigInt(bundle.price_atomic));
  // The bundle the token names exists, whole. The service-wide count is only a floor here:
  // the other worker's tests (the Solana purchase) buy bundles on the same service at the
  // same time; one bundle per payment is the bundles table's unique payment_id.
  const usage = await svc.get("/v1/usage", { "X-Bundle-Token": await token.inputValue() });
  expect(usage.status).toBe(200);
  const mine = (await usage.json()) as { kind: string; tier: string; credits_total: number; credits_remaining: number };
  expect(mine).toMatchObject({ kind: "bundle", tier: "standard" });
  expect(mine.credits_remaining).toBe(mine.credits_total);
  expect(await svc.bundleCount()).toBeGreaterThanOrEqual(before.bundles + 1);
});

test("the $25 enterprise bundle is bought from its paywall too: exactly 25 USDC moves", async ({ page, svc }) => {
  const key = svc.env.extra.enterprise;
  const payer = privateKeyToAccount(key);
  await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  const before = await svc.usdcBalance(payer.address);
  expect(before).toBeGreaterThanOrEqual(25_000_000n);
  await page.goto("/v1/bundle/enterprise");
  await page.waitForURL("**/pay/v1/bundle/enterprise");
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: "Pay $25.00 and get the token" }).click();
  await expect(page.getByTestId("bundle-token")).toHaveValue(/^echo_bt_/, { timeout: 30_000 });
  expect(before - (await svc.usdcBalance(payer.address))).toBe(25_000_000n);
});

test("paywall errors look like errors, name the wrong network, and go when the wallet switches to a funded account or to Base", async ({ page, svc }) => {
  const product = await plainProduct(svc);
  const empty = privateKeyToAccount(svc.env.extra.empty);
  const funded = svc.account(ACCOUNTS.rejecter);
  const wallet = await installWallet(page, { privateKey: svc.env.extra.empty, rpcUrl: svc.env.rpcUrl, otherKeys: [svc.env.keys[ACCOUNTS.rejecter]!] });
  await page.goto(`/pay${product.path}`);
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await expect(page.getByTestId("paywall-address")).toHaveText(empty.address);
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  const status = page.getByTestId("paywall-status");
  await expect(status).toContainText("Insufficient USDC balance");
  await expect(status).toContainText("holds 0 USDC");
  await expect(status).toHaveAttribute("data-kind", "insufficient");
  await expect(status).toHaveAttribute("role", "alert");
  // Styled as an error: the error colours, not the page's text colour.
  expect(await status.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor])).toEqual(["rgb(163, 21, 28)", "rgb(251, 233, 234)"]);
  expect(wallet.signatures).toBe(0);

  // The person switches to an account that holds USDC: the message was about the other one.
  await wallet.switchAccount(funded.address);
  await expect(page.getByTestId("paywall-address")).toHaveText(funded.address);
  await expect(status).toHaveCount(0);

  // Another chain: named, with the way back.
  await wallet.switchChain(1);
  const wrong = page.getByTestId("paywall-wrong-network");
  await expect(wrong).toContainText("your wallet is on Ethereum");
  await expect(wrong).toContainText("Base");
  await page.getByRole("button", { name: "Switch to Base" }).click();
  await expect(wrong).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Pay \$/ })).toBeVisible();
});

test("without a wallet the paywall offers a free-key or bundle-token field and links, and runs the call with it", async ({ page, svc }) => {
  const product = (await svc.manifest()).find((e) => e.free_tier && e.params.every((p) => !p.required))!;
  await page.goto(`/pay${product.path}`);
  await expect(page.getByTestId("paywall-no-wallet")).toContainText("No browser wallet was found");
  const box = page.getByTestId("paywall-credential");
  await expect(box.getByRole("link", { name: "free key" })).toHaveAttribute("href", "/free-key");
  await expect(box.getByRole("link", { name: /wallet & bundles/ })).toHaveAttribute("href", "/wallet");
  const key = ((await (await svc.get("/v1/free-key")).json()) as { api_key: string }).api_key;
  await page.getByLabel("Bundle token or free key").fill(key);
  await page.getByRole("button", { name: "Run the call with it" }).click();
  const result = page.getByTestId("credential-result");
  await expect(result).toBeVisible();
  expect(JSON.parse((await result.textContent())!)).toBeInstanceOf(Object);
  await expect(page.getByRole("heading", { name: "Result", exact: true })).toBeFocused();
  // A wrong one: the service's own message, as an error.
  await page.getByLabel("Bundle token or free key").fill("echo_bt_nope");
  await page.getByRole("button", { name: "Run the call with it" }).click();
  await expect(page.getByTestId("credential-error")).toBeVisible();
});

for (const path of ["/v1/wallet", "/v1/token-safety", "/v1/whale-flow"]) {
  test(`${path} opened without its required parameter shows a form for it, not raw 422 JSON`, async ({ page, svc }) => {
    const required = (await svc.manifest()).find((e) => e.path === path)!.params.filter((p) => p.required);
    expect(required.length).toBeGreaterThan(0);
    const res = await page.goto(path);
    expect(res!.status()).toBe(422);
    await page.waitForURL(`**/pay${path}`);
    await expect(page.getByTestId("params-error")).toBeVisible();
    await expect(page.locator("pre")).toHaveCount(0);
    for (const p of required) {
      const field = page.getByLabel(`${p.name} (required)`);
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await field.fill((await field.getAttribute("placeholder")) || "x");
    }
    await page.getByRole("button", { name: "Use these parameters" }).click();
    await page.waitForURL(new RegExp(`/pay${path}\\?.*${required[0]!.name}=`));
    await expect(page.getByTestId("params-error")).toHaveCount(0);
    // The call's URL now carries them, as the payment will.
    await expect(page.getByTestId("paywall-offer")).toContainText(`${path}?`);
  });
}

test("paywall pages have a favicon: the HTML 402 links it and it is served", async ({ page, svc }) => {
  const product = await plainProduct(svc);
  const html = await (await svc.get(product.path, { Accept: "text/html" })).text();
  expect(html).toContain('<link rel="icon" href="/favicon.svg"');
  expect((await svc.get("/favicon.svg")).status).toBe(200);
  await page.goto(`/pay${product.path}`);
  await expect(page.locator('head link[rel="icon"]')).toHaveAttribute("href", /\/favicon\.svg/);
});

test("a paid call's answer lost on the way back is recovered: the same payment presented again shows the data, charged once", async ({ page, svc }, info) => {
  const product = await plainProduct(svc);
  const key = svc.env.extra.lostAnswer;
  const payer = privateKeyToAccount(key);
  const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  const before = await svc.usdcBalance(payer.address);
  let paid = 0;
  await page.route(`**${product.path}`, async (route) => {
    if (!route.request().headers()["payment-signature"]) return route.continue();
    paid++;
    const answer = await route.fetch();
    if (paid === 1) return route.abort("connectionreset");
    return route.fulfill({ response: answer });
  });
  await page.goto(`/pay${product.path}`);
  await page.getByRole("button", { name: "Connect browser wallet" }).click();
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page.getByTestId("paywall-result")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("payment-recovered")).toBeVisible();
  await snap(page, info, "paywall-recovered", "desktop");
  expect(paid).toBe(2);
  expect(wallet.signatures).toBe(1);
  expect(before - (await svc.usdcBalance(payer.address))).toBe(BigInt(product.price_atomic));
});
