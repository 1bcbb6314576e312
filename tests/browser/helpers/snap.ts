/**
 * Screenshots: artifacts/screenshots/<name>-<device>.png (device: the project's name, or
 * the width a flow was repeated at), attached to the report. Every screenshot first checks
 * that the page fits its width (expectFitsWidth), so each photographed state is also a
 * responsive-layout test.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type Page, type TestInfo } from "@playwright/test";
import type { DeviceName } from "./devices";

/** The project root (this file is tests/browser/helpers/snap.ts). */
const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Elements whose content is wider than their box, other than the ones built to scroll:
/**
 * Elements whose content is wider than their box, other than the ones built to scroll:
 * a scroll container (overflow-x auto/scroll) that is reachable by keyboard and named: a
 * ScrollRegion (role="region") or a code block. Also left out: text fields (they scroll
 * their value by nature), anything clipped on purpose (visually hidden: `clip`), and
 * zero-width layout wrappers whose content is sized against an ancestor (the chart
 * library's measuring box); that ancestor is checked like any other element. Each entry
 * describes the element.
 */

export async function unexpectedOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`document: ${root.scrollWidth} > ${root.clientWidth}`);
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      if (!(el instanceof HTMLElement)) continue;
      if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) continue;
      const cs = getComputedStyle(el);
      if (cs.display === "inline" || cs.display === "contents" || cs.display === "none") continue;
      if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue;
      let clipped = false;
      for (let a: HTMLElement | null = el; a && !clipped; a = a.parentElement) {
        const s = getComputedStyle(a);
        clipped = (s.clip !== "auto" && s.clip !== "") || s.clipPath !== "none";
      }
      if (clipped) continue;
      const scrolls = cs.overflowX === "auto" || cs.overflowX === "scroll";
      const named = Boolean(el.getAttribute("aria-label") || el.getAttribute("aria-labelledby"));
      const region = el.getAttribute("role") === "region" || el.tagName === "PRE";
      if (scrolls && el.tabIndex >= 0 && named && region) continue;
      const id = el.id ? `#${el.id}` : "";
      const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
      const test = el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : "";
      out.push(`${el.tagName.toLowerCase()}${id}${cls}${test} (overflow-x ${cs.overflowX}): ${el.scrollWidth} > ${el.clientWidth}: "${(el.textContent ?? "").trim().slice(0, 60)}"`);
    }
    return out;
  });
}

/** No horizontal page scroll and no clipped or spilling element at this width. */
export async function expectFitsWidth(page: Page): Promise<void> {
  expect(await unexpectedOverflow(page), `content wider than its box on ${page.url()}`).toEqual([]);
}

export async function snap(page: Page, info: TestInfo, name: string, device: DeviceName | string = info.project.name): Promise<string> {
  await expectFitsWidth(page);
  const dir = join(root, "artifacts", "screenshots");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${device}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await info.attach(`${name}-${device}`, { path: file, contentType: "image/png" });
  return file;
}
