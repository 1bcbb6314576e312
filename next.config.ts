import type { NextConfig } from "next";
import { linkHeader } from "./lib/discovery/documents";

const config: NextConfig = {
  // Separate build folders let several checkouts' test runs build side by side.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // A self-contained server (.next/standalone/server.js with only the traced
  // node_modules) for containers: the Dockerfile copies it, nothing else.
  output: "standalone",
  // Read at run time from disk, so tracing cannot see them: the SQL migrations applied
  // on start (lib/db/migrate.ts).
  outputFileTracingIncludes: { "/**": ["./prisma/migrations/**/*"] },
  outputFileTracingExcludes: { "*": ["**/node_modules/sharp/**/*", "**/node_modules/@img/**/*"] },
  reactStrictMode: true,
  // No page uses next/image: the optimizer is off, and sharp with its libvips (about
  // 20 MB), which Next traces into the standalone folder for it whatever this setting
  // says, is left out ("*" matches the server's own trace, where Next 16 adds it).
  images: { unoptimized: true },
  // `npm test` type-checks the whole project first (tsc --noEmit); the build does not
  // repeat it, which keeps `npm start`'s first build short.
  typescript: { ignoreBuildErrors: true },
  // Native/WASM and Node-only packages load from node_modules at run time instead of
  // being bundled; PGlite in particular must find its WASM and data files.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "@prisma/client",
    "pg",
    "ioredis",
    "@stellar/stellar-sdk",
    "pdf-lib",
    "tiny-secp256k1",
    // Loaded only with CDP keys (lib/payments/x402/remote.ts), with its CDP SDK.
    "@coinbase/x402",
    // One copy per process for the metrics registry and the tracer that Next's own spans
    // use (@opentelemetry/api's global); the trace SDK loads only with an OTLP endpoint.
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  // Every response points agents to the discovery documents (RFC 8288 Link header).
  async headers() {
    return [{ source: "/:path*", headers: [{ key: "Link", value: linkHeader() }] }];
  },
  async rewrites() {
    return {
      // Agents asking for JSON at "/" get the service info; browsers get the home page.
      // Both answers carry `Vary: Accept`, added by a hook on Node's HTTP server that
      // instrumentation.ts installs in every shape (lib/server/vary-accept.ts), because
      // Next replaces the Vary header of page responses after these rules run.
      beforeFiles: [
        {
          source: "/",
          has: [{ type: "header", key: "accept", value: "(?<accept>.*application/json.*)" }],
          destination: "/api/service-info",
        },
      ],
      afterFiles: [],
      fallback: [],
    };
  },
};

export default config;
