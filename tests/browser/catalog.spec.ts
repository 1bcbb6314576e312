// The catalog page lists every product of the catalog with its prices, filters by tag
// and search, and lets a visitor try a free endpoint in the page.
import { test, expect, usdText } from "./helpers/fixtures";

test.describe("catalog page", () => {
  test("lists every catalog product with its HTTP price, tool price and credit cost", async ({ page, svc }) => {
    const endpoints = await svc.manifest();
    expect(endpoints.length).toBeGreaterThan(20);
    await page.goto("/catalog");
    await expect(page.getByRole("heading", { level: 1, name: "Catalog" })).toBeVisible();
    const cards = page.getByTestId("product");
    await expect(cards).toHaveCount(endpoints.length);
    // What a person reads on each card, in page order.
    const shown = await cards.evaluateAll((els) =>
      els.map((el) => {
        const text = (sel: string) => el.querySelector(sel)?.textContent?.trim() ?? null;
        return { path: el.getAttribute("data-path"), title: text("h3"), http: text('[data-field="http-price"]'), tool: text('[data-field="tool-price"]'), toolName: text('[data-field="tool-name"]'), credits: text('[data-field="credits"]') };
      }),
    );
    const expected = endpoints.map((e) => ({
      path: e.path,
      title: e.title,
      http: usdText(e.price_usd),
      tool: e.tool ? usdText(e.tool.price_usd) : "no tool",
      toolName: e.tool?.name ?? null,
      credits: e.tags.includes("bundle") ? expect.stringMatching(/^[\d,]+ credits$/) : `${e.credits} per call`,
    }));
    expect(shown).toEqual(expected);
  });

  test("filters by tag and search, shows copyable examples, and tries a free endpoint", async ({ page, svc }) => {
    const endpoints = await svc.manifest();
    await page.goto("/catalog");
    const cards = page.getByTestId("product");

    await page.getByLabel("Tag").selectOption("bundle");
    const bundles = endpoints.filter((e) => e.tags.includes("bundle"));
    await expect(cards).toHaveCount(bundles.length);
    await expect(page.getByTestId("catalog-count")).toContainText(`Showing ${bundles.length} of ${endpoints.length}`);

    await page.getByLabel("Tag").selectOption("");
    const target = endpoints.filter((e) => e.tool).at(-1)!;
    await page.getByLabel("Search").fill(target.tool!.name);
    await expect(page.locator(`[data-testid="product"][data-path="${target.path}"]`)).toBeVisible();
    expect(await cards.count()).toBeLessThan(endpoints.length);
    await page.getByLabel("Search").fill("");
    await expect(cards).toHaveCount(endpoints.length);

    // Examples carry the product's path and, for tools, its MCP tool call.
    const fng = endpoints.find((e) => e.tool && e.free_tier && e.params.length === 0)!;
    const card = page.locator(`[data-testid="product"][data-path="${fng.path}"]`);
    await card.getByText("Examples").click();
    await expect(card.locator("pre").first()).toContainText(`X-Bundle-Token: $BUNDLE_TOKEN`);
    await expect(card.locator("pre").first()).toContainText(fng.path);
    await expect(card.locator("pre", { hasText: "tools/call" })).toContainText(fng.tool!.name);

    // A free endpoint answers in the page.
    const sample = page.locator('[data-testid="free-endpoint"][data-path="/v1/sample"]');
    await sample.getByRole("button", { name: /Try it/ }).click();
    await expect(sample.getByTestId("try-result")).toContainText("HTTP 200");
    await expect(sample.getByTestId("try-result")).toContainText('"sentiment"');

    // A paid product without a credential shows its payment requirement.
    await card.getByText("Try it").click();
    await card.getByRole("button", { name: `Call ${fng.path}` }).click();
    await expect(card.getByTestId("try-result")).toContainText("HTTP 402");
  });
});
