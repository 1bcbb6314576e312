/**
 * SERVICE_SHAPE picks the server the integration suites start when they name none
 * (tests/helpers/service.ts): `npm start`'s server by default, plain `next start` for the
 * "integration-next-start" project, which runs the HTTP, payment, MCP and A2A suites again.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { onlyOnServer, serviceShape } from "../helpers/service";
import config, { BOTH_LANES } from "../../vitest.config.mjs";

describe("the service shape of an integration run", () => {
  const before = process.env.SERVICE_SHAPE;
  afterEach(() => {
    if (before === undefined) delete process.env.SERVICE_SHAPE;
    else process.env.SERVICE_SHAPE = before;
  });

  it("is npm start's server unless SERVICE_SHAPE=next-start; anything else is refused", () => {
    delete process.env.SERVICE_SHAPE;
    expect(serviceShape()).toBe("server");
    process.env.SERVICE_SHAPE = "next-start";
    expect(serviceShape()).toBe("next-start");
    process.env.SERVICE_SHAPE = "next_start";
    expect(() => serviceShape()).toThrow(/SERVICE_SHAPE=next_start/);
  });

  it("onlyOnServer skips with its reason under next start and lets the test run on npm start's server", () => {
    const skip = vi.fn();
    delete process.env.SERVICE_SHAPE;
    onlyOnServer({ skip }, "the lane's debug log");
    expect(skip).toHaveBeenLastCalledWith(false, expect.any(String));
    process.env.SERVICE_SHAPE = "next-start";
    onlyOnServer({ skip }, "the lane's debug log");
    expect(skip).toHaveBeenLastCalledWith(true, "only npm start's server has this: the lane's debug log (this run: next-start)");
  });

  it("the next-start project runs the five suites, each also in the integration project, with SERVICE_SHAPE=next-start", () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[]; env?: Record<string, string> } }[];
    const ns = projects.find((p) => p.test.name === "integration-next-start")!;
    const integration = projects.find((p) => p.test.name === "integration")!;
    expect(ns.test.env).toEqual({ SERVICE_SHAPE: "next-start" });
    expect(ns.test.include).toEqual(BOTH_LANES);
    expect(BOTH_LANES.map((f) => f.replace(/^tests\/integration\/|\.test\.ts$/g, ""))).toEqual(["http-catalog", "conformance", "payments", "mcp", "a2a"]);
    expect(integration.test.include).toEqual(["tests/integration/**/*.test.ts"]);
  });
});
