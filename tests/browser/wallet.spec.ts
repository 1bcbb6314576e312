// Wallet page end to end with an injected test wallet: buy a bundle (the payment settles
// on the local chain), use its token, see the spent credit on the usage page; the $25
// enterprise bundle, bought like the standard one; the refusals (declined signature,
// wrong network, no funds) that must charge nothing; the failures the service itself
// sees (a refused payment, a settlement that reverts on chain); and a lost answer after
// the payment was sent, which the page recovers by presenting the same payment again
// (charged once). Flows whose result is photographed run at desktop and phone width.
import type { Page } from "@playwright/test";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { test, expect, type ManifestEndpoint, type Service } from "./helpers/fixtures";
import { installWallet } from "./helpers/wallet";
import { ACCOUNTS, EXTRA_USDC, FUNDED_USDC } from "./helpers/env";
import { snap } from "./helpers/snap";
import { DEVICE_NAMES, DEVICES } from "./helpers/devices";
import { chainControl } from "./helpers/chain-control";
import { BASE_USDC } from "../helpers/chain";

// Tests here compare ledger counts and balances, so they run one after another in one worker.
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

const count = (text: string | null) => Number((text ?? "").replace(/,/g, ""));

/** An address nobody else uses, to receive what a test moves out of a payer's wallet. */
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

for (const device of DEVICE_NAMES) {
  test.describe(`at ${device} width`, () => {
    test.use({ ...DEVICES[device] });

    test("buys a bundle end to end: settles on chain, the token pays, usage shows the spent credit", async ({ page, svc }, info) => {
      const { bundle, product } = await fixturesFrom(svc);
      const payer = svc.account(ACCOUNTS.payer);
      const payTo = svc.account(ACCOUNTS.payTo);
      const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.payer]!, rpcUrl: svc.env.rpcUrl });
      const before = { payer: await svc.usdcBalance(payer.address), payTo: await svc.usdcBalance(payTo.address), bundles: await svc.bundleCount() };

      await connect(page, payer.address);
      // The Connect button is gone: focus moved to the wallet, not to the page body.
      await expect(page.getByRole("heading", { name: "Wallet", exact: true })).toBeFocused();
      await expect(page.getByTestId("wallet-network")).toContainText("Base (chain id 8453)");
      await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(before.payer) / 1e6} USDC`);

      await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
      const tokenBox = page.getByTestId("bundle-token");
      await expect(tokenBox).toBeVisible();
      // Focus follows the new token, which is scrolled into view (below the fold on a phone otherwise).
      await expect(page.getByRole("heading", { name: "Your bundle token" })).toBeFocused();
      await expect(page.getByRole("heading", { name: "Your bundle token" })).toBeInViewport();
      const token = await tokenBox.inputValue();
      expect(token.length).toBeGreaterThan(20);
      const credits = count(await page.getByTestId("bundle-credits").textContent());
      expect(credits).toBeGreaterThan(0);
      await expect(page.getByTestId("bundle-tx")).toHaveText(/^0x[0-9a-f]{64}$/);
      expect(wallet.signatures).toBe(1);
      await snap(page, info, "wallet-bought", device);

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
      await snap(page, info, "usage-bundle", device);
    });

    test("a declined signature shows its message and charges nothing", async ({ page, svc }, info) => {
      const { bundle } = await fixturesFrom(svc);
      const who = svc.account(ACCOUNTS.rejecter);
      const wallet = await installWallet(page, { privateKey: svc.env.keys[ACCOUNTS.rejecter]!, rpcUrl: svc.env.rpcUrl, rejectSignatures: true });
      const before = { balance: await svc.usdcBalance(who.address), bundles: await svc.bundleCount() };

      await connect(page, who.address);
      await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
      await expect(page.getByTestId("purchase-error")).toHaveText("Signature rejected — nothing was charged.");
      await snap(page, info, "wallet-rejected", device);
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
      await expect(page.getByTestId("purchase-error")).toHaveText(/^Wrong network: your wallet is on Ethereum; switch your wallet to Base.*Nothing was charged\.$/);
      await snap(page, info, "wallet-wrong-network", device);
      expect(wallet.signatures).toBe(0);
      expect(wallet.calls).not.toContain("eth_signTypedData_v4");
      expect(await svc.bundleCount()).toBe(before.bundles);
      expect(await svc.usdcBalance(who.address)).toBe(before.balance);

      await page.getByRole("button", { name: "Switch to Base" }).click();
      await expect(page.getByTestId("wallet-network")).toContainText("Base (chain id 8453)");
      await expect(page.getByTestId("wrong-network")).toHaveCount(0);
      await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(FUNDED_USDC) / 1e6} USDC`);
      // The wrong-network message was about the old chain: it goes with it.
      await expect(page.getByTestId("purchase-error")).toHaveCount(0);
    });
  });
}

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

