import { defineConfig } from "vitest/config";

// Three projects: "unit" (pure functions, adapters and handlers against the in-process
// upstream simulator; no build needed), "integration" (the built service over real
// HTTP, real databases, local chain, MCP client), and "integration-next-start": the HTTP
// contract, payment, MCP and A2A suites again, unchanged, against plain `next start` (the
// shape serverless platforms run: the route files without the fast lane or the custom
// server; tests/helpers/service.ts reads SERVICE_SHAPE). The integration projects build the app.
const integration = {
  environment: "node",
  testTimeout: 60_000,
  hookTimeout: 180_000,
  pool: "forks" as const,
  globalSetup: ["tests/helpers/global-setup.ts"],
};

/** The suites that must hold on both lanes (issue 29): run by "integration" and "integration-next-start". */
export const BOTH_LANES = [
  "tests/integration/http-catalog.test.ts",
  "tests/integration/conformance.test.ts",
  "tests/integration/payments.test.ts",
  "tests/integration/mcp.test.ts",
  "tests/integration/a2a.test.ts",
];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    // Two test files at a time. Vitest's default is one worker fewer than the cores, which
    // on the 2-core machines CI runs on is one file at a time; the integration files spend
    // most of their time waiting (service start-up, block intervals, outages being waited
    // out), and each isolates its state (own port, PostgreSQL schema, Redis key prefix,
    // chain, PostgreSQL cluster for outages), so two overlap without sharing anything.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts", "tests/sources/**/*.test.ts", "tests/products/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: { name: "integration", include: ["tests/integration/**/*.test.ts"], ...integration },
      },
      {
        extends: true,
        test: { name: "integration-next-start", include: BOTH_LANES, env: { SERVICE_SHAPE: "next-start" }, ...integration },
      },
    ],
  },
});
