/**
 * Every relative link in README.md and docs/*.md resolves: the file or folder it names
 * exists in the repository, and its `#anchor` (in the same document or another Markdown
 * file) is a heading there, slugged as GitHub does. Links inside code are not links;
 * absolute URLs (https:, mailto:) are not checked.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The text outside fenced code blocks and inline code spans. */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/(`+)[^`]*?\1/g, "");
}

/** GitHub's anchor for a heading's text (duplicates are numbered by the caller). */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown document: one per heading, repeated ones numbered -1, -2… */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const noFences = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of noFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a document at `file` (repo-relative) that do not resolve, with why. */
export function brokenLinks(file: string, md: string, exists = (p: string) => existsSync(join(root, p)), read = (p: string) => readFileSync(join(root, p), "utf8")): string[] {
  const broken: string[] = [];
  const targets = [...prose(md).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:…
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const path = pathPart === "" ? file : pathPart.startsWith("/") ? pathPart.slice(1) : relative(root, resolve(root, dirname(file), decodeURIComponent(pathPart)));
    if (path.startsWith("..")) {
      broken.push(`${target}: outside the repository`);
      continue;
    }
    if (pathPart !== "" && !exists(path)) {
      broken.push(`${target}: ${path} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!path.endsWith(".md")) {
      broken.push(`${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchors(path === file ? md : read(path)).has(anchor)) broken.push(`${target}: ${path} has no heading #${anchor}`);
  }
  return broken;
}

const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

describe("documentation links", () => {
  it.each(files)("every relative link and anchor in %s resolves", (file) => {
    expect(brokenLinks(file, readFileSync(join(root, file), "utf8"))).toEqual([]);
  });

  it("the README links to every guide in docs/", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    for (const f of files.filter((f) => f !== "README.md")) expect(readme).toContain(`](${f})`);
  });

  it("finds what does not resolve (and leaves code and absolute URLs alone)", () => {
    const fake: Record<string, string> = { "docs/a.md": "# A\n\n## The `x402` guide: paying\n\n## Twice\n\n## Twice\n", "docs/b.json": "{}" };
    const has = (p: string) => p in fake;
    const md = [
      "[ok](a.md) [ok](a.md#a) [ok](a.md#the-x402-guide-paying) [ok](a.md#twice-1) [ok](#here) [ok](b.json) [web](https://example.com/x#y)",
      "[bad file](c.md) [bad anchor](a.md#nope) [bad same](#nowhere) [bad anchor in json](b.json#k) [out](../../etc/passwd) [bad dup](a.md#twice-2)",
      "`[in code](missing.md)`",
      "```md\n[in a fence](missing.md)\n```",
      "## Here",
    ].join("\n\n");
    expect(brokenLinks("docs/x.md", md, has, (p) => fake[p]!)).toEqual([
      "c.md: docs/c.md does not exist",
      "a.md#nope: docs/a.md has no heading #nope",
      "#nowhere: docs/x.md has no heading #nowhere",
      "b.json#k: an anchor into a file that is not Markdown",
      "../../etc/passwd: outside the repository",
      "a.md#twice-2: docs/a.md has no heading #twice-2",
    ]);
  });
});