test("the service refuses a signed payment whose funds left after the page's check: insufficient message, no bundle, no charge", async ({ page, svc }) => {
  const { bundle } = await fixturesFrom(svc);
  const who = svc.account(ACCOUNTS.drained);
  const key = svc.env.keys[ACCOUNTS.drained]!;
  const payTo = svc.account(ACCOUNTS.payTo).address;
  const ctl = chainControl(svc.env.rpcUrl);
  const price = BigInt(bundle.price_atomic);
  const sink = freshAddress();
  const before = { payer: await svc.usdcBalance(who.address), payTo: await svc.usdcBalance(payTo), bundles: await svc.bundleCount() };
  expect(before.payer).toBeGreaterThanOrEqual(price);
  const keep = price - 1n;

  // The page checks the balance before asking for the signature; once signed (and before the
  // page sends it), the payer moves all but one unit short of the price elsewhere.
  const wallet = await installWallet(page, {
    privateKey: key,
    rpcUrl: svc.env.rpcUrl,
    afterSign: async () => {
      await ctl.receipt(await ctl.transferUsdc(key, sink, before.payer - keep));
    },
  });
  await connect(page, who.address);
  await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(before.payer) / 1e6} USDC`);

  const paid = page.waitForResponse((r) => r.url().endsWith(bundle.path) && Boolean(r.request().headers()["payment-signature"]));
  await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
  // The service itself saw the signed payment and refused it.
  const answer = await paid;
  expect(answer.status()).toBe(402);
  // A 402 carries the x402 v1 body with the refusal's code beside it.
  expect(((await answer.json()) as { code: string }).code).toBe("payment_invalid");

  const error = page.getByTestId("purchase-error");
  await expect(error).toContainText("Insufficient USDC balance");
  await expect(error).toContainText("Nothing was charged.");
  await expect(error).toHaveAttribute("data-kind", "insufficient");
  await expect(page.getByTestId("bundle-token")).toHaveCount(0);
  expect(wallet.signatures).toBe(1);
  expect(await ctl.authorizationUsed(who.address, wallet.signed[0]!.nonce)).toBe(false);
  expect(await svc.bundleCount()).toBe(before.bundles);
  // Only the payer's own transfer moved money.
  expect(await svc.usdcBalance(who.address)).toBe(keep);
  expect(await svc.usdcBalance(sink)).toBe(before.payer - keep);
  expect(await svc.usdcBalance(payTo)).toBe(before.payTo);
});

test("a settlement that reverts on chain after the service accepted the payment: message, bundle revoked, no charge", async ({ page, svc }, info) => {
  const { bundle } = await fixturesFrom(svc);
  const who = svc.account(ACCOUNTS.settleFails);
  const key = svc.env.keys[ACCOUNTS.settleFails]!;
  const payTo = svc.account(ACCOUNTS.payTo).address;
  const ctl = chainControl(svc.env.rpcUrl);
  const price = BigInt(bundle.price_atomic);
  const sink = freshAddress();
  const before = { payer: await svc.usdcBalance(who.address), payTo: await svc.usdcBalance(payTo), bundles: await svc.bundleCount() };
  const keep = price - 1n;
  const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  await connect(page, who.address);
  await expect(page.getByTestId("wallet-balance")).toHaveText(`${Number(before.payer) / 1e6} USDC`);

  // Blocks are produced on demand from here: the service verifies the payment (a simulation
  // against the current state, which passes), mints the bundle and sends the settlement,
  // which then waits in the mempool. The payer's own transfer, with a higher fee, is mined
  // before it in the same block, so the settlement reverts for lack of funds.
  await ctl.setAutomine(false);
  let settlement: Awaited<ReturnType<typeof ctl.waitForPending>>;
  try {
    await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
    const payer = who.address.slice(2).toLowerCase();
    settlement = await ctl.waitForPending((tx) => tx.to?.toLowerCase() === BASE_USDC.toLowerCase() && tx.input.toLowerCase().includes(payer));
    await ctl.transferUsdc(key, sink, before.payer - keep);
    await ctl.mine();
  } finally {
    await ctl.setAutomine(true);
  }
  expect((await ctl.receipt(settlement.hash)).status).toBe("reverted");

  const error = page.getByTestId("purchase-error");
  await expect(error).toContainText("Settlement failed");
  await expect(error).toHaveAttribute("data-kind", "settlement_failed");
  await snap(page, info, "wallet-settlement-failed");
  await expect(page.getByTestId("bundle-token")).toHaveCount(0);
  expect(wallet.signatures).toBe(1);
  // The bundle minted before settlement was revoked; no price moved.
  expect(await svc.bundleCount()).toBe(before.bundles);
  expect(await ctl.authorizationUsed(who.address, wallet.signed[0]!.nonce)).toBe(false);
  expect(await svc.usdcBalance(who.address)).toBe(keep);
  expect(await svc.usdcBalance(sink)).toBe(before.payer - keep);
  expect(await svc.usdcBalance(payTo)).toBe(before.payTo);
});

for (const failure of [
  { name: "the connection drops", kind: "drop" },
  { name: "a 200 answer cannot be read", kind: "garbled" },
] as const) {
  test(`when ${failure.name} after the signed payment was sent, the page presents it again and shows the token, charged once`, async ({ page, svc }, info) => {
    const { bundle } = await fixturesFrom(svc);
    const key = svc.env.extra.lostAnswer;
    const payer = privateKeyToAccount(key);
    const price = BigInt(bundle.price_atomic);
    const ctl = chainControl(svc.env.rpcUrl);
    const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
    const before = { payer: await svc.usdcBalance(payer.address), bundles: await svc.bundleCount() };
    expect(before.payer).toBeGreaterThanOrEqual(price);
    // The request reaches the real service, which settles; only its first answer is lost on the way back.
    const served: Array<{ status: number; token: string | null; replayed: string | null }> = [];
    await page.route(`**${bundle.path}`, async (route) => {
      if (!route.request().headers()["payment-signature"]) return route.continue();
      const answer = await route.fetch();
      const body = (await answer.json().catch(() => null)) as { bundle_token?: string } | null;
      served.push({ status: answer.status(), token: body?.bundle_token ?? null, replayed: answer.headers()["idempotent-replayed"] ?? null });
      if (served.length > 1) return route.fulfill({ response: answer });
      if (failure.kind === "drop") return route.abort("connectionreset");
      return route.fulfill({ status: 200, headers: answer.headers(), body: '{"bundle_token":"echo_bt_' });
    });

    await connect(page, payer.address);
    await offer(page, bundle.path).getByRole("button", { name: /^Buy for/ }).click();
    await expect(page.getByTestId("bundle-token")).toBeVisible();
    await expect(page.getByTestId("payment-recovered")).toBeVisible();
    if (failure.kind === "drop") await snap(page, info, "wallet-recovered-lost-answer");
    // The same signed payment was presented twice; the second answer is the first one, kept.
    expect(wallet.signatures).toBe(1);
    expect(served.map((x) => x.status)).toEqual([200, 200]);
    expect(served[1]!.replayed).toBe("true");
    expect(served[1]!.token).toBe(served[0]!.token);
    await expect(page.getByTestId("bundle-token")).toHaveValue(served[0]!.token!);
    await expect(page.getByRole("main")).not.toContainText("Nothing was charged");
    // Charged once, one bundle.
    expect(await ctl.authorizationUsed(payer.address, wallet.signed[0]!.nonce)).toBe(true);
    expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(price);
    expect(await svc.bundleCount()).toBe(before.bundles + 1);
  });
}

test("buys the $25 enterprise bundle like the standard one: exactly 25 USDC moves, the token is shown once", async ({ page, svc }, info) => {
  const endpoints = await svc.manifest();
  const enterprise = endpoints.find((e) => e.path === "/v1/bundle/enterprise")!;
  expect(enterprise.price_usd).toBe("25.000000");
  const key = svc.env.extra.enterprise;
  const payer = privateKeyToAccount(key);
  const payTo = svc.account(ACCOUNTS.payTo).address;
  const wallet = await installWallet(page, { privateKey: key, rpcUrl: svc.env.rpcUrl });
  const before = { payer: await svc.usdcBalance(payer.address), payTo: await svc.usdcBalance(payTo), bundles: await svc.bundleCount() };
  expect(before.payer).toBe(EXTRA_USDC.enterprise);

  await connect(page, payer.address);
  await offer(page, enterprise.path).getByRole("button", { name: "Buy for $25.00" }).click();
  const token = page.getByTestId("bundle-token");
  await expect(token).toBeVisible();
  await expect(page.getByTestId("bundle-bought")).toContainText("Shown only once");
  await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
  expect(wallet.signatures).toBe(1);
  expect(wallet.signed[0]!.value).toBe(25_000_000n);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(25_000_000n);
  expect((await svc.usdcBalance(payTo)) - before.payTo).toBe(25_000_000n);
  expect(await svc.bundleCount()).toBe(before.bundles + 1);
  const value = await token.inputValue();
  const res = await svc.get("/v1/usage", { "X-Bundle-Token": value });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { tier: string }).tier).toBe("enterprise");
  await snap(page, info, "wallet-enterprise-bought", "desktop");
  await page.setViewportSize(DEVICES.phone.viewport);
  await expect(page.getByRole("heading", { name: "Your bundle token" })).toBeVisible();
  await snap(page, info, "wallet-enterprise-bought", "phone");

  // Shown once: a reload shows no token and presents nothing again.
  await page.reload();
  await expect(page.getByTestId("bundle-offer").first()).toBeVisible();
  await expect(page.getByTestId("bundle-token")).toHaveCount(0);
  await expect(page.getByTestId("payment-pending")).toHaveCount(0);
  expect(before.payer - (await svc.usdcBalance(payer.address))).toBe(25_000_000n);
});
