// /v1/usage and the usage page show a credential's own charged calls only: two free keys
// spend calls side by side, and neither ever sees the other's receipts.
import type { APIRequestContext } from "@playwright/test";
import { test, expect } from "./helpers/fixtures";

interface UsageBody {
  kind: string;
  used_today: number;
  recent: Array<{ receipt_id: string; product: string }>;
}

async function mintKey(request: APIRequestContext): Promise<string> {
  const res = await request.get("/v1/free-key");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { api_key: string }).api_key;
}

async function spend(request: APIRequestContext, key: string, path: string): Promise<string> {
  const res = await request.get(path, { headers: { "X-Api-Key": key } });
  expect(res.status(), await res.text()).toBe(200);
  const receipt = res.headers()["x-receipt-id"];
  expect(receipt).toBeTruthy();
  return receipt!;
}

async function usage(request: APIRequestContext, key: string): Promise<UsageBody> {
  const res = await request.get("/v1/usage", { headers: { "X-Api-Key": key } });
  expect(res.status()).toBe(200);
  return (await res.json()) as UsageBody;
}

test("two credentials never see each other's calls, over the API and on the usage page", async ({ request, page, svc }) => {
  const covered = (await svc.manifest()).filter((e) => e.free_tier && e.params.every((p) => !p.required));
  expect(covered.length).toBeGreaterThan(1);
  const [a, b] = [await mintKey(request), await mintKey(request)];

  // Interleaved, so a filter on time or product could not separate them by accident.
  const receiptsA = [await spend(request, a, covered[0]!.path), await spend(request, a, covered[1]!.path)];
  const receiptsB = [await spend(request, b, covered[0]!.path)];
  receiptsA.push(await spend(request, a, covered[0]!.path));

  const usageA = await usage(request, a);
  const usageB = await usage(request, b);
  expect(usageA.used_today).toBe(3);
  expect(usageB.used_today).toBe(1);
  expect(usageA.recent.map((r) => r.receipt_id).sort()).toEqual([...receiptsA].sort());
  expect(usageB.recent.map((r) => r.receipt_id)).toEqual(receiptsB);

  // The page asks with B's key and lists B's call only.
  await page.goto("/usage");
  await page.getByLabel("Bundle token or API key").fill(b);
  await page.getByRole("button", { name: "Show usage" }).click();
  const rows = page.getByTestId("recent-calls").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-receipt", receiptsB[0]!);
  for (const r of receiptsA) await expect(page.getByTestId("usage-report")).not.toContainText(r);
});
