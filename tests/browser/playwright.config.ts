/**
 * Browser tests of the web pages in a system Chromium (Debian's by default; CHROMIUM_PATH,
 * which scripts/test.mjs sets to the browser it found or installed). Playwright lives in
 * this folder's own package (package.json here), out of the service's install. The global
 * setup builds the app when stale, starts a local chain (chain id 8453, EIP-3009 USDC)
 * and the real service configured to take payments on it; tests reach it through the
 * `baseURL` fixture. Functional tests run at desktop width (the flows whose result pages
 * are photographed repeat at phone width inside it); the screenshot spec runs at desktop
 * and phone widths. Screenshots: artifacts/screenshots/<page>[-<state>]-<desktop|phone>.png.
 */
import { defineConfig } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { DEVICES } from "./helpers/devices";

// Reports, traces and screenshots go to the project root (test-results/, artifacts/).
const root = fileURLToPath(new URL("../..", import.meta.url));

process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = "1";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  globalSetup: "./helpers/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  workers: 2,
  reporter: [["list"]],
  outputDir: `${root}test-results`,
  use: {
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "desktop", testIgnore: /(paywall|solana|recovery)\.spec\.ts$/, use: { ...DEVICES.desktop } },
    // The paywall and the wallet flows are paid to the one pay-to address and each checks
    // that it received exactly its price: the paywall runs after the desktop flows, never
    // beside them (the Solana flows, paid on another ledger, run beside the paywall).
    { name: "paywall", testMatch: /(paywall|solana)\.spec\.ts$/, dependencies: ["desktop"], use: { ...DEVICES.desktop } },
    // Stops the chain for 25 s: nothing else may settle meanwhile, so it runs last and alone.
    { name: "recovery", testMatch: /recovery\.spec\.ts$/, dependencies: ["paywall"], use: { ...DEVICES.desktop } },
    { name: "phone", testMatch: /screenshots\.spec\.ts$/, use: { ...DEVICES.phone } },
  ],
});
