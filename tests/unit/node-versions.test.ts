/**
 * The supported Node.js lines, stated in five places, agree: package.json "engines" (the
 * floor), @types/node (that floor's line), the standalone bundle's target (the floor),
 * .ci/run (the floor and the active LTS it runs the suites on) and the Dockerfile's base
 * (the active LTS). And every package the install holds admits both lines CI runs: a
 * dependency upgrade that raises the floor fails here, not as an EBADENGINE warning.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (p: string) => readFileSync(join(root, p), "utf8");
const pkg = JSON.parse(read("package.json")) as { engines: { node: string }; dependencies: Record<string, string> };
const ci = read(".ci/run");
const ciVersion = (name: string) => ci.match(new RegExp(`^${name}=(\\d+\\.\\d+\\.\\d+)\\b`, "m"))?.[1];
const oldest = ciVersion("NODE_OLDEST")!;
const active = ciVersion("NODE_ACTIVE")!;

describe("supported Node.js lines", () => {
  it("CI runs the floor package.json states and an LTS above it", () => {
    expect(oldest, ".ci/run NODE_OLDEST").toBeTruthy();
    expect(active, ".ci/run NODE_ACTIVE").toBeTruthy();
    expect(semver.minVersion(pkg.engines.node)!.version).toBe(oldest);
    expect(semver.satisfies(active, pkg.engines.node)).toBe(true);
    // LTS lines are even.
    expect(semver.major(active) % 2).toBe(0);
    expect(semver.major(active)).toBeGreaterThan(semver.major(oldest));
  });

  it("the image runs the line CI runs the whole suite on, and the bundle and types target the floor", () => {
    const bases = [...read("Dockerfile").matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases).toEqual([`node:${semver.major(active)}-bookworm-slim`, `node:${semver.major(active)}-bookworm-slim`]);
    expect(read("scripts/standalone.mjs")).toContain(`target: "node${semver.major(oldest)}.${semver.minor(oldest)}"`);
    expect(semver.major(pkg.dependencies["@types/node"]!)).toBe(semver.major(oldest));
  });

  it("every installed package admits both lines (no EBADENGINE on either)", () => {
    const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { engines?: unknown; version?: string }> };
    const refused: string[] = [];
    let checked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      // What this platform's install holds (other platforms' optional binaries are not installed).
      if (!path || !existsSync(join(root, path, "package.json"))) continue;
      const range = (entry.engines as { node?: unknown } | undefined)?.node;
      if (typeof range !== "string") continue;
      checked++;
      for (const v of [oldest, active]) if (!semver.satisfies(v, range)) refused.push(`${path}@${entry.version} wants node ${range}, not ${v}`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });
});
