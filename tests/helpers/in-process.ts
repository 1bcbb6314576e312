/**
 * In-process fixture for adapter and handler tests: starts the upstream simulator on a
 * loopback port and points the adapters' base URLs (process.env) at it, so the real
 * HTTP client, zod parsing and caching run against the providers' wire formats.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { resetEnvForTests } from "@/lib/config/env";
import { clearCache } from "@/lib/market/cache";
import { resetLimiters } from "@/lib/market/limiter";

export function useSimulator(opts: { seed?: number; env?: Record<string, string> } = {}): { sim: () => Simulator } {
  let sim: Simulator | undefined;
  const saved = { ...process.env };
  beforeAll(async () => {
    sim = await startSimulator({ seed: opts.seed ?? 402 });
    Object.assign(process.env, sim.env, { UPSTREAM_TIMEOUT_MS: "2000", LOG_LEVEL: "silent" }, opts.env);
    resetEnvForTests();
  });
  beforeEach(() => {
    sim?.clearFaults();
    sim?.resetCounts();
    clearCache();
    resetLimiters();
  });
  afterAll(async () => {
    await sim?.close();
    process.env = saved;
    resetEnvForTests();
  });
  return {
    sim: () => {
      if (!sim) throw new Error("simulator not started");
      return sim;
    },
  };
}
