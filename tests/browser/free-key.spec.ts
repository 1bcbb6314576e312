// Claim a free key in the page, use it from the test against a paid endpoint, and see
// the quota the page reports move.
import { test, expect } from "./helpers/fixtures";
import { snap } from "./helpers/snap";

test("claims a free key, which then pays for a standard endpoint and shows its quota", async ({ page, svc }, info) => {
  await page.goto("/free-key");
  const email = page.getByLabel("E-mail (optional)");
  await email.fill("not-an-email");
  await page.getByRole("button", { name: "Claim free key" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("valid e-mail");
  await expect(page.getByTestId("api-key")).toHaveCount(0);

  await email.fill("agent@example.com");
  await page.getByRole("button", { name: "Claim free key" }).click();
  const keyBox = page.getByTestId("api-key");
  await expect(keyBox).toBeVisible();
  const key = await keyBox.inputValue();
  expect(key).toMatch(/^echo_fk_/);
  await expect(page.getByTestId("quota-used")).toHaveText("0");
  const quota = Number(await page.getByTestId("quota-left").textContent());
  expect(quota).toBeGreaterThan(0);
  await expect(page.getByRole("button", { name: "Copy key" })).toBeVisible();

  // The key pays for a standard endpoint that is otherwise paid.
  const paid = (await svc.manifest()).find((e) => e.free_tier && e.params.every((p) => !p.required))!;
  expect((await svc.get(paid.path)).status).toBe(402);
  const res = await svc.get(paid.path, { "X-Api-Key": key });
  expect(res.status, await res.clone().text()).toBe(200);

  await page.getByRole("button", { name: "Refresh quota" }).click();
  await expect(page.getByTestId("quota-used")).toHaveText("1");
  await expect(page.getByTestId("quota-left")).toHaveText(String(quota - 1));
  await snap(page, info, "free-key-claimed");
});
