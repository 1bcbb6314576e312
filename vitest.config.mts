import { defineConfig } from "vitest/config";

// Two projects: "unit" (pure functions, adapters and handlers against the in-process
// upstream simulator; no build needed) and "integration" (the built service over real
// HTTP, real databases, local chain, MCP client). Only the latter builds the app.
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
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
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 180_000,
          pool: "forks",
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
    ],
  },
});
