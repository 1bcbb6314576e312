// Home and market pages with live data, JSON at "/" for agents, and the accessibility
// basics every page must have (language, landmarks, one h1, labelled controls, visible
// keyboard focus).
import { test, expect } from "./helpers/fixtures";

const PAGES = ["/", "/catalog", "/market", "/free-key", "/wallet", "/usage"];

test("home shows the live composite sentiment with its components and how agents pay", async ({ page, svc }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("market intelligence");
  const live = page.getByTestId("live-sentiment");
  await expect(live).toBeVisible();
  await expect(live.getByRole("img", { name: /Composite sentiment -?\d\.\d\d/ })).toBeVisible();
  await expect(page.getByTestId("sentiment-score")).toHaveText(/^[+-]\d\.\d{3} \((strongly )?(bearish|neutral|bullish)\)$/);
  await expect(live.locator("tbody tr")).toHaveCount(3);
  await expect(page.getByRole("heading", { name: "How agents pay" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "OpenAPI" })).toHaveAttribute("href", "/openapi.json");

  // Agents asking for JSON at "/" still get the service info.
  const res = await svc.get("/", { Accept: "application/json" });
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(((await res.json()) as { name: string }).name).toBe("echo-x402-sentiment");

  // The tool count is the MCP server's own.
  const mcp = (await (await svc.get("/mcp", { Accept: "application/json" })).json()) as { tool_count: number; tools: Array<{ free: boolean }> };
  expect(mcp.tool_count).toBe(mcp.tools.length);
  await expect(page.getByTestId("tool-count")).toHaveText(String(mcp.tool_count));
  await expect(page.getByRole("main")).toContainText(`${mcp.tool_count} MCP tools (${mcp.tools.filter((t) => t.free).length} of them free)`);
});

test("the home page names networks as people do (Base, not eip155:8453) and the sitemap lists every page people open", async ({ page, svc, baseURL }) => {
  await page.goto("/");
  await expect(page.getByTestId("pay-summary")).toContainText("USDC on Base");
  await expect(page.getByRole("main")).not.toContainText("eip155:");
  const xml = await (await svc.get("/sitemap.xml")).text();
  for (const path of ["/", "/catalog", "/market", "/free-key", "/wallet", "/usage"]) expect(xml, path).toContain(`<loc>${baseURL}${path}</loc>`);
});

test("'/' tells caches that it varies on Accept, for the HTML page and the JSON service info", async ({ svc }) => {
  const vary = (res: Response) => (res.headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase());
  const html = await svc.get("/", { Accept: "text/html" });
  expect(html.headers.get("content-type")).toContain("text/html");
  expect(vary(html)).toContain("accept");
  const json = await svc.get("/", { Accept: "application/json" });
  expect(json.headers.get("content-type")).toContain("application/json");
  expect(vary(json)).toContain("accept");
});

test("market page charts hourly sentiment and XLM price", async ({ page }) => {
  await page.goto("/market");
  const chart = page.getByTestId("sentiment-chart");
  await expect(chart.locator("svg.recharts-surface").first()).toBeVisible();
  await expect(chart.locator(".recharts-line")).toHaveCount(2);
  await expect(chart.locator(".recharts-line-curve")).toHaveCount(2);
  await page.getByText("Data table").click();
  const rows = page.locator("figure table tbody tr");
  expect(await rows.count()).toBeGreaterThan(24);
});

test("market page: the chart's latest bar and the 'right now' figures are the same reading", async ({ page }) => {
  await page.goto("/market");
  const chart = page.getByTestId("sentiment-chart");
  await expect(chart.locator("svg.recharts-surface").first()).toBeVisible();
  const now = page.getByRole("region", { name: "Right now" });
  await expect(now.getByTestId("sentiment-score")).toBeVisible();

  // The latest bar as charted, as listed in the data table, and as "right now".
  const charted = { ts: await chart.getAttribute("data-latest-ts"), sentiment: await chart.getAttribute("data-latest-sentiment"), price: await chart.getAttribute("data-latest-price") };
  const lastRow = page.getByTestId("history-table").locator("tbody tr").last();
  const listed = { ts: await lastRow.getAttribute("data-ts"), sentiment: await lastRow.locator("td").nth(1).getAttribute("data-value"), price: await lastRow.locator("td").nth(2).getAttribute("data-value") };
  const shown = {
    ts: await now.getByTestId("sentiment-time").getAttribute("datetime"),
    sentiment: await now.getByTestId("sentiment-score").getAttribute("data-value"),
    price: await now.getByTestId("sentiment-price").getAttribute("data-value"),
  };
  expect(charted.sentiment).toMatch(/^-?\d/);
  expect(listed).toEqual(charted);
  expect(shown).toEqual(charted);
  // And as a person reads them: the same three decimals in the caption and in "right now".
  const score = Number(charted.sentiment).toFixed(3);
  await expect(now.getByTestId("sentiment-score")).toContainText(score);
  await expect(page.locator("figcaption")).toContainText(`latest sentiment ${score}`);
});

test("every page has a language, landmarks, one h1 and labelled controls, loads nothing from elsewhere and logs no errors", async ({ page, baseURL }) => {
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.origin !== new URL(baseURL!).origin && u.protocol !== "data:") foreign.push(r.url());
  });
  page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/favicon/.test(m.location().url)) errors.push(`${page.url()}: ${m.text()}`);
  });
  for (const path of PAGES) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("banner")).toHaveCount(1);
    await expect(page.getByRole("main")).toHaveCount(1);
    await expect(page.getByRole("contentinfo")).toHaveCount(1);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.locator("h1")).toHaveCount(1);
    const unlabelled = await page.locator("input:not([type=hidden]), select, textarea").evaluateAll((els) =>
      els
        .filter((el) => {
          const e = el as HTMLInputElement;
          return !(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.getAttribute("aria-labelledby");
        })
        .map((el) => el.outerHTML.slice(0, 120)),
    );
    expect(unlabelled, `unlabelled controls on ${path}`).toEqual([]);
  }
  // Hydration mismatches and script failures show up here.
  expect(errors).toEqual([]);
  // No fonts, scripts or styles from CDNs.
  expect(foreign).toEqual([]);
});

test("controls are reachable by keyboard with a visible focus ring", async ({ page }) => {
  await page.goto("/free-key");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  // Tab through the header to the e-mail field and the claim button.
  const email = page.getByLabel("E-mail (optional)");
  for (let i = 0; i < 20 && !(await email.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(email).toBeFocused();
  await page.keyboard.press("Tab");
  const claim = page.getByRole("button", { name: "Claim free key" });
  await expect(claim).toBeFocused();
  const outline = await claim.evaluate((el) => getComputedStyle(el).outlineStyle + " " + getComputedStyle(el).outlineWidth);
  expect(outline).toMatch(/^solid [1-9]/);
});
