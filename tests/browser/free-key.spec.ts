// Claim a free key in the page, use it from the test against a paid endpoint, and see
// the quota the page reports move; the e-mail travels in a POST body, never in a URL;
// an address only the service's own validation rejects shows the service's message.
import { test, expect } from "./helpers/fixtures";
import { snap } from "./helpers/snap";
import { DEVICE_NAMES, DEVICES } from "./helpers/devices";

for (const device of DEVICE_NAMES) {
  test.describe(`at ${device} width`, () => {
    test.use({ ...DEVICES[device] });

    test("claims a free key, which then pays for a standard endpoint and shows its quota", async ({ page, svc }, info) => {
      await page.goto("/free-key");
      const email = page.getByLabel("E-mail (optional)");
      await email.fill("not-an-email");
      await page.getByRole("button", { name: "Claim free key" }).click();
      await expect(page.getByRole("main").getByRole("alert")).toContainText("valid e-mail");
      await expect(page.getByTestId("api-key")).toHaveCount(0);

      await email.fill("agent@example.com");
      const sent = page.waitForRequest((r) => new URL(r.url()).pathname === "/v1/free-key");
      await page.getByRole("button", { name: "Claim free key" }).click();
      const keyBox = page.getByTestId("api-key");
      await expect(keyBox).toBeVisible();
      // The address went in the body of a POST, not into the URL (history, access logs).
      const request = await sent;
      expect(request.method()).toBe("POST");
      expect(request.url()).not.toContain("agent");
      expect(request.postDataJSON()).toEqual({ email: "agent@example.com" });

      // The form is gone: focus follows the new key, scrolled into view.
      await expect(page.getByRole("heading", { name: "Your free key" })).toBeFocused();
      await expect(page.getByRole("heading", { name: "Your free key" })).toBeInViewport();
      const key = await keyBox.inputValue();
      expect(key).toMatch(/^echo_fk_/);
      await expect(page.getByTestId("quota-used")).toHaveText("0");
      const quota = Number((await page.getByTestId("quota-left").textContent())!.replace(/,/g, ""));
      expect(quota).toBeGreaterThan(0);
      await expect(page.getByRole("button", { name: "Copy key" })).toBeVisible();

      // The key pays for a standard endpoint that is otherwise paid.
      const paid = (await svc.manifest()).find((e) => e.free_tier && e.params.every((p) => !p.required))!;
      expect((await svc.get(paid.path)).status).toBe(402);
      const res = await svc.get(paid.path, { "X-Api-Key": key });
      expect(res.status, await res.clone().text()).toBe(200);

      await page.getByRole("button", { name: "Refresh quota" }).click();
      await expect(page.getByTestId("quota-used")).toHaveText("1");
      await expect(page.getByTestId("quota-left")).toHaveText((quota - 1).toLocaleString("en-US"));
      await snap(page, info, "free-key-claimed", device);
    });
  });
}

test("an address the page lets through but the service rejects shows the service's own 422 message", async ({ page }) => {
  await page.goto("/free-key");
  // Plausible to the page's quick check; the service's validation refuses the underscore in the domain.
  await page.getByLabel("E-mail (optional)").fill("agent@bad_domain.com");
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/v1/free-key");
  await page.getByRole("button", { name: "Claim free key" }).click();
  const res = await answered;
  expect(res.status()).toBe(422);
  const body = (await res.json()) as { detail: Array<{ loc: Array<string | number>; msg: string; type: string }> };
  expect(body.detail[0]!.loc).toEqual(["body", "email"]);
  expect(body.detail[0]!.msg).toMatch(/^value is not a valid email address/);

  const field = page.getByLabel("E-mail (optional)");
  await expect(page.locator("#email-error")).toHaveText(body.detail[0]!.msg);
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("api-key")).toHaveCount(0);
});

test("/v1/free-key: GET with ?email= keeps working for agents; POST takes JSON or a form; bad bodies are 422 at the body", async ({ request, svc }) => {
  const get = await request.get("/v1/free-key?email=agent%40example.com");
  expect(get.status()).toBe(200);
  expect(await get.json()).toMatchObject({ api_key: expect.stringMatching(/^echo_fk_/), email_recorded: true });
  const badGet = await request.get("/v1/free-key?email=agent%40bad_domain.com");
  expect(badGet.status()).toBe(422);
  expect(((await badGet.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc).toEqual(["query", "email"]);

  const json = await request.post("/v1/free-key", { data: { email: "agent@example.com" } });
  expect(json.status()).toBe(200);
  expect(await json.json()).toMatchObject({ email_recorded: true });
  const form = await request.post("/v1/free-key", { form: { email: "agent@example.com" } });
  expect(form.status()).toBe(200);
  expect(await form.json()).toMatchObject({ email_recorded: true });
  const empty = await request.post("/v1/free-key");
  expect(empty.status()).toBe(200);
  expect(await empty.json()).toMatchObject({ email_recorded: false });

  for (const [data, headers, type] of [
    ["{not json", { "Content-Type": "application/json" }, "json_invalid"],
    ['["agent@example.com"]', { "Content-Type": "application/json" }, "model_attributes_type"],
    ["email=agent@example.com", { "Content-Type": "text/plain" }, "model_attributes_type"],
    ['{"email": 42}', { "Content-Type": "application/json" }, "string_type"],
  ] as const) {
    // Raw bodies, sent exactly as written.
    const res = await fetch(`${svc.env.baseUrl}/v1/free-key`, { method: "POST", body: data, headers });
    expect(res.status, data).toBe(422);
    const detail = ((await res.json()) as { detail: Array<{ loc: unknown[]; type: string }> }).detail;
    expect(detail[0]!.type, data).toBe(type);
    expect(detail[0]!.loc[0], data).toBe("body");
  }
});
