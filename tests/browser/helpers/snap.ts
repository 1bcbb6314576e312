/** Writes a full-page screenshot to artifacts/screenshots/<name>-<project>.png and attaches it to the report. */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Page, TestInfo } from "@playwright/test";

export async function snap(page: Page, info: TestInfo, name: string): Promise<string> {
  const root = info.config.configFile ? dirname(info.config.configFile) : process.cwd();
  const dir = join(root, "artifacts", "screenshots");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${info.project.name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await info.attach(`${name}-${info.project.name}`, { path: file, contentType: "image/png" });
  return file;
}
