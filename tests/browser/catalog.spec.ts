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

  test("states the limits and credit counts this instance applies, formatted alike, and lists the free MCP tools", async ({ page, svc }) => {
    const grouped = (n: number) => n.toLocaleString("en-US");
    // What the service enforces, read from its own answers (the test instance raises the sample limit).
    const sampleLimit = Number((await svc.get("/v1/sample")).headers.get("ratelimit-limit"));
    expect(sampleLimit).toBeGreaterThan(0);
    const minted = (await (await svc.get("/v1/free-key")).json()) as { daily_quota: number };
    const mcp = (await (await svc.get("/mcp", { Accept: "application/json" })).json()) as { tools: Array<{ name: string; free: boolean }> };

    await page.goto("/catalog");
    await expect(page.locator('[data-testid="free-endpoint"][data-path="/v1/sample"]')).toContainText(`${grouped(sampleLimit)} calls per hour per client IP`);
    await expect(page.locator('[data-testid="free-endpoint"][data-path="/v1/free-key"]')).toContainText(`${grouped(minted.daily_quota)} calls per UTC day`);
    // The agents' summary says the same.
    expect(await (await svc.get("/llms.txt")).text()).toContain(`${grouped(sampleLimit)} calls per hour per client IP`);

    // Credits sold: grouped the same way on the catalog, in the description and on the wallet page.
    const bundles = (await svc.manifest()).filter((e) => e.tags.includes("bundle"));
    const sold: Record<string, string> = {};
    for (const b of bundles) {
      const card = page.locator(`[data-testid="product"][data-path="${b.path}"]`);
      const credits = (await card.locator('[data-field="credits"]').textContent())!.replace(/ credits$/, "");
      expect(credits).toMatch(/^\d{1,3}(,\d{3})*$/);
      await expect(card.locator("p").first()).toContainText(`${credits} `);
      sold[b.path] = credits;
    }
    await page.goto("/wallet");
    for (const b of bundles) await expect(page.locator(`[data-testid="bundle-offer"][data-path="${b.path}"]`).getByTestId("offer-credits")).toHaveText(sold[b.path]!);

    // The free MCP tools have their own cards.
    await page.goto("/catalog");
    const free = mcp.tools.filter((t) => t.free).map((t) => t.name);
    expect(free.length).toBeGreaterThan(0);
    await expect(page.getByTestId("free-tool")).toHaveCount(free.length);
    expect(await page.getByTestId("free-tool").evaluateAll((els) => els.map((el) => el.getAttribute("data-tool")))).toEqual(free);
  });

  test("column headers never break inside a word", async ({ page }) => {
    await page.goto("/catalog");
    const heads = page.locator("table thead th");
    expect(await heads.count()).toBeGreaterThan(0);
    // Each header is one word or a few: every word sits on one line (one box per word).
    const broken = await heads.evaluateAll((els) =>
      els.flatMap((el) => {
        const out: string[] = [];
        const text = el.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) return out;
        const value = text.textContent ?? "";
        for (const m of value.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(text, m.index!);
          r.setEnd(text, m.index! + m[0].length);
          const lines = new Set(Array.from(r.getClientRects()).filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (lines.size > 1) out.push(m[0]);
        }
        return out;
      }),
    );
    expect(broken).toEqual([]);
  });

  test("Try it says why a call was refused in the service's own words", async ({ page, svc }) => {
    const endpoints = await svc.manifest();
    const notCovered = endpoints.find((e) => !e.free_tier && !e.tags.includes("bundle") && e.params.every((p) => !p.required))!;
    const key = ((await (await svc.get("/v1/free-key")).json()) as { api_key: string }).api_key;
    const expected = ((await (await svc.get(notCovered.path, { "X-Api-Key": key })).json()) as { error: string }).error;
    expect(expected).toBeTruthy();
    await page.goto("/catalog");
    await page.getByLabel("Your key or bundle token (for Try it)").fill(key);
    const card = page.locator(`[data-testid="product"][data-path="${notCovered.path}"]`);
    await card.getByText("Try it").click();
    await card.getByRole("button", { name: `Call ${notCovered.path}` }).click();
    const banner = card.getByTestId("try-banner");
    await expect(banner).toContainText("HTTP 402");
    await expect(banner).toContainText(expected);
    await expect(banner).not.toContainText("this product needs a free key");
  });

  test("wide tables scroll inside keyboard-reachable, named regions", async ({ page }) => {
    await page.goto("/catalog");
    const wraps = page.locator(".table-wrap");
    expect(await wraps.count()).toBeGreaterThan(0);
    const bad = await wraps.evaluateAll((els) => els.filter((el) => el.getAttribute("role") !== "region" || el.getAttribute("tabindex") !== "0" || !el.getAttribute("aria-label")).map((el) => el.outerHTML.slice(0, 100)));
    expect(bad).toEqual([]);
    const first = wraps.first();
    await first.focus();
    await expect(first).toBeFocused();
    expect(await first.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe("solid");
  });
});
