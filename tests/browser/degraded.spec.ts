// With every upstream unreachable the pages still answer 200 and say what is missing,
// instead of crashing: a separate service whose provider base URLs point at a closed port.
import { test, expect } from "./helpers/fixtures";
import { startService, type Service } from "../helpers/service";

const DEAD = "http://127.0.0.1:9";
const UPSTREAMS = [
  "FNG_BASE_URL",
  "COINGECKO_BASE_URL",
  "HORIZON_BASE_URL",
  "KRAKEN_BASE_URL",
  "COINBASE_BASE_URL",
  "BINANCE_BASE_URL",
  "ETHERSCAN_BASE_URL",
  "ETH_RPC_URL",
  "BASE_RPC_URL",
  "POLYMARKET_BASE_URL",
  "GOPLUS_BASE_URL",
  "DEXSCREENER_BASE_URL",
  "BLOCKSCOUT_BASE_URL",
];

let down: Service;
test.beforeAll(async () => {
  down = await startService({ env: { UPSTREAM_MODE: "live", UPSTREAM_TIMEOUT_MS: "1000", LOG_LEVEL: "error", ...Object.fromEntries(UPSTREAMS.map((k) => [k, DEAD])) } });
});
test.afterAll(async () => down?.stop());

test("home and market explain that live data is unavailable when every upstream is down", async ({ page }) => {
  const home = await page.goto(`${down.url}/`);
  expect(home?.status()).toBe(200);
  await expect(page.getByTestId("sentiment-unavailable")).toContainText("unavailable");
  await expect(page.getByRole("heading", { name: "How agents pay" })).toBeVisible();

  const market = await page.goto(`${down.url}/market`);
  expect(market?.status()).toBe(200);
  await expect(page.getByTestId("history-unavailable")).toContainText("unavailable");
  await expect(page.getByTestId("sentiment-unavailable")).toBeVisible();

  // Pages without live data are unaffected.
  const catalog = await page.goto(`${down.url}/catalog`);
  expect(catalog?.status()).toBe(200);
  await expect(page.getByTestId("product").first()).toBeVisible();
});
