/**
 * The fast lane's route table (lib/server/lane-routes.ts) against the app/ route files:
 * every route file of the agent surfaces (/v1/*, /mcp, /a2a/*) and of the JSON discovery
 * documents is in the lane, and the lane holds nothing else; the matcher sends a request
 * path to the route Next would pick, and leaves to Next the paths it normalises itself.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DISCOVERY_DOCUMENTS } from "@/lib/discovery/documents";
import { isLaneRoute, jsonDocumentRoutes, laneRoutes, routeMatcher } from "@/lib/server/lane-routes";

const ROOT = path.resolve(__dirname, "../..");

/** The App Router path of every app/**\/route.ts ("/v1/[...path]"). */
function appRoutes(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") out.push("/" + path.relative(path.join(ROOT, "app"), dir).split(path.sep).join("/"));
    }
  };
  walk(path.join(ROOT, "app"));
  return out.map((r) => (r === "/" ? "/" : r.replace(/\/$/, ""))).sort();
}

describe("the fast lane's route table", () => {
  const files = appRoutes();
  const lane = laneRoutes(files.map((r) => `${r}/route`));

  it("reads the route files", () => {
    expect(files).toContain("/v1/[...path]");
    expect(files).toContain("/health/live");
  });

  it("holds every route file under /v1/, /mcp and /a2a, and every JSON discovery document's", () => {
    const expected = files.filter(
      (r) =>
        /^\/(v1|mcp|a2a)(\/|$)/.test(r) ||
        DISCOVERY_DOCUMENTS.some((d) => /json$/.test(d.mediaType) && d.path.replace(/\{(\w+)\}/g, "[...$1]") === r),
    );
    expect(lane).toEqual(expected);
    for (const r of ["/v1/[...path]", "/v1/free-key", "/mcp", "/mcp/[...path]", "/a2a", "/a2a/jsonrpc", "/a2a/v1/[...path]", "/openapi.json", "/.well-known/agent-card.json", "/.well-known/api-catalog", "/.well-known/oauth-protected-resource/[...rest]"]) {
      expect(lane, r).toContain(r);
    }
  });

  it("holds nothing but route files, and no page, text document or health probe", () => {
    for (const r of lane) expect(files).toContain(r);
    for (const r of ["/health/live", "/llms.txt", "/spec.pdf", "/.well-known/agent-skills/[skill]/SKILL.md", "/api/service-info", "/metrics"]) expect(isLaneRoute(r), r).toBe(false);
  });

  it("every JSON discovery document has its route file in the lane", () => {
    for (const r of jsonDocumentRoutes()) {
      expect(files, r).toContain(r);
      expect(lane, r).toContain(r);
    }
  });

  it("when a build exists, Next's app-paths manifest lists the same lane routes as the files", () => {
    const manifest = path.join(ROOT, process.env.NEXT_DIST_DIR || ".next", "server", "app-paths-manifest.json");
    if (!existsSync(manifest)) return;
    const keys = Object.keys(JSON.parse(readFileSync(manifest, "utf8")) as Record<string, string>);
    expect(laneRoutes(keys)).toEqual(lane);
  });
});

describe("the lane's matcher", () => {
  const match = routeMatcher(laneRoutes(appRoutes().map((r) => `${r}/route`)).map((r) => ({ path: r, route: r })));

  it.each([
    ["/v1/quote", "/v1/[...path]", { path: ["quote"] }],
    ["/v1/a/b", "/v1/[...path]", { path: ["a", "b"] }],
    ["/v1/free-key", "/v1/free-key", {}],
    ["/v1/bundles/debug", "/v1/bundles/debug", {}],
    ["/v1/bundles/other", "/v1/[...path]", { path: ["bundles", "other"] }],
    ["/mcp", "/mcp", {}],
    ["/mcp/tools/get_xlm_quote", "/mcp/[...path]", { path: ["tools", "get_xlm_quote"] }],
    ["/a2a/v1/message:send", "/a2a/v1/[...path]", { path: ["message:send"] }],
    ["/a2a/jsonrpc", "/a2a/jsonrpc", {}],
    ["/.well-known/agent-card.json", "/.well-known/agent-card.json", {}],
    ["/.well-known/oauth-protected-resource/v1/quote", "/.well-known/oauth-protected-resource/[...rest]", { rest: ["v1", "quote"] }],
  ])("%s → %s", (pathname, route, params) => {
    expect(match(pathname)).toEqual({ route, params });
  });

  it.each(["/v1", "/v1/quote/", "/v1//quote", "/v1/%71uote", "/v1/./quote", "/v1/../mcp", "/health/live", "/", "/llms.txt", "/.well-known/agent-skills/x/SKILL.md", "/V1/quote", "/mcp/"])("leaves %s to Next", (pathname) => {
    expect(match(pathname)).toBeNull();
  });
});
